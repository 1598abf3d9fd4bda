package dev.remixdb.compact;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.compaction.CompactionPlan;
import dev.remixdb.compaction.PartitionStats;
import dev.remixdb.compaction.TableStats;
import dev.remixdb.engine.Counters;
import dev.remixdb.engine.EngineConfig;
import dev.remixdb.engine.MemtableRef;
import dev.remixdb.engine.ReadState;
import dev.remixdb.engine.VersionSet;
import dev.remixdb.engine.WritePipeline;
import dev.remixdb.io.BlockReader;
import dev.remixdb.cursor.Merger;
import dev.remixdb.cursor.Source;
import dev.remixdb.memtable.RangeTombstone;
import dev.remixdb.remix.Keys;
import dev.remixdb.remix.Selectors;
import dev.remixdb.version.Partition;
import dev.remixdb.version.TableHandle;
import dev.remixdb.version.Version;
import dev.remixdb.wal.WalOp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Background compaction (REMIX §4.2). One coordinator thread waits for a frozen memtable, takes it
 * with the newer frozen ones waiting beside it ({@link FrozenGroup}), splits their entries by
 * partition, asks the policy what to do with each partition (abort, minor, major, split), runs the
 * partitions' jobs on a bounded pool of worker threads, puts aborted data back into the active
 * memtable, and installs the new version.
 *
 * <p>It talks to the rest of the engine through three narrow doors: the {@link VersionSet} (take a
 * frozen memtables, install a version, report a failure), the {@link WritePipeline} (re-insert what an
 * abort keeps, the last sequence number) and {@link TableFiles} (where and how to write files).
 */
public final class Compactor {
    private final VersionSet versions;
    private final WritePipeline writes;
    private final EngineConfig config;
    private final TableFiles files;
    private final Counters counters;
    private final ExecutorService workers;
    private final Thread coordinator;
    /** Ranges to merge fully in a coming round (see {@link #compactRange}). */
    private final List<Forced> forced = new ArrayList<>();
    /** Bytes of the tables the store held at open: part of the base of the optional-write budget. */
    private final long bytesAtOpen;
    /** How long the compactor waits for a frozen memtable before it looks for idle merges. */
    private final long idleCheckNanos;

    /**
     * A requested full merge of the partitions overlapping [from, to), done in the round of the first
     * frozen memtable whose WAL numbers at least {@code minWal}.
     */
    private record Forced(long minWal, byte[] from, byte[] to, CompletableFuture<Void> done) {}

