package dev.remixdb.compaction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Replays a write workload through a {@link CompactionPolicy} over a simulated partitioned store,
 * without I/O, to compare policies by write amplification, runs per partition, space amplification
 * and compaction debt. Deterministic for a given workload (seed included).
 *
 * <p>The model: keys are 63-bit values spread over the signed 64-bit space; a partition is a key
 * range holding tables, each a sorted array of distinct keys, each entry a put or a tombstone;
 * every entry has the same size. Writes fill a memtable (a later write of a key already in it
 * replaces it, but the memtable fills by writes). When it is full, each partition that received
 * data is asked for a plan, smallest new data first, since small updates are the costliest per
 * byte to write and so the first to use the abort budget (REMIX §4.2). Aborted data goes back into
 * the next memtable. The run ends with a flush whose abort budget is 0, so every written byte
 * reaches a table. Merges keep the newest version of each key and drop tombstones only when every
 * table of the partition takes part. Table outputs are cut every
 * {@code ceil(tableTargetBytes / entryBytes)} entries; the WAL is not counted.
 */
public final class PolicySimulator {
    private PolicySimulator() {}

    /**
     * A workload and the store's sizes.
     *
     * @param operations       writes to replay, {@code >= 0}
     * @param distinctKeys     keys are drawn from this many distinct keys (so that writes update);
     *                         0 for fresh random keys (a pure insert load, no deletes)
     * @param entryBytes       size of one entry (key + value + overhead), {@code >= 1}
     * @param memtableBytes    memtable size, {@code >= entryBytes}
     * @param tableTargetBytes where output tables are cut, {@code >= 1}
     * @param abortFraction    share of the memtable that aborted data may keep, {@code 0..0.5}
     *                         (the paper uses 0.15)
     * @param remixBytesPerKey REMIX size per entry, to count the REMIX rebuilt after a compaction
     * @param seed             seed of the key sequence
     * @param zipfTheta        0 for keys drawn uniformly from the distinct keys, else the skew of a
     *                         scrambled Zipfian choice ({@code 0 < theta < 1}; YCSB uses 0.99)
     * @param deleteFraction   share of the writes that are deletes of a drawn key, {@code 0..1};
     *                         above 0 only with {@code distinctKeys > 0}
     * @param scansPerWrite    range scans of {@link #SCAN_LENGTH} entries between two writes, on
     *                         average, at uniform start keys ({@code >= 0}); they cost nothing in
     *                         the simulator but give the policy scan counts
     */
    public record Workload(long operations, long distinctKeys, int entryBytes, long memtableBytes,
                           long tableTargetBytes, double abortFraction, double remixBytesPerKey, long seed,
                           double zipfTheta, double deleteFraction, double scansPerWrite) {
        /**
         * Checks the values.
         *
         * @throws IllegalArgumentException naming the first value out of range
         */
        public Workload {
            check(operations >= 0, "operations", operations);
            check(distinctKeys >= 0, "distinctKeys", distinctKeys);
            check(entryBytes >= 1, "entryBytes", entryBytes);
            check(memtableBytes >= entryBytes, "memtableBytes", memtableBytes);
            check(tableTargetBytes >= 1, "tableTargetBytes", tableTargetBytes);
            // Above one half, aborted data could crowd new writes out of the memtable.
            check(abortFraction >= 0 && abortFraction <= 0.5, "abortFraction", abortFraction);
            check(remixBytesPerKey >= 0 && remixBytesPerKey < Double.POSITIVE_INFINITY,
                    "remixBytesPerKey", remixBytesPerKey);
            check(zipfTheta >= 0 && zipfTheta < 1, "zipfTheta", zipfTheta);
            check(deleteFraction >= 0 && deleteFraction <= 1, "deleteFraction", deleteFraction);
            check(deleteFraction == 0 || distinctKeys > 0, "deleteFraction (deletes need distinctKeys > 0)",
                    deleteFraction);
            check(scansPerWrite >= 0 && scansPerWrite < 1e6, "scansPerWrite", scansPerWrite);
        }

        /**
         * A workload without deletes, keys chosen uniformly.
         *
         * @param operations       writes to replay
         * @param distinctKeys     how many distinct keys, 0 for fresh random keys
         * @param entryBytes       size of one entry
         * @param memtableBytes    memtable size
         * @param tableTargetBytes where output tables are cut
         * @param abortFraction    share of the memtable that aborted data may keep
         * @param remixBytesPerKey REMIX size per entry
         * @param seed             seed of the key sequence
         */
        public Workload(long operations, long distinctKeys, int entryBytes, long memtableBytes,
                        long tableTargetBytes, double abortFraction, double remixBytesPerKey, long seed) {
            this(operations, distinctKeys, entryBytes, memtableBytes, tableTargetBytes, abortFraction,
                    remixBytesPerKey, seed, 0, 0, 0);
        }

        /**
         * An insert-only load of fresh random keys, with the paper's abort share (0.15) and
         * 5 REMIX bytes per key.
         *
         * @param operations       writes to replay
         * @param entryBytes       size of one entry
         * @param memtableBytes    memtable size
         * @param tableTargetBytes where output tables are cut
         * @param seed             seed of the key sequence
         * @return the workload
         */
        public static Workload uniform(long operations, int entryBytes, long memtableBytes, long tableTargetBytes, long seed) {
            return new Workload(operations, 0, entryBytes, memtableBytes, tableTargetBytes, 0.15, 5, seed);
        }

        /**
         * The same workload with writes drawn from a bounded set of keys, so that some update.
         *
         * @param distinctKeys how many distinct keys, 0 for fresh random keys
         * @return the new workload
         */
        public Workload withDistinctKeys(long distinctKeys) {
            return new Workload(operations, distinctKeys, entryBytes, memtableBytes, tableTargetBytes,
                    abortFraction, remixBytesPerKey, seed, zipfTheta, deleteFraction, scansPerWrite);
        }

        /**
         * The same workload with keys chosen by a scrambled Zipfian distribution.
         *
         * @param theta the skew, {@code 0 < theta < 1}, or 0 for uniform
         * @return the new workload
         */
        public Workload withZipf(double theta) {
            return new Workload(operations, distinctKeys, entryBytes, memtableBytes, tableTargetBytes,
                    abortFraction, remixBytesPerKey, seed, theta, deleteFraction, scansPerWrite);
        }

        /**
         * The same workload with a share of deletes.
         *
         * @param fraction share of the writes that delete, {@code 0..1}
         * @return the new workload
         */
        public Workload withDeletes(double fraction) {
            return new Workload(operations, distinctKeys, entryBytes, memtableBytes, tableTargetBytes,
                    abortFraction, remixBytesPerKey, seed, zipfTheta, fraction, scansPerWrite);
        }

        /**
         * The same workload with another number of operations.
         *
         * @param operations writes to replay
         * @return the new workload
         */
        public Workload withOperations(long operations) {
            return new Workload(operations, distinctKeys, entryBytes, memtableBytes, tableTargetBytes,
                    abortFraction, remixBytesPerKey, seed, zipfTheta, deleteFraction, scansPerWrite);
        }

        /**
         * The same workload with range scans between the writes.
         *
         * @param scansPerWrite scans per write on average, {@code >= 0}
         * @return the new workload
         */
        public Workload withScans(double scansPerWrite) {
            return new Workload(operations, distinctKeys, entryBytes, memtableBytes, tableTargetBytes,
                    abortFraction, remixBytesPerKey, seed, zipfTheta, deleteFraction, scansPerWrite);
        }

        private static void check(boolean ok, String name, Object value) {
            if (!ok) {
                throw new IllegalArgumentException(name + " out of range: " + value);
            }
        }
    }

