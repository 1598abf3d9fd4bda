package dev.remixdb.compaction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Replays a random-key write workload through a {@link CompactionPolicy} over a simulated
 * partitioned store, without I/O, to compare policies by write amplification and runs per
 * partition. Deterministic for a given workload (seed included).
 *
 * <p>The model: keys are uniform over the signed 64-bit space; a partition is a key range holding
 * tables, each a sorted array of distinct keys; every entry has the same size. Writes fill a
 * memtable (an update of a key already in it replaces it at flush time, but the memtable fills by
 * writes). When it is full, each partition that received data is asked for a plan, smallest new
 * data first, since small updates are the costliest per byte to write and so the first to use the
 * abort budget (REMIX §4.2). Aborted data goes back into the next memtable. The run ends with a
 * flush whose abort budget is 0, so every written byte reaches a table. Table outputs are cut
 * every {@code ceil(tableTargetBytes / entryBytes)} entries; there are no deletes, and the WAL is
 * not counted.
 */
public final class PolicySimulator {
    private PolicySimulator() {}

    /**
     * A workload and the store's sizes.
     *
     * @param operations       writes to replay, {@code >= 0}
     * @param distinctKeys     keys are drawn from this many distinct keys (so that writes update);
     *                         0 for fresh random 64-bit keys (a pure insert load)
     * @param entryBytes       size of one entry (key + value + overhead), {@code >= 1}
     * @param memtableBytes    memtable size, {@code >= entryBytes}
     * @param tableTargetBytes where output tables are cut, {@code >= 1}
     * @param abortFraction    share of the memtable that aborted data may keep, {@code 0..0.5}
     *                         (the paper uses 0.15)
     * @param remixBytesPerKey REMIX size per entry, to count the REMIX rebuilt after a compaction
     * @param seed             seed of the key sequence
     */
    public record Workload(long operations, long distinctKeys, int entryBytes, long memtableBytes,
                           long tableTargetBytes, double abortFraction, double remixBytesPerKey, long seed) {
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
                    abortFraction, remixBytesPerKey, seed);
        }

        private static void check(boolean ok, String name, Object value) {
            if (!ok) {
                throw new IllegalArgumentException(name + " out of range: " + value);
            }
        }
    }

    /**
     * What a run did.
     *
     * @param userBytes         bytes written by the user (operations x entry size)
     * @param tableBytesWritten bytes of tables written by flushes and compactions
     * @param remixBytesWritten estimated bytes of REMIXes rebuilt
     * @param flushes           memtable flushes, the final one included
     * @param partitions        partitions at the end
     * @param avgRuns           runs per partition, averaged over partitions, then over flushes
     * @param maxRuns           the most runs any partition had after any flush
     * @param aborts            Abort plans carried out
     * @param minors            Minor plans carried out
     * @param majors            Major plans carried out
     * @param splits            Split plans carried out
     */
    public record Report(long userBytes, long tableBytesWritten, long remixBytesWritten, long flushes,
                         int partitions, double avgRuns, int maxRuns, long aborts, long minors, long majors,
                         long splits) {
        /** {@return table bytes written per user byte} */
        public double writeAmplification() {
            return (double) tableBytesWritten / userBytes;
        }

        /** {@return table and REMIX bytes written per user byte} */
        public double writeAmplificationWithRemix() {
            return (double) (tableBytesWritten + remixBytesWritten) / userBytes;
        }
    }

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

    /** A simulated partition: the keys from {@code start} up to the next partition's start. */
    private static final class Partition {
        final long start;
        final List<long[]> tables = new ArrayList<>(); // oldest first
        long entries;
        long distinct;

        Partition(long start) {
            this.start = start;
        }
    }

    /** The mutable state of one replay. */
    private static final class Run {
        private final CompactionPolicy policy;
        private final Workload w;
        private final int tableEntries;
        private final long[] mem;
        private int fill;
        private List<Partition> partitions = new ArrayList<>(List.of(new Partition(Long.MIN_VALUE)));
        private long tableBytes, remixBytes, flushes, aborts, minors, majors, splits;
        private double runsSum;
        private int maxRuns;

        Run(CompactionPolicy policy, Workload w) {
            this.policy = policy;
            this.w = w;
            this.tableEntries = (int) Math.min(Integer.MAX_VALUE, (w.tableTargetBytes() + w.entryBytes() - 1) / w.entryBytes());
            this.mem = new long[(int) Math.min(Integer.MAX_VALUE - 8, w.memtableBytes() / w.entryBytes())];
        }

        Report replay() {
            SplittableRandom random = new SplittableRandom(w.seed());
            for (long i = 0; i < w.operations(); i++) {
                mem[fill++] = w.distinctKeys() == 0 ? random.nextLong() : mix(random.nextLong(w.distinctKeys()));
                if (fill == mem.length) {
                    flush(false);
                }
            }
            if (fill > 0) {
                flush(true);
            }
            return new Report(w.operations() * w.entryBytes(), tableBytes, remixBytes, flushes, partitions.size(),
                    flushes == 0 ? 0 : runsSum / flushes, maxRuns, aborts, minors, majors, splits);
        }

        /** A bijection of 64-bit values that spreads small key ids over the whole key space. */
        private static long mix(long x) {
            x *= 0x9E3779B97F4A7C15L;
            x ^= x >>> 31;
            x *= 0xBF58476D1CE4E5B9L;
            return x ^ (x >>> 29);
        }

        private void flush(boolean last) {
            flushes++;
            long[] keys = distinctSorted(Arrays.copyOf(mem, fill));
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
            fill = 0;
            List<List<Partition>> replaced = new ArrayList<>(Collections.nCopies(count, null));
            for (int i : order) {
                long[] fresh = Arrays.copyOfRange(keys, from[i], from[i + 1]);
                Partition p = partitions.get(i);
                CompactionPlan plan = policy.plan(stats(p, fresh.length, budget));
                switch (plan) {
                    case CompactionPlan.Abort _ -> {
                        long bytes = (long) fresh.length * w.entryBytes();
                        if (bytes > budget) {
                            throw new IllegalStateException("Abort of " + bytes + " bytes over the budget " + budget);
                        }
                        budget -= bytes;
                        System.arraycopy(fresh, 0, mem, fill, fresh.length);
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
                        List<long[]> merged = p.tables.subList(p.tables.size() - k, p.tables.size());
                        long[] out = merge(merged, fresh);
                        merged.clear();
                        p.tables.addAll(cut(out));
                        written(p, out.length);
                        majors++;
                    }
                    case CompactionPlan.Split _ -> {
                        replaced.set(i, split(p, fresh));
                        splits++;
                    }
                }
            }
            List<Partition> next = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                next.addAll(replaced.get(i) == null ? List.of(partitions.get(i)) : replaced.get(i));
            }
            partitions = next;
            long runs = 0;
            for (Partition p : partitions) {
                runs += p.tables.size();
                maxRuns = Math.max(maxRuns, p.tables.size());
            }
            runsSum += (double) runs / partitions.size();
        }

        private PartitionStats stats(Partition p, int newKeys, long budget) {
            List<TableStats> tables = new ArrayList<>(p.tables.size());
            for (long[] t : p.tables) {
                tables.add(new TableStats((long) t.length * w.entryBytes(), t.length));
            }
            return new PartitionStats(tables, (long) newKeys * w.entryBytes(), newKeys, 0,
                    p.entries - p.distinct, 0, budget, w.tableTargetBytes());
        }

        /** Merges everything, cuts tables and deals them out, splitTables per new partition. */
        private List<Partition> split(Partition p, long[] fresh) {
            long[] out = merge(p.tables, fresh);
            List<long[]> tables = cut(out);
            int per = policy.splitTables();
            List<Partition> result = new ArrayList<>();
            for (int t = 0; t < tables.size(); t += per) {
                Partition child = new Partition(t == 0 ? p.start : tables.get(t)[0]);
                for (long[] table : tables.subList(t, Math.min(t + per, tables.size()))) {
                    child.tables.add(table);
                    child.entries += table.length;
                }
                child.distinct = child.entries; // a fresh merge holds one version per key
                result.add(child);
                remixBytes += (long) (w.remixBytesPerKey() * child.entries);
            }
            tableBytes += (long) out.length * w.entryBytes();
            return result;
        }

        private void written(Partition p, long entries) {
            tableBytes += entries * w.entryBytes();
            p.entries = 0;
            for (long[] t : p.tables) {
                p.entries += t.length;
            }
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
            for (long key : fresh) {
                for (long[] t : tables) {
                    if (Arrays.binarySearch(t, key) >= 0) {
                        continue outer;
                    }
                }
                n++;
            }
            return n;
        }

        private static long[] merge(List<long[]> tables, long[] fresh) {
            long total = fresh.length;
            for (long[] t : tables) {
                total += t.length;
            }
            long[] all = new long[Math.toIntExact(total)];
            int at = 0;
            for (long[] t : tables) {
                System.arraycopy(t, 0, all, at, t.length);
                at += t.length;
            }
            System.arraycopy(fresh, 0, all, at, fresh.length);
            return distinctSorted(all);
        }

        private static long[] distinctSorted(long[] keys) {
            Arrays.sort(keys);
            int n = 0;
            for (int i = 0; i < keys.length; i++) {
                if (n == 0 || keys[i] != keys[n - 1]) {
                    keys[n++] = keys[i];
                }
            }
            return n == keys.length ? keys : Arrays.copyOf(keys, n);
        }

        private static int lowerBound(long[] keys, long key) {
            int i = Arrays.binarySearch(keys, key);
            return i >= 0 ? i : -i - 1;
        }
    }
}