    /** A compactor over the store's parts, writing into {@code dir}; {@link #start()} starts its threads. */
    public Compactor(VersionSet versions, WritePipeline writes, EngineConfig config, Path dir, BlockReader reader,
                     BlockCache cache, Counters counters) {
        this.versions = versions;
        this.writes = writes;
        this.config = config;
        this.counters = counters;
        this.files = new TableFiles(dir, versions::newFileNumber, config.tableOptions(), config.tableBytes(), reader,
                cache, counters);
        int threads = config.compactionThreads();
        AtomicInteger n = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "remixdb-compaction-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        this.workers = Executors.newFixedThreadPool(threads, factory);
        this.coordinator = new Thread(this::loop, "remixdb-compactor");
        coordinator.setDaemon(true);
        ReadState s = versions.acquire();
        try {
            long bytes = 0;
            for (Partition p : s.version().partitions()) {
                bytes += p.tableBytes();
            }
            this.bytesAtOpen = bytes;
        } finally {
            s.release();
        }
        this.idleCheckNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, Long.getLong("remixdb.idleMergeMillis", 1000)));
    }

    /** Starts the coordinator thread. */
    public void start() {
        coordinator.start();
    }

    private void loop() {
        // Without a budget for optional work no idle merge can run: wait for memtables only.
        boolean idleMerges = config.policy().optionalWriteBudget() > 0;
        long nextIdleCheck = System.nanoTime() + idleCheckNanos;
        for (;;) {
            ReadState s = versions.awaitWork(idleMerges ? Math.max(1, nextIdleCheck - System.nanoTime()) : -1);
            if (s == null) {
                return;
            }
            Throwable failure = null;
            List<Forced> served = List.of();
            // Writers are paced by how long the round runs; a memtable frozen during an idle merge
            // waits for it too.
            versions.roundStarts();
            try {
                if (s.oldestFrozen() != null) {
                    // A range request is served by the round of the memtable that was active when it
                    // was made (or a later one): every write before it is in that memtable or an older one.
                    FrozenGroup imm = FrozenGroup.oldestOf(s);
                    served = takeForced(imm.newest());
                    compact(s, imm, served);
                } else {
                    // Nothing waits for compaction: the time for work a policy wants on its own.
                    nextIdleCheck = System.nanoTime() + idleCheckNanos;
                    if (!mergeIdleOrBackOff(s)) {
                        nextIdleCheck = System.nanoTime() + IDLE_FAILURE_BACKOFF_NANOS;
                    }
                }
            } catch (Throwable t) {
                failure = t;
            } finally {
                versions.roundEnds();
            }
            try {
                versions.compactionDone(s);
            } catch (Throwable t) {
                // This thread must not die with it: writers waiting for room would wait forever.
                if (failure == null) {
                    failure = t;
                } else {
                    failure.addSuppressed(t);
                }
            }
            // Range requests complete only now: releasing the round's state above deleted the files
            // the round replaced (unless a reader still holds them), which a caller of compactRange,
            // freeing space before a checkpoint or backup, expects to be gone when it returns.
            for (Forced f : served) {
                if (failure == null) {
                    f.done().complete(null);
                } else {
                    f.done().completeExceptionally(failure);
                }
            }
            if (failure != null) {
                versions.fail(new IOException("compaction failed: " + failure.getMessage(), failure));
                return;
            }
        }
    }

    /**
     * Merges every partition overlapping [{@code from}, {@code to}) (null bounds are open) whole,
     * dropping overwritten versions and tombstones, in the round of the memtable active now (or of a
     * later one): every write made before this call is in that round's version or its memtable, so
     * the range holds one sorted run of them afterwards. Partitions too big for one REMIX are split
     * as a policy's Split would. The caller makes sure such a round comes (a freeze, even of an empty
     * memtable); the future completes once it is installed and the round has let go of what it
     * replaced (whose files are then deleted, unless a reader still holds them).
     */
    public CompletableFuture<Void> compactRange(byte[] from, byte[] to) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long minWal;
        ReadState s = versions.acquire();
        try {
            minWal = s.mem().firstWal();
        } finally {
            s.release();
        }
        synchronized (forced) {
            forced.add(new Forced(minWal, from, to, done));
        }
        return done;
    }

    /** The requests for a round whose newest memtable is {@code imm}, taken out of the list. */
    private List<Forced> takeForced(MemtableRef imm) {
        List<Forced> mine = new ArrayList<>();
        synchronized (forced) {
            forced.removeIf(f -> {
                if (imm.firstWal() >= f.minWal()) {
                    mine.add(f);
                    return true;
                }
                return false;
            });
        }
        return mine;
    }

    /**
     * Compacts the frozen memtables {@code imm} (the oldest of {@code s}) into {@code s.version()}
     * and installs the result, serving the range requests {@code requests}.
     */
    private void compact(ReadState s, FrozenGroup imm, List<Forced> requests) throws Exception {
        long start = System.nanoTime();
        Version version = s.version();
        int count = version.partitionCount();
        long[] newBytes = new long[count];
        long[] newKeys = new long[count];
        long[] newTombstones = new long[count];
        measure(version, imm, newBytes, newKeys, newTombstones);

        // A memtable frozen on request goes to tables whole: that is what the caller asked for.
        long budget = imm.allToTables() ? 0 : (long) (config.abortFraction() * config.memtableBytes());
        CompactionPlan[] plans = plan(version, newBytes, newKeys, newTombstones, budget);
        RangeTombstone[] ranges = imm.rangeTombstones();
        for (int i = 0; i < count; i++) {
            Partition p = version.partition(i);
            byte[] upper = upper(version, i);
            boolean forced = overlapsAny(requests, p.lower(), upper) || overlapsAny(ranges, p.lower(), upper);
            if ((!p.tables().isEmpty() || newKeys[i] > 0) && forced) {
                // Everything, tombstones, old versions and what range deletes hide dropped, cut as a
                // Split cuts: after this no version older than the memtable's range deletes is left.
                plans[i] = new CompactionPlan.Split();
            }
        }
        boolean[] rewritten = new boolean[count];
        List<Future<PartitionJob.Result>> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rewritten[i] = plans[i] != null && !(plans[i] instanceof CompactionPlan.Abort);
            if (rewritten[i]) {
                PartitionJob job = new PartitionJob(files, config.policy().splitTables(), version.partition(i),
                        upper(version, i), imm.memtables(), imm.rangesByMember(), plans[i], workers);
                jobs.add(workers.submit(job::run));
            }
        }
        List<PartitionJob.Result> results = collect(jobs);
        try {
            writes.reinsert(kept(version, imm, plans), imm.newest());
            List<Partition> replaced = new ArrayList<>();
            Version next = next(version, rewritten, results, replaced);
            results = null;
            count(plans);
            versions.install(next, imm.members(), replaced, writes.lastSequence(), (System.nanoTime() - start) / 1e9);
            counters.rounds.increment();
            counters.roundMemtables.add(imm.size());
        } finally {
            if (results != null) {
                discard(results);
            }
        }
    }

    /**
     * The version after {@code version} in which each partition {@code rewritten} is replaced by its
     * job's result ({@code results} in key order, one per rewritten partition), and the others are
     * kept (retained for it). The replaced partitions are added to {@code replaced}.
     */
    private static Version next(Version version, boolean[] rewritten, List<PartitionJob.Result> results,
                                List<Partition> replaced) {
        List<Partition> next = new ArrayList<>();
        int job = 0;
        for (int i = 0; i < version.partitionCount(); i++) {
            Partition p = version.partition(i);
            if (rewritten[i]) {
                next.addAll(results.get(job++).partitions());
                replaced.add(p);
            } else {
                p.retain();
                next.add(p);
            }
        }
        return new Version(next, version.sequence() + 1);
    }

    /** Whether [lower, upper) (upper null: open) meets any requested range. */
    private static boolean overlapsAny(List<Forced> requests, byte[] lower, byte[] upper) {
        for (Forced f : requests) {
            if (RangeTombstone.overlaps(f.from(), f.to(), lower, upper)) {
                return true;
            }
        }
        return false;
    }

    private static boolean overlapsAny(RangeTombstone[] ranges, byte[] lower, byte[] upper) {
        for (RangeTombstone r : ranges) {
            if (r.overlaps(lower, upper)) {
                return true;
            }
        }
        return false;
    }

    /** Receives each newest entry of the round's memtables with the index of its partition. */
    @FunctionalInterface
    private interface EntryVisitor {
        void entry(int partition, Source entry);
    }

    /** Walks the round's memtables once, merged in key order, tracking which partition each key falls in. */
    private static void forEachEntry(Version version, FrozenGroup imm, EntryVisitor visitor) {
        try (Merger m = imm.merger()) {
            int p = 0;
            for (m.seekToFirst(); m.isValid(); m.next()) {
                Source c = m.current();
                while (p + 1 < version.partitionCount() && atOrAfter(c, version.partition(p + 1).lower())) {
                    p++;
                }
                visitor.entry(p, c);
            }
        }
    }

    /**
     * New bytes, keys and tombstones per partition. Bytes are key + value bytes, the unit of
     * {@code Options.tableBytes()} and {@code memtableBytes()}.
     */
    private static void measure(Version version, FrozenGroup imm, long[] bytes, long[] keys, long[] tombstones) {
        forEachEntry(version, imm, (p, c) -> {
            bytes[p] += c.keyLength() + c.valueLength();
            keys[p]++;
            if (c.isTombstone()) {
                tombstones[p]++;
            }
        });
    }

    private static boolean atOrAfter(Source c, byte[] bound) {
        return Keys.compare(c.keySegment(), c.keyOffset(), c.keyLength(), MemorySegment.ofArray(bound), 0, bound.length) >= 0;
    }

    /** The exclusive upper bound of partition {@code i}, or null for the last one. */
    private static byte[] upper(Version version, int i) {
        return i + 1 < version.partitionCount() ? version.partition(i + 1).lower() : null;
    }

    /**
     * Asks the policy about every partition with new data, smallest first, so that the abort budget
     * (a fraction of the memtable, REMIX §4.2) goes to the partitions where a table would be tiniest.
     */
    private CompactionPlan[] plan(Version version, long[] newBytes, long[] newKeys, long[] newTombstones, long budget) {
        int count = version.partitionCount();
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> newBytes[i]));
        CompactionPlan[] plans = new CompactionPlan[count];
        for (int i : order) {
            if (newKeys[i] == 0) {
                continue;
            }
            PartitionStats stats = stats(version.partition(i), newBytes[i], newKeys[i], newTombstones[i],
                    Math.max(0, budget));
            CompactionPlan plan = check(config.policy().plan(stats), stats, budget);
            if (config.policy().optionalWriteBudget() > 0) {
                plan = withinBudget(plan, stats, budget);
            }
            if (plan instanceof CompactionPlan.Abort) {
                budget -= newBytes[i];
            }
            plans[i] = plan;
        }
        return plans;
    }

    /** What the policy is told about {@code p} and the new data destined for it. */
    private PartitionStats stats(Partition p, long newBytes, long newKeys, long newTombstones, long abortBudget) {
        List<TableStats> tables = new ArrayList<>();
        long tombstones = 0;
        byte[] previousLast = null;
        for (TableHandle t : p.tables()) {
            byte[] first = t.table().firstKey();
            // Tables wholly above the one before continue its sorted run (one merge's output).
            boolean extendsRun = previousLast != null && first != null
                    && Arrays.compareUnsigned(previousLast, first) < 0;
            tables.add(new TableStats(t.table().fileBytes(), t.table().keyCount(), extendsRun));
            tombstones += t.table().tombstoneCount();
            byte[] last = t.table().lastKey();
            previousLast = last != null ? last : previousLast;
        }
        long stale = p.remix() == null ? 0 : p.remix().staleCount();
        return new PartitionStats(tables, newBytes, newKeys, newTombstones, stale, tombstones, abortBudget,
                config.tableBytes(), p.scanHidden(), p.scanVisible());
    }

    /**
     * {@code plan}, or the policy's required plan when {@code plan} does more and the optional
     * bytes it adds (the old tables it merges beyond the required plan) would overrun the budget.
     */
    private CompactionPlan withinBudget(CompactionPlan plan, PartitionStats stats, long abortBudget) {
        CompactionPlan required = check(config.policy().requiredPlan(stats), stats, abortBudget);
        if (plan.equals(required)) {
            return plan;
        }
        long extra = Math.max(0, rewritten(plan, stats) - rewritten(required, stats));
        if (!takeOptional(extra)) {
            return required;
        }
        return plan;
    }

    /** Bytes of old tables that {@code plan} reads and writes again. */
    private static long rewritten(CompactionPlan plan, PartitionStats stats) {
        return switch (plan) {
            case CompactionPlan.Major(int k) -> stats.newestBytes(k);
            case CompactionPlan.Split s -> stats.tableBytes();
            case CompactionPlan.Minor m -> 0;
            case CompactionPlan.Abort a -> 0;
        };
    }

    /**
     * Counts {@code bytes} of optional work if the policy's budget has room for them: optional bytes
     * stay within its share of what compactions wrote without them, plus the tables held at open.
     * Only the coordinator thread calls this.
     */
    private boolean takeOptional(long bytes) {
        double share = config.policy().optionalWriteBudget();
        long optional = counters.optionalBytes.sum();
        long base = bytesAtOpen + Math.max(0, counters.tableBytes.sum() - optional);
        if (!(share > 0) || optional + bytes > share * base) {
            return false;
        }
        counters.optionalBytes.add(bytes);
        return true;
    }

    /** How long the compactor waits before looking for idle merges again after one failed. */
    private static final long IDLE_FAILURE_BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(1);

    /**
     * {@link #mergeIdle}, where an exception does not fail the store: an idle merge is optional work
     * the user never asked for, so a full disk or a bad block it meets must not make the store refuse
     * writes. Its output is discarded (by {@link #collect}), the failure is logged, and false tells
     * the caller to wait a while before the next try. Errors (out of memory) still fail the store.
     */
    private boolean mergeIdleOrBackOff(ReadState s) {
        try {
            mergeIdle(s);
            return true;
        } catch (Exception e) {
            System.getLogger(Compactor.class.getName()).log(System.Logger.Level.WARNING,
                    "an idle merge failed; the store goes on without it and tries again in a minute", e);
            return false;
        }
    }

    /**
     * Merges whole the partitions the policy wants merged although no new data reaches them
     * ({@code CompactionPolicy.mergeIdle}), the most indebted first (then those with the most runs),
     * at most one per compaction thread per pass and as far as the optional-write budget allows, and
     * installs the result without a memtable. A partition the policy declined is asked again only
     * after more scans have met it.
     */
    private void mergeIdle(ReadState s) throws Exception {
        long start = System.nanoTime();
        Version version = s.version();
        record Candidate(int index, double debt, int runs, long bytes) {}
        List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < version.partitionCount(); i++) {
            Partition p = version.partition(i);
            long scanned = p.scanHidden() + p.scanVisible();
            if (p.tables().isEmpty() || scanned == p.idleAskedAt()) {
                continue;
            }
            PartitionStats stats = stats(p, 0, 0, 0, 0);
            if (config.policy().mergeIdle(stats)) {
                long debt = Math.min(stats.tableKeys(), stats.staleKeys() + stats.tombstoneKeys());
                candidates.add(new Candidate(i, (double) debt / Math.max(1, stats.tableKeys()), stats.runTables().length,
                        stats.tableBytes()));
            } else {
                p.idleAskedAt(scanned);
            }
        }
        if (candidates.isEmpty()) {
            return;
        }
        candidates.sort(Comparator.comparingDouble(Candidate::debt).thenComparingInt(Candidate::runs).reversed());
        boolean[] merge = new boolean[version.partitionCount()];
        // One partition per compaction thread per pass: a memtable that freezes meanwhile waits for
        // the pass (and so do close() and compactMemtable()), so a pass must not rewrite the whole
        // store. The others are asked again at the next pass.
        int room = config.compactionThreads();
        for (Candidate c : candidates) {
            if (room == 0) {
                break;
            }
            // Over budget: it waits until compactions have written more; a smaller one may fit.
            if (takeOptional(c.bytes())) {
                merge[c.index()] = true;
                room--;
            }
        }
        // Submitted in key order: the results are collected in that order.
        List<Future<PartitionJob.Result>> jobs = new ArrayList<>();
        for (int i = 0; i < merge.length; i++) {
            if (merge[i]) {
                Partition p = version.partition(i);
                PartitionJob job = new PartitionJob(files, config.policy().splitTables(), p, upper(version, i), List.of(),
                        new RangeTombstone[0][], new CompactionPlan.Major(p.tables().size()));
                jobs.add(workers.submit(job::run));
            }
        }
        if (jobs.isEmpty()) {
            return;
        }
        List<PartitionJob.Result> results = collect(jobs);
        try {
            List<Partition> replaced = new ArrayList<>();
            Version next = next(version, merge, results, replaced);
            results = null;
            versions.installMerge(next, replaced, writes.lastSequence());
            // Counted once installed: whoever sees the count sees the merged partitions.
            counters.idle.add(jobs.size());
        } finally {
            if (results != null) {
                discard(results);
            }
        }
        System.getLogger(Compactor.class.getName()).log(System.Logger.Level.DEBUG,
                () -> "merged " + jobs.size() + " idle partitions in " + (System.nanoTime() - start) / 1_000_000 + " ms");
    }

    /** Rejects a plan the engine cannot carry out: a policy bug must not corrupt the store. */
    private static CompactionPlan check(CompactionPlan plan, PartitionStats stats, long budget) {
        int tables = stats.tables().size();
        switch (plan) {
            case null -> throw new IllegalStateException("compaction policy returned null for " + stats);
            case CompactionPlan.Abort a -> {
                if (stats.newBytes() > budget) {
                    throw new IllegalStateException("compaction policy aborted " + stats.newBytes()
                            + " new bytes with a budget of " + budget);
                }
            }
            case CompactionPlan.Minor m -> {
                if (tables + stats.newTables() > Selectors.MAX_RUNS) {
                    throw new IllegalStateException("minor compaction would give more than " + Selectors.MAX_RUNS
                            + " tables: " + stats);
                }
            }
            case CompactionPlan.Major m -> {
                if (m.tables() > tables) {
                    throw new IllegalStateException("major compaction of " + m.tables() + " tables in a partition of "
                            + tables);
                }
            }
            case CompactionPlan.Split s -> { }
        }
        return plan;
    }

    /**
     * The aborted partitions' newest versions, to put back into the active memtable. Each aborted
     * partition's range is read with a seek: the walk over every entry costs a cache miss per entry,
     * and most compactions abort nothing or only a few partitions.
     */
    private static List<WritePipeline.Kept> kept(Version version, FrozenGroup imm, CompactionPlan[] plans) {
        List<WritePipeline.Kept> out = new ArrayList<>();
        try (Merger m = imm.merger()) {
            for (int i = 0; i < plans.length; i++) {
                if (!(plans[i] instanceof CompactionPlan.Abort)) {
                    continue;
                }
                byte[] upper = upper(version, i);
                if (i == 0) {
                    m.seekToFirst();
                } else {
                    byte[] lower = version.partition(i).lower();
                    m.seek(MemorySegment.ofArray(lower), 0, lower.length);
                }
                for (; m.isValid() && (upper == null || !atOrAfter(m.current(), upper)); m.next()) {
                    Source c = m.current();
                    byte[] key = c.keySegment().asSlice(c.keyOffset(), c.keyLength()).toArray(ValueLayout.JAVA_BYTE);
                    out.add(new WritePipeline.Kept(c.seq(), c.isTombstone() ? WalOp.delete(key)
                            : WalOp.put(key, c.valueSegment().asSlice(c.valueOffset(), c.valueLength()).toArray(ValueLayout.JAVA_BYTE))));
                }
            }
        }
        return out;
    }

    private void count(CompactionPlan[] plans) {
        for (CompactionPlan plan : plans) {
            switch (plan) {
                case null -> { }
                case CompactionPlan.Abort a -> counters.abort.increment();
                case CompactionPlan.Minor m -> counters.minor.increment();
                case CompactionPlan.Major m -> counters.major.increment();
                case CompactionPlan.Split s -> counters.split.increment();
            }
        }
    }

    /** Waits for every job; if one failed, discards the others' output and throws. */
    private static List<PartitionJob.Result> collect(List<Future<PartitionJob.Result>> jobs) throws Exception {
        List<PartitionJob.Result> results = new ArrayList<>();
        Exception failure = null;
        for (Future<PartitionJob.Result> f : jobs) {
            try {
                results.add(f.get());
            } catch (ExecutionException e) {
                Exception cause = e.getCause() instanceof Exception x ? x : e;
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        if (failure != null) {
            discard(results);
            throw failure;
        }
        return results;
    }

    /** Releases partitions that will not be installed, deleting the files only they use. */
    private static void discard(List<PartitionJob.Result> results) {
        for (PartitionJob.Result r : results) {
            r.discard();
        }
    }

    /**
     * Waits for the running compaction to end (the version set has already told the coordinator to
     * stop); a frozen memtable not compacted yet stays in its WAL for the next open.
     */
    public void close() {
        synchronized (forced) {
            for (Forced f : forced) {
                f.done().completeExceptionally(new IOException("the store closed before the compaction ran"));
            }
            forced.clear();
        }
        boolean interrupted = false;
        while (coordinator.isAlive()) {
            try {
                coordinator.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        workers.shutdown();
        try {
            if (!workers.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("compaction workers did not stop within a minute");
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "compactor of " + files.dir();
    }
}