    /**
     * The store's state after some operations.
     *
     * @param operations         writes replayed so far
     * @param writeAmplification table bytes written per user byte so far
     * @param avgRuns            tables (REMIX runs) per partition now
     * @param avgSortedRuns      sorted runs per partition now: tables that overlap, which a seek or a
     *                           scan must merge (tables written by one merge do not overlap)
     * @param maxRuns            the most tables in one partition now
     * @param partitions         partitions now
     * @param spaceAmplification table bytes per byte of live data (newest puts)
     * @param debtEntries        stale versions and live tombstones in the tables
     * @param liveEntries        keys whose newest version in the tables is a put
     */
    public record Sample(long operations, double writeAmplification, double avgRuns, double avgSortedRuns,
                         int maxRuns, int partitions,
                         double spaceAmplification, long debtEntries, long liveEntries) {}

    /**
     * What a run did.
     *
     * @param userBytes         bytes written by the user (operations x entry size)
     * @param tableBytesWritten bytes of tables written by flushes and compactions
     * @param remixBytesWritten estimated bytes of REMIXes rebuilt
     * @param flushes           memtable flushes, the final one included
     * @param partitions        partitions at the end
     * @param avgRuns           runs per partition, averaged over partitions, then over flushes
     * @param avgSortedRuns     sorted runs (overlapping tables) per partition, averaged the same way
     * @param maxRuns           the most runs any partition had after any flush
     * @param aborts            Abort plans carried out
     * @param minors            Minor plans carried out
     * @param majors            Major plans carried out
     * @param splits            Split plans carried out
 * @param idleMerges        partitions merged with no new data at a flush, on the policy's request
 *                          ({@link CompactionPolicy#mergeIdle})
 * @param optionalBytes     bytes of tables that optional work rewrote, within the policy's
 *                          {@link CompactionPolicy#optionalWriteBudget()} as the engine keeps it
     * @param samples           the state at about {@link #SAMPLES} points of the run, the end included
     */
    public record Report(long userBytes, long tableBytesWritten, long remixBytesWritten, long flushes,
                         int partitions, double avgRuns, double avgSortedRuns, int maxRuns, long aborts,
                         long minors, long majors, long splits, long idleMerges, long optionalBytes,
                         List<Sample> samples) {
        /** Copies the samples. */
        public Report {
            samples = List.copyOf(samples);
        }

        /** {@return table bytes written per user byte} */
        public double writeAmplification() {
            return (double) tableBytesWritten / userBytes;
        }

        /** {@return table and REMIX bytes written per user byte} */
        public double writeAmplificationWithRemix() {
            return (double) (tableBytesWritten + remixBytesWritten) / userBytes;
        }

        /** {@return the state at the end of the run} */
        public Sample last() {
            return samples.getLast();
        }

        /** {@return the compaction debt (stale versions and live tombstones) averaged over the samples} */
        public double avgDebtEntries() {
            return samples.stream().mapToLong(Sample::debtEntries).average().orElse(0);
        }
    }

