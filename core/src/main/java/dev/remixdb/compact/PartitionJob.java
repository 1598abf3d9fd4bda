package dev.remixdb.compact;

import dev.remixdb.compaction.CompactionPlan;
import dev.remixdb.cursor.MemtableSource;
import dev.remixdb.cursor.Merger;
import dev.remixdb.cursor.RunSource;
import dev.remixdb.cursor.Source;
import dev.remixdb.cursor.VersionSource;
import dev.remixdb.files.FileNames;
import dev.remixdb.memtable.Memtable;
import dev.remixdb.memtable.RangeTombstone;
import dev.remixdb.remix.Keys;
import dev.remixdb.remix.RebuildStats;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixConfig;
import dev.remixdb.remix.RemixCursor;
import dev.remixdb.remix.RemixFile;
import dev.remixdb.table.Table;
import dev.remixdb.version.Partition;
import dev.remixdb.version.TableHandle;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Carries out one partition's compaction plan (REMIX §4.2) against frozen memtables, producing
 * the partition(s) that replace it. Nothing is installed here: the result becomes visible only when
 * the coordinator installs a new version, and {@link Result#discard()} removes it otherwise.
 * <ul>
 *   <li>Minor: the new data becomes new tables; the REMIX is rebuilt from the old one (§4.3).</li>
 *   <li>Major(k): the newest k tables and the new data are merged into new tables.</li>
 *   <li>Split: everything is merged and cut into partitions of a few tables each.</li>
 * </ul>
 */
final class PartitionJob {
    /** The partitions that replace the old one, and the tables created for them. */
    record Result(List<Partition> partitions, List<TableHandle> newTables) {
        /** Releases a result that will not be installed, deleting its new files. */
        void discard() {
            for (TableHandle t : newTables) {
                t.markObsolete();
            }
            for (Partition p : partitions) {
                p.markObsolete();
                p.release();
            }
        }
    }

    private static final RangeTombstone[] NO_RANGES = {};

    private final TableFiles files;
    private final int splitTables;
    private final Partition old;
    private final byte[] upper;
    /** The round's frozen memtables, newest first; empty for a merge without new data. */
    private final List<Memtable> imm;
    /** Each memtable's range deletes, aligned with {@link #imm}. */
    private final RangeTombstone[][] immRanges;
    private final CompactionPlan plan;
    /** Runs half of a large Split's merge beside this job's thread; null: never. */
    private final Executor helpers;

    /**
     * A job for {@code plan} on partition {@code old}, whose range ends at {@code upper}, with the
     * new data of the memtables {@code imm} (newest first, each with its range deletes in
     * {@code immRanges}); no memtable (no new data) only for a Major of every table.
     */
    PartitionJob(TableFiles files, int splitTables, Partition old, byte[] upper, List<Memtable> imm,
                 RangeTombstone[][] immRanges, CompactionPlan plan) {
        this(files, splitTables, old, upper, imm, immRanges, plan, null);
    }

    /**
     * As above; a merge of the whole partition into two or more partitions writes the upper half of
     * the key range on {@code helpers} while this thread writes the lower half (it runs that half
     * itself when no helper thread has picked it up by then).
     */
    PartitionJob(TableFiles files, int splitTables, Partition old, byte[] upper, List<Memtable> imm,
                 RangeTombstone[][] immRanges, CompactionPlan plan, Executor helpers) {
        if (imm.isEmpty() && !(plan instanceof CompactionPlan.Major(int k) && k == old.tables().size())) {
            throw new IllegalArgumentException("only a merge of every table runs without a memtable: " + plan);
        }
        if (immRanges.length != imm.size()) {
            throw new IllegalArgumentException(immRanges.length + " range lists for " + imm.size() + " memtables");
        }
        this.files = files;
        this.splitTables = splitTables;
        this.old = old;
        this.upper = upper;
        this.imm = List.copyOf(imm);
        this.immRanges = immRanges;
        this.plan = plan;
        this.helpers = helpers;
    }

    Result run() throws IOException {
        return switch (plan) {
            case CompactionPlan.Minor m -> minor();
            case CompactionPlan.Major m when m.tables() == old.tables().size() -> mergeAll(Integer.MAX_VALUE);
            case CompactionPlan.Major m -> major(m.tables());
            case CompactionPlan.Split s -> mergeAll(splitTables);
            case CompactionPlan.Abort a -> throw new IllegalArgumentException("an abort has no job");
        };
    }

    /** New data as new tables on top of the old ones; tombstones are dropped when nothing is older. */
    private Result minor() throws IOException {
        boolean dropTombstones = old.tables().isEmpty();
        List<TableHandle> fresh = write(memtables(), dropTombstones);
        if (fresh.isEmpty()) {
            // Only tombstones over an empty partition: nothing to write, the partition stays as it is.
            old.retain();
            return new Result(List.of(old), List.of());
        }
        try {
            List<TableHandle> tables = new ArrayList<>(old.tables());
            tables.addAll(fresh);
            List<Table> newRuns = runs(fresh);
            Remix remix;
            if (old.remix() == null) {
                remix = Remix.build(runs(tables), config(tables.size()));
            } else if (config(tables.size()).segmentSize() == old.remix().segmentSize()) {
                remix = Remix.rebuild(old.remix(), newRuns, new RebuildStats());
            } else {
                // More runs than the old segment size allows: a fresh build picks a larger D.
                remix = Remix.build(runs(tables), config(tables.size()));
            }
            for (TableHandle t : old.tables()) {
                t.retain();
            }
            return new Result(List.of(partition(old.lower(), tables, remix)), fresh);
        } catch (IOException | RuntimeException | Error e) {
            release(fresh);
            throw e;
        }
    }

    /** The newest {@code k} tables (not all) and the new data, merged; tombstones must stay. */
    private Result major(int k) throws IOException {
        List<TableHandle> all = old.tables();
        int keep = all.size() - k;
        List<Source> sources = memtables();
        for (int i = all.size() - 1; i >= keep; i--) {
            sources.add(new RunSource(all.get(i).table()));
        }
        List<TableHandle> fresh = write(sources, false);
        try {
            List<TableHandle> tables = new ArrayList<>(all.subList(0, keep));
            tables.addAll(fresh);
            Partition p = tables.isEmpty() ? Partition.empty(old.lower())
                    : partition(old.lower(), tables, Remix.build(runs(tables), config(tables.size())));
            for (TableHandle t : all.subList(0, keep)) {
                t.retain();
            }
            return new Result(List.of(p), fresh);
        } catch (IOException | RuntimeException | Error e) {
            release(fresh);
            throw e;
        }
    }

    /**
     * Everything (the old partition through its REMIX, which merges without comparing keys, plus the
     * new data), with tombstones dropped since nothing older remains; cut into partitions of
     * {@code perPartition} tables.
     */
    private Result mergeAll(int perPartition) throws IOException {
        byte[] mid = perPartition == Integer.MAX_VALUE ? null : splitPoint(perPartition);
        List<TableHandle> fresh = mid == null ? mergeRange(null, null) : mergeHalves(mid);
        List<Partition> out = new ArrayList<>();
        try {
            if (fresh.isEmpty()) {
                out.add(Partition.empty(old.lower()));
            }
            for (int i = 0; i < fresh.size(); i += Math.min(perPartition, fresh.size() - i)) {
                List<TableHandle> group = fresh.subList(i, Math.min(fresh.size(), i + perPartition));
                byte[] lower = i == 0 ? old.lower() : group.getFirst().table().firstKey();
                out.add(partition(lower, group, Remix.build(runs(group), config(group.size()))));
            }
            return new Result(out, fresh);
        } catch (IOException | RuntimeException | Error e) {
            for (Partition p : out) {
                p.markObsolete();
                // The partition's references to its tables are dropped below with the others.
                for (TableHandle t : p.tables()) {
                    t.retain();
                }
                p.release();
            }
            release(fresh);
            throw e;
        }
    }

    /**
     * Where a Split's merge is cut in two, or null to merge in one piece: the anchor of the middle
     * segment of the old REMIX (about half of the old keys on each side), when the partition holds
     * enough data for at least two new partitions. A Split of a large partition (the first split of
     * a store that began as one partition rewrites all of it) is the longest job of its round, and
     * while it runs the next memtable waits; the second compaction thread is often idle meanwhile.
     */
    private byte[] splitPoint(int perPartition) {
        Remix remix = old.remix();
        if (helpers == null || remix == null || remix.segmentCount() < 2
                || old.tableBytes() < 2L * perPartition * files.tableBytes()) {
            return null;
        }
        return remix.anchorKey(remix.segmentCount() / 2);
    }

    /**
     * Merges the partition below {@code mid} here and from {@code mid} on in a helper thread. The
     * upper half is run by whichever thread takes it first: the helper when it starts, or this one
     * when it is done with the lower half (a cancelled {@link FutureTask} may still be running, so
     * the claim is a flag of its own). So the half is written once and no thread waits on a task
     * still queued behind busy helpers.
     */
    private List<TableHandle> mergeHalves(byte[] mid) throws IOException {
        AtomicBoolean taken = new AtomicBoolean();
        FutureTask<List<TableHandle>> upperHalf = new FutureTask<>(
                () -> taken.compareAndSet(false, true) ? mergeRange(mid, null) : null);
        try {
            helpers.execute(upperHalf);
        } catch (RejectedExecutionException e) {
            return mergeRange(null, null);  // the helpers are shutting down: all of it here
        }
        List<TableHandle> lower;
        try {
            lower = mergeRange(null, mid);
        } catch (IOException | RuntimeException | Error e) {
            if (!taken.compareAndSet(false, true)) {
                try {
                    release(awaitHalf(upperHalf));
                } catch (IOException | RuntimeException | Error other) {
                    e.addSuppressed(other);
                }
            }
            throw e;
        }
        List<TableHandle> higher;
        try {
            higher = taken.compareAndSet(false, true) ? mergeRange(mid, null) : awaitHalf(upperHalf);
        } catch (IOException | RuntimeException | Error e) {
            release(lower);
            throw e;
        }
        List<TableHandle> all = new ArrayList<>(lower);
        all.addAll(higher);
        return all;
    }

    /** The result of a half started in a helper thread, waiting for it to end whatever happens. */
    private static List<TableHandle> awaitHalf(FutureTask<List<TableHandle>> half) throws IOException {
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    return half.get();
                } catch (InterruptedException e) {
                    // Its tables must be released or installed: wait for it to finish.
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof IOException io) {
                        throw io;
                    } else if (cause instanceof RuntimeException re) {
                        throw re;
                    } else if (cause instanceof Error err) {
                        throw err;
                    }
                    throw new IOException("split half failed", cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Merges every newest version in [{@code from}, {@code to}) of the partition (null: its bounds)
     * and the new data there into new tables, tombstones and what range deletes hide dropped.
     */
    private List<TableHandle> mergeRange(byte[] from, byte[] to) throws IOException {
        List<Source> sources = memtables();
        sources.add(new VersionSource(List.of(old), RemixCursor.Mode.NEWEST, true));
        // The frozen memtables' range deletes hide what is older in this partition, for good.
        return write(sources, true, immRanges, from != null ? from : old.lower(), to);
    }

    /** The round's memtables as sources (newest first) bounded by the partition's upper end, not positioned. */
    private List<Source> memtables() {
        List<Source> sources = new ArrayList<>(imm.size() + 1);
        for (Memtable m : imm) {
            sources.add(new MemtableSource(m, Long.MAX_VALUE, upper));
        }
        return sources;
    }

    /**
     * Merges {@code sources} (newest first) from the partition's lower end into new tables, opened
     * and retained once each.
     */
    private List<TableHandle> write(List<Source> sources, boolean dropTombstones) throws IOException {
        return write(sources, dropTombstones, new RangeTombstone[0][], old.lower(), null);
    }

    /**
     * Merges {@code sources} (newest first) from {@code from} up to {@code to} (exclusive; null: to
     * their end), leaving out the versions that the range deletes {@code ranges} hide (one array for
     * each of the first sources, the memtables): only with {@code dropTombstones}, the merges that
     * hold everything older (a hidden version must go, never be written as it was). The sources are
     * positioned once the merger owns them, so that a failed read closes them too.
     */
    private List<TableHandle> write(List<Source> sources, boolean dropTombstones, RangeTombstone[][] ranges,
                                    byte[] from, byte[] to) throws IOException {
        boolean anyRanges = false;
        for (RangeTombstone[] r : ranges) {
            anyRanges |= r.length > 0;
        }
        if (anyRanges && !dropTombstones) {
            throw new IllegalArgumentException("range deletes apply only in merges that drop tombstones");
        }
        List<TableSink.Output> outputs;
        RangeTombstone[][] bySource = null;
        if (anyRanges) {
            // The memtables (first) hold them; the tables after them are older than all of them.
            bySource = new RangeTombstone[sources.size()][];
            java.util.Arrays.fill(bySource, NO_RANGES);
            System.arraycopy(ranges, 0, bySource, 0, ranges.length);
        }
        try (Merger merger = new Merger(sources, bySource, Long.MAX_VALUE);
             TableSink sink = new TableSink(files.dir(), files.fileNumbers(), files.tableOptions(),
                     files.tableBytes())) {
            for (Source source : sources) {
                source.seek(MemorySegment.ofArray(from), 0, from.length);
            }
            merger.repick();
            // One loop per kind of job: a loop whose branches went one way in the jobs before (no
            // upper bound in minors, one in a split's lower half) was compiled for that, and the
            // first job of another kind threw the compiled merge away (six recompiles of this
            // method in a 1 KB load, 2.75 s of the JIT on two cores).
            if (to != null) {
                copyBelow(merger, sink, MemorySegment.ofArray(to), dropTombstones);
            } else if (dropTombstones) {
                copyLive(merger, sink);
            } else {
                copyAll(merger, sink);
            }
            outputs = sink.finish();
            files.counters().tableBytes.add(sink.bytesWritten());
        }
        List<TableHandle> handles = new ArrayList<>();
        try {
            for (TableSink.Output o : outputs) {
                handles.add(new TableHandle(Table.open(o.number(), o.path(), files.reader(), files.cache())));
            }
        } catch (IOException | RuntimeException | Error e) {
            release(handles);
            for (TableSink.Output o : outputs) {
                Files.deleteIfExists(o.path());
            }
            throw e;
        }
        return handles;
    }

    /** Every entry of {@code merger} into {@code sink}, tombstones too. */
    private static void copyAll(Merger merger, TableSink sink) throws IOException {
        for (; merger.isValid(); merger.next()) {
            sink.add(merger.current());
        }
    }

    /** Every entry of {@code merger} but the tombstones into {@code sink}. */
    private static void copyLive(Merger merger, TableSink sink) throws IOException {
        for (; merger.isValid(); merger.next()) {
            if (!merger.isTombstone()) {
                sink.add(merger.current());
            }
        }
    }

    /** The entries of {@code merger} below {@code end} into {@code sink}, without tombstones if asked. */
    private static void copyBelow(Merger merger, TableSink sink, MemorySegment end, boolean dropTombstones)
            throws IOException {
        int endLength = (int) end.byteSize();
        for (; merger.isValid(); merger.next()) {
            Source at = merger.current();
            if (Keys.compare(at.keySegment(), at.keyOffset(), at.keyLength(), end, 0, endLength) >= 0) {
                break;
            }
            if (!(dropTombstones && merger.isTombstone())) {
                sink.add(at);
            }
        }
    }

    /** A partition over {@code tables} (references passed in) with {@code remix}, whose file it writes. */
    private Partition partition(byte[] lower, List<TableHandle> tables, Remix remix) throws IOException {
        long number = files.fileNumbers().getAsLong();
        Path path = FileNames.remix(files.dir(), number);
        try {
            RemixFile.write(remix, path);
            files.counters().tableBytes.add(Files.size(path));
        } catch (IOException | RuntimeException | Error e) {
            remix.close();
            Files.deleteIfExists(path);
            throw e;
        }
        return new Partition(lower, tables, remix, number, path);
    }

    private static RemixConfig config(int runs) {
        return RemixConfig.forRuns(runs, true);
    }

    private static List<Table> runs(List<TableHandle> tables) {
        List<Table> runs = new ArrayList<>(tables.size());
        for (TableHandle t : tables) {
            runs.add(t.table());
        }
        return runs;
    }

    /** Drops new tables after a failure, deleting their files. */
    private static void release(List<TableHandle> fresh) {
        for (TableHandle t : fresh) {
            t.markObsolete();
            t.release();
        }
    }
}
