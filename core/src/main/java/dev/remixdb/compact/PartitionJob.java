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

/**
 * Carries out one partition's compaction plan (REMIX §4.2) against a frozen memtable, producing
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
    private final Memtable imm;
    private final CompactionPlan plan;

    /**
     * A job for {@code plan} on partition {@code old}, whose range ends at {@code upper}, with the
     * new data of {@code imm}; a null {@code imm} (no new data) only for a Major of every table.
     */
    PartitionJob(TableFiles files, int splitTables, Partition old, byte[] upper, Memtable imm, CompactionPlan plan) {
        if (imm == null && !(plan instanceof CompactionPlan.Major(int k) && k == old.tables().size())) {
            throw new IllegalArgumentException("only a merge of every table runs without a memtable: " + plan);
        }
        this.files = files;
        this.splitTables = splitTables;
        this.old = old;
        this.upper = upper;
        this.imm = imm;
        this.plan = plan;
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
        List<TableHandle> fresh = write(List.of(memtable()), dropTombstones);
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
        List<Source> sources = new ArrayList<>();
        sources.add(memtable());
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
        VersionSource tables = new VersionSource(List.of(old), RemixCursor.Mode.NEWEST, true);
        List<Source> sources;
        RangeTombstone[] ranges;
        if (imm == null) {
            // An idle merge: the tables alone, positioned here as write() expects the first source.
            tables.seekToFirst();
            sources = List.of(tables);
            ranges = NO_RANGES;
        } else {
            sources = List.of(memtable(), tables);
            // The frozen memtable's range deletes hide what is older in this partition, for good.
            ranges = imm.rangeTombstones();
        }
        List<TableHandle> fresh = write(sources, true, ranges);
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

    private MemtableSource memtable() {
        MemtableSource s = new MemtableSource(imm, Long.MAX_VALUE, upper);
        s.seek(MemorySegment.ofArray(old.lower()), 0, old.lower().length);
        return s;
    }

    /** Merges {@code sources} (newest first) into new tables, opened and retained once each. */
    private List<TableHandle> write(List<Source> sources, boolean dropTombstones) throws IOException {
        return write(sources, dropTombstones, NO_RANGES);
    }

    /**
     * {@link #write(List, boolean)}, leaving out the versions {@code ranges} hide: only with
     * {@code dropTombstones}, the merges that hold everything older (a hidden version must go,
     * never be written as it was).
     */
    private List<TableHandle> write(List<Source> sources, boolean dropTombstones, RangeTombstone[] ranges)
            throws IOException {
        if (ranges.length > 0 && !dropTombstones) {
            throw new IllegalArgumentException("range deletes apply only in merges that drop tombstones");
        }
        List<TableSink.Output> outputs;
        RangeTombstone[][] bySource = null;
        if (ranges.length > 0) {
            // The memtable (first) holds them; the tables after it are older than all of them.
            bySource = new RangeTombstone[sources.size()][];
            java.util.Arrays.fill(bySource, NO_RANGES);
            bySource[0] = ranges;
        }
        try (Merger merger = new Merger(sources, bySource, Long.MAX_VALUE);
             TableSink sink = new TableSink(files.dir(), files.fileNumbers(), files.tableOptions(),
                     files.tableBytes())) {
            // The memtable source is positioned already; the others start from their beginning.
            for (int i = 1; i < sources.size(); i++) {
                sources.get(i).seekToFirst();
            }
            merger.repick();
            for (; merger.isValid(); merger.next()) {
                if (!(dropTombstones && merger.isTombstone())) {
                    sink.add(merger.current());
                }
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