    /** Entries each simulated range scan visits (returned or passed over). */
    public static final int SCAN_LENGTH = 50;

    /** How many samples a run takes, evenly spaced in operations. */
    public static final int SAMPLES = 40;

    /**
     * Replays {@code workload} through {@code policy}.
     *
     * @param policy   the policy asked at every flush
     * @param workload the writes and the store's sizes
     * @return what the run did
     * @throws IllegalStateException if the policy returns a plan that is not valid for its input
     *                               (Abort over the budget, Major of more tables than exist)
     */
    public static Report run(CompactionPolicy policy, Workload workload) {
        return new Run(policy, workload).replay();
    }

    /*
     * Entries are longs: the key in the upper 63 bits, bit 0 set for a tombstone. Sorting the longs
     * sorts by key; two entries are versions of one key when they are equal but for bit 0.
     */

    private static long key(long entry) {
        return entry & ~1L;
    }

    private static boolean isTombstone(long entry) {
        return (entry & 1L) != 0;
    }

    /** A simulated partition: the keys from {@code start} up to the next partition's start. */
    private static final class Partition {
        final long start;
        final List<long[]> tables = new ArrayList<>(); // oldest first
        long entries;
        long distinct;
        long tombstones;
        /** Scan counts since the tables last changed (what the engine's cursors would count). */
        double scanSkipped;
        double scanReturned;

        Partition(long start) {
            this.start = start;
        }

        void recount() {
            scanSkipped = 0;
            scanReturned = 0;
            entries = 0;
            tombstones = 0;
            for (long[] t : tables) {
                entries += t.length;
                for (long e : t) {
                    tombstones += e & 1L;
                }
            }
        }
    }

    /** The mutable state of one replay. */
    private static final class Run {
        private final CompactionPolicy policy;
        private final Workload w;
        private final int tableEntries;
        private final int capacity;
        private final Memtable mem;
        private final Zipf zipf;
        private int fill;
        /** User writes since the last flush (fill also counts aborted data put back). */
        private long writes;
        private List<Partition> partitions = new ArrayList<>(List.of(new Partition(Long.MIN_VALUE)));
        private long tableBytes, remixBytes, flushes, aborts, minors, majors, splits, idleMerges, optionalBytes;
        private double runsSum;
        private double sortedRunsSum;
        private int maxRuns;
        private final List<Sample> samples = new ArrayList<>();

        Run(CompactionPolicy policy, Workload w) {
            this.policy = policy;
            this.w = w;
            this.tableEntries = (int) Math.min(Integer.MAX_VALUE, (w.tableTargetBytes() + w.entryBytes() - 1) / w.entryBytes());
            this.capacity = (int) Math.min(Integer.MAX_VALUE / 4, w.memtableBytes() / w.entryBytes());
            this.mem = new Memtable(capacity);
            this.zipf = w.zipfTheta() > 0 ? new Zipf(w.distinctKeys(), w.zipfTheta()) : null;
        }

        Report replay() {
            SplittableRandom random = new SplittableRandom(w.seed());
            int sampleNo = 1;
            for (long i = 0; i < w.operations(); i++) {
                long key;
                if (w.distinctKeys() == 0) {
                    key = random.nextLong();
                } else {
                    long id = zipf != null ? zipf.next(random) : random.nextLong(w.distinctKeys());
                    key = mix(id);
                }
                boolean delete = w.deleteFraction() > 0 && random.nextDouble() < w.deleteFraction();
                mem.put(key(key) | (delete ? 1L : 0L));
                fill++;
                writes++;
                if (fill == capacity) {
                    flush(false);
                    if (i + 1 >= sampleAt(sampleNo)) {
                        sample(i + 1);
                        while (sampleNo < SAMPLES && i + 1 >= sampleAt(sampleNo)) {
                            sampleNo++;
                        }
                    }
                }
            }
            if (fill > 0 || mem.size() > 0) {
                flush(true);
            }
            sample(w.operations());
            return new Report(w.operations() * w.entryBytes(), tableBytes, remixBytes, flushes, partitions.size(),
                    flushes == 0 ? 0 : runsSum / flushes, flushes == 0 ? 0 : sortedRunsSum / flushes, maxRuns,
                    aborts, minors, majors, splits, idleMerges, optionalBytes, samples);
        }

        /** The operation count at which sample {@code no} (1..SAMPLES) falls due. */
        private long sampleAt(int no) {
            return (long) ((double) no * w.operations() / SAMPLES);
        }

        /** A bijection of 64-bit values that spreads small key ids over the whole key space. */
        private static long mix(long x) {
            x *= 0x9E3779B97F4A7C15L;
            x ^= x >>> 31;
            x *= 0xBF58476D1CE4E5B9L;
            return x ^ (x >>> 29);
        }

        private void sample(long operations) {
            long bytes = 0;
            long debt = 0;
            long live = 0;
            int most = 0;
            for (Partition p : partitions) {
                long[] merged = merge(p.tables, new long[0], true);
                live += merged.length;
                debt += p.entries - merged.length;
                bytes += p.entries * w.entryBytes();
                most = Math.max(most, p.tables.size());
            }
            double runs = 0;
            double sortedRuns = 0;
            for (Partition p : partitions) {
                runs += p.tables.size();
                sortedRuns += sortedRuns(p);
            }
            double written = operations == 0 ? 0 : (double) tableBytes / (operations * w.entryBytes());
            samples.add(new Sample(operations, written, runs / partitions.size(), sortedRuns / partitions.size(),
                    most, partitions.size(),
                    live == 0 ? 0 : (double) bytes / (live * w.entryBytes()), debt, live));
        }

        /**
         * Scans since the last flush, spread over the partitions by their share of the key space.
         * Each visits {@link #SCAN_LENGTH} entries of the partition's tables, a share of them
         * passed over as its debt share (stale versions and tombstones among its entries).
         */
        private void countScans(long writes) {
            double scans = writes * w.scansPerWrite();
            if (scans == 0) {
                return;
            }
            for (int i = 0; i < partitions.size(); i++) {
                Partition p = partitions.get(i);
                if (p.entries == 0) {
                    continue;
                }
                double from = p.start == Long.MIN_VALUE ? -0x1p63 : p.start;
                double to = i + 1 < partitions.size() ? partitions.get(i + 1).start : 0x1p63;
                double visits = scans * (to - from) / 0x1p64 * SCAN_LENGTH;
                double debt = Math.min(1, (double) (p.entries - p.distinct + p.tombstones) / p.entries);
                p.scanSkipped += visits * debt;
                p.scanReturned += visits * (1 - debt);
            }
        }

        private void flush(boolean last) {
            flushes++;
            countScans(writes);
            writes = 0;
            long[] keys = mem.drain();
            fill = 0;
            int count = partitions.size();
            int[] from = new int[count + 1];
            for (int i = 1; i < count; i++) {
                from[i] = lowerBound(keys, partitions.get(i).start);
            }
            from[count] = keys.length;
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                if (from[i + 1] > from[i]) {
                    order.add(i);
                }
            }
            order.sort(Comparator.comparingInt((Integer i) -> from[i + 1] - from[i]).thenComparingInt(i -> i));

            long budget = last ? 0 : (long) (w.abortFraction() * w.memtableBytes());
            List<List<Partition>> replaced = new ArrayList<>(Collections.nCopies(count, null));
            for (int i : order) {
                long[] fresh = Arrays.copyOfRange(keys, from[i], from[i + 1]);
                Partition p = partitions.get(i);
                PartitionStats stats = stats(p, fresh, budget);
                CompactionPlan plan = withinBudget(policy.plan(stats), stats);
                switch (plan) {
                    case CompactionPlan.Abort _ -> {
                        long bytes = (long) fresh.length * w.entryBytes();
                        if (bytes > budget) {
                            throw new IllegalStateException("Abort of " + bytes + " bytes over the budget " + budget);
                        }
                        budget -= bytes;
                        for (long e : fresh) {
                            mem.put(e);
                        }
                        fill += fresh.length;
                        aborts++;
                    }
                    case CompactionPlan.Minor _ -> {
                        p.distinct += absent(p.tables, fresh);
                        p.tables.addAll(cut(fresh));
                        written(p, fresh.length);
                        minors++;
                    }
                    case CompactionPlan.Major(int k) -> {
                        if (k > p.tables.size()) {
                            throw new IllegalStateException("Major(" + k + ") of " + p.tables.size() + " tables");
                        }
                        p.distinct += absent(p.tables, fresh);
                        boolean all = k == p.tables.size();
                        List<long[]> merged = p.tables.subList(p.tables.size() - k, p.tables.size());
                        long[] out = merge(merged, fresh, all);
                        merged.clear();
                        p.tables.addAll(cut(out));
                        if (all) {
                            p.distinct = out.length;
                        }
                        written(p, out.length);
                        majors++;
                    }
                    case CompactionPlan.Split _ -> {
                        replaced.set(i, split(p, fresh));
                        splits++;
                    }
                }
            }
            mergeIdle(from, replaced);
            List<Partition> next = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                next.addAll(replaced.get(i) == null ? List.of(partitions.get(i)) : replaced.get(i));
            }
            partitions = next;
            long runs = 0;
            long sorted = 0;
            for (Partition p : partitions) {
                runs += p.tables.size();
                sorted += sortedRuns(p);
                maxRuns = Math.max(maxRuns, p.tables.size());
            }
            runsSum += (double) runs / partitions.size();
            sortedRunsSum += (double) sorted / partitions.size();
        }

        /**
         * The engine's budget for optional work: {@code plan}, or the policy's required plan when
         * the old tables {@code plan} merges beyond it would overrun the budget.
         */
        private CompactionPlan withinBudget(CompactionPlan plan, PartitionStats stats) {
            if (!(policy.optionalWriteBudget() > 0)) {
                return plan;
            }
            CompactionPlan required = policy.requiredPlan(stats);
            if (plan.equals(required)) {
                return plan;
            }
            long extra = Math.max(0, rewritten(plan, stats) - rewritten(required, stats));
            return takeOptional(extra) ? plan : required;
        }

        private static long rewritten(CompactionPlan plan, PartitionStats stats) {
            return switch (plan) {
                case CompactionPlan.Major(int k) -> stats.newestBytes(k);
                case CompactionPlan.Split _ -> stats.tableBytes();
                case CompactionPlan.Minor _, CompactionPlan.Abort _ -> 0;
            };
        }

        private boolean takeOptional(long bytes) {
            double share = policy.optionalWriteBudget();
            if (!(share > 0) || optionalBytes + bytes > share * (tableBytes - optionalBytes)) {
                return false;
            }
            optionalBytes += bytes;
            return true;
        }

        /**
         * The engine's idle merges, done at each flush: every partition without new data that the
         * policy wants merged, the most indebted first, while the budget allows.
         */
        private void mergeIdle(int[] from, List<List<Partition>> replaced) {
            if (!(policy.optionalWriteBudget() > 0)) {
                return;
            }
            List<Integer> candidates = new ArrayList<>();
            for (int i = 0; i < partitions.size(); i++) {
                Partition p = partitions.get(i);
                if (from[i + 1] == from[i] && replaced.get(i) == null && !p.tables.isEmpty()
                        && policy.mergeIdle(stats(p, new long[0], 0))) {
                    candidates.add(i);
                }
            }
            candidates.sort(Comparator.comparingDouble((Integer i) -> {
                Partition p = partitions.get(i);
                return -(double) (p.entries - p.distinct + p.tombstones) / p.entries;
            }));
            for (int i : candidates) {
                Partition p = partitions.get(i);
                if (!takeOptional(p.entries * w.entryBytes())) {
                    return;
                }
                long[] out = merge(p.tables, new long[0], true);
                p.tables.clear();
                p.tables.addAll(cut(out));
                p.distinct = out.length;
                written(p, out.length);
                idleMerges++;
            }
        }

        /** Whether table {@code i} of {@code p} lies wholly above table {@code i - 1}: one sorted run. */
        private static boolean extendsRun(Partition p, int i) {
            if (i == 0) {
                return false;
            }
            long[] previous = p.tables.get(i - 1);
            long[] t = p.tables.get(i);
            return t.length > 0 && previous.length > 0 && key(t[0]) > key(previous[previous.length - 1]);
        }

        private static int sortedRuns(Partition p) {
            int runs = 0;
            for (int i = 0; i < p.tables.size(); i++) {
                runs += extendsRun(p, i) ? 0 : 1;
            }
            return runs;
        }

        private PartitionStats stats(Partition p, long[] fresh, long budget) {
            List<TableStats> tables = new ArrayList<>(p.tables.size());
            for (int i = 0; i < p.tables.size(); i++) {
                long[] t = p.tables.get(i);
                tables.add(new TableStats((long) t.length * w.entryBytes(), t.length, extendsRun(p, i)));
            }
            long newTombstones = 0;
            for (long e : fresh) {
                newTombstones += e & 1L;
            }
            return new PartitionStats(tables, (long) fresh.length * w.entryBytes(), fresh.length, newTombstones,
                    p.entries - p.distinct, p.tombstones, budget, w.tableTargetBytes(),
                    Math.round(p.scanSkipped), Math.round(p.scanReturned));
        }

        /** Merges everything, cuts tables and deals them out, splitTables per new partition. */
        private List<Partition> split(Partition p, long[] fresh) {
            long[] out = merge(p.tables, fresh, true);
            List<long[]> tables = cut(out);
            int per = policy.splitTables();
            List<Partition> result = new ArrayList<>();
            for (int t = 0; t < tables.size(); t += per) {
                Partition child = new Partition(t == 0 ? p.start : key(tables.get(t)[0]));
                child.tables.addAll(tables.subList(t, Math.min(t + per, tables.size())));
                child.recount();
                child.distinct = child.entries; // a fresh merge holds one version per key
                result.add(child);
                remixBytes += (long) (w.remixBytesPerKey() * child.entries);
            }
            if (result.isEmpty()) {
                result.add(new Partition(p.start)); // everything was deleted
            }
            tableBytes += (long) out.length * w.entryBytes();
            return result;
        }

        private void written(Partition p, long entries) {
            tableBytes += entries * w.entryBytes();
            p.recount();
            remixBytes += (long) (w.remixBytesPerKey() * p.entries);
        }

        private List<long[]> cut(long[] keys) {
            List<long[]> tables = new ArrayList<>();
            for (int i = 0; i < keys.length; i += tableEntries) {
                tables.add(Arrays.copyOfRange(keys, i, Math.min(keys.length, i + tableEntries)));
            }
            return tables;
        }

        /** Counts the keys of {@code fresh} found in none of {@code tables}. */
        private static long absent(List<long[]> tables, long[] fresh) {
            long n = 0;
            outer:
            for (long e : fresh) {
                for (long[] t : tables) {
                    if (contains(t, key(e))) {
                        continue outer;
                    }
                }
                n++;
            }
            return n;
        }

        private static boolean contains(long[] table, long key) {
            int i = lowerBound(table, key);
            return i < table.length && key(table[i]) == key;
        }

        /**
         * The newest version of every key in {@code tables} (oldest first) and then {@code fresh};
         * without the tombstones if {@code dropTombstones}.
         */
        private static long[] merge(List<long[]> tables, long[] fresh, boolean dropTombstones) {
            long[] acc = new long[0];
            for (long[] t : tables) {
                acc = mergeTwo(acc, t);
            }
            acc = mergeTwo(acc, fresh);
            if (!dropTombstones) {
                return acc;
            }
            // acc may be one of the tables itself (mergeTwo returns an input when the other is empty).
            long[] out = new long[acc.length];
            int n = 0;
            for (long e : acc) {
                if (!isTombstone(e)) {
                    out[n++] = e;
                }
            }
            return n == out.length ? out : Arrays.copyOf(out, n);
        }

        /** Merges two sorted tables of distinct keys; on a tie the newer one's entry wins. */
        private static long[] mergeTwo(long[] older, long[] newer) {
            if (older.length == 0) {
                return newer;
            }
            if (newer.length == 0) {
                return older;
            }
            long[] out = new long[older.length + newer.length];
            int i = 0, j = 0, n = 0;
            while (i < older.length && j < newer.length) {
                long a = key(older[i]);
                long b = key(newer[j]);
                if (a < b) {
                    out[n++] = older[i++];
                } else if (a > b) {
                    out[n++] = newer[j++];
                } else {
                    out[n++] = newer[j++];
                    i++;
                }
            }
            while (i < older.length) {
                out[n++] = older[i++];
            }
            while (j < newer.length) {
                out[n++] = newer[j++];
            }
            return n == out.length ? out : Arrays.copyOf(out, n);
        }

        /** The index of the first entry whose key is not below {@code key}. */
        private static int lowerBound(long[] entries, long key) {
            int lo = 0;
            int hi = entries.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (key(entries[mid]) < key) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    /**
     * The memtable: the newest entry of each key written since the last flush, in an open-addressing
     * hash table (the order of writes matters only within a key).
     */
    private static final class Memtable {
        private final long[] slots;
        private final boolean[] used;
        private int size;

        Memtable(int capacity) {
            int n = Integer.highestOneBit(Math.max(4, capacity) * 2 - 1) << 1;
            slots = new long[n];
            used = new boolean[n];
        }

        int size() {
            return size;
        }

        void put(long entry) {
            int mask = slots.length - 1;
            int i = (int) (Run.mix(key(entry)) & mask);
            while (used[i] && key(slots[i]) != key(entry)) {
                i = (i + 1) & mask;
            }
            if (!used[i]) {
                used[i] = true;
                size++;
            }
            slots[i] = entry;
        }

        /** The entries sorted by key; the memtable is empty afterwards. */
        long[] drain() {
            long[] out = new long[size];
            int n = 0;
            for (int i = 0; i < slots.length; i++) {
                if (used[i]) {
                    out[n++] = slots[i];
                    used[i] = false;
                }
            }
            size = 0;
            Arrays.sort(out);
            return out;
        }
    }

    /**
     * A Zipfian choice of ranks {@code 0..n-1} (Gray et al., as YCSB draws it); rank {@code r} is then
     * scrambled over the key space by the caller. For large {@code n} the zeta sum is approximated by
     * its integral with Euler-Maclaurin terms, exact to a few parts per million.
     */
    private static final class Zipf {
        private final long n;
        private final double theta;
        private final double zetaN;
        private final double alpha;
        private final double eta;

        Zipf(long n, double theta) {
            this.n = n;
            this.theta = theta;
            this.zetaN = zeta(n, theta);
            this.alpha = 1 / (1 - theta);
            double zeta2 = zeta(2, theta);
            this.eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetaN);
        }

        long next(SplittableRandom random) {
            double u = random.nextDouble();
            double uz = u * zetaN;
            if (uz < 1) {
                return 0;
            }
            if (uz < 1 + Math.pow(0.5, theta)) {
                return Math.min(1, n - 1);
            }
            long r = (long) (n * Math.pow(eta * u - eta + 1, alpha));
            return Math.min(Math.max(r, 0), n - 1);
        }

        static double zeta(long n, double theta) {
            long exact = Math.min(n, 100_000);
            double sum = 0;
            for (long i = 1; i <= exact; i++) {
                sum += Math.pow(i, -theta);
            }
            if (n > exact) {
                // sum_{i=a+1}^{n} i^-t ~ integral from a to n plus the end corrections
                double a = exact;
                sum += (Math.pow(n, 1 - theta) - Math.pow(a, 1 - theta)) / (1 - theta)
                        + (Math.pow(n, -theta) - Math.pow(a, -theta)) / 2;
            }
            return sum;
        }
    }
}
