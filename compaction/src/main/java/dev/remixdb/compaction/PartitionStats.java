package dev.remixdb.compaction;

import java.util.List;

/**
 * What the engine knows about one partition when a memtable is flushed into it: its tables and the
 * new data destined for it. The policy decides from these numbers alone.
 *
 * <p>Counts that the engine can only estimate ({@code staleKeys}, {@code tombstoneKeys},
 * {@code newTombstones}) are not checked against the totals: a policy treats a count above its
 * total as the total.
 *
 * @param tables           the partition's tables, oldest first (the last is the newest run); copied
 * @param newBytes         bytes of new data (key + value + per-entry overhead) for this partition
 * @param newKeys          new entries (puts and tombstones)
 * @param newTombstones    tombstones among the new entries
 * @param staleKeys        entries in the tables known to be shadowed by a newer version (REMIX
 *                         stale bits); 0 if unknown
 * @param tombstoneKeys    tombstones in the tables
 * @param abortBudgetBytes how many more bytes may stay in memory this round: Abort is allowed only
 *                         if {@code newBytes <= abortBudgetBytes}
 * @param tableTargetBytes the size at which the engine cuts output tables, {@code > 0}
 * @param scanSkipped      stale versions and tombstones of the tables that user cursors passed over
 *                         since the partition's tables last changed (REMIX selector bits); 0 if unknown
 * @param scanReturned     entries of the tables that user cursors returned over the same time
 */
public record PartitionStats(
        List<TableStats> tables,
        long newBytes,
        long newKeys,
        long newTombstones,
        long staleKeys,
        long tombstoneKeys,
        long abortBudgetBytes,
        long tableTargetBytes,
        long scanSkipped,
        long scanReturned) {

    /**
     * Checks the counts and copies the table list.
     *
     * @throws IllegalArgumentException if a count is negative or {@code tableTargetBytes <= 0}
     * @throws NullPointerException     if {@code tables} or one of its elements is null
     */
    public PartitionStats {
        tables = List.copyOf(tables);
        requireNonNegative("newBytes", newBytes);
        requireNonNegative("newKeys", newKeys);
        requireNonNegative("newTombstones", newTombstones);
        requireNonNegative("staleKeys", staleKeys);
        requireNonNegative("tombstoneKeys", tombstoneKeys);
        requireNonNegative("abortBudgetBytes", abortBudgetBytes);
        requireNonNegative("scanSkipped", scanSkipped);
        requireNonNegative("scanReturned", scanReturned);
        if (tableTargetBytes <= 0) {
            throw new IllegalArgumentException("tableTargetBytes must be > 0: " + tableTargetBytes);
        }
    }

    /**
     * Without scan counts (both 0).
     *
     * @param tables           the partition's tables, oldest first
     * @param newBytes         bytes of new data
     * @param newKeys          new entries
     * @param newTombstones    tombstones among the new entries
     * @param staleKeys        stale entries in the tables
     * @param tombstoneKeys    tombstones in the tables
     * @param abortBudgetBytes how many more bytes may stay in memory this round
     * @param tableTargetBytes the size at which the engine cuts output tables
     */
    public PartitionStats(List<TableStats> tables, long newBytes, long newKeys, long newTombstones, long staleKeys,
                          long tombstoneKeys, long abortBudgetBytes, long tableTargetBytes) {
        this(tables, newBytes, newKeys, newTombstones, staleKeys, tombstoneKeys, abortBudgetBytes, tableTargetBytes,
                0, 0);
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0: " + value);
        }
    }

    /** {@return the number of tables (runs) in the partition} */
    public int tableCount() {
        return tables.size();
    }

    /** {@return the total size of the partition's tables in bytes} */
    public long tableBytes() {
        return newestBytes(tables.size());
    }

    /** {@return the total number of entries in the partition's tables} */
    public long tableKeys() {
        return newestKeys(tables.size());
    }

    /**
     * Sums the sizes of the newest tables, those a Major of {@code k} tables reads.
     *
     * @param k how many of the newest tables, {@code 0..tableCount()}
     * @return the total size of the newest {@code k} tables
     * @throws IllegalArgumentException if {@code k} is out of range
     */
    public long newestBytes(int k) {
        checkNewest(k);
        long sum = 0;
        for (int i = tables.size() - k; i < tables.size(); i++) {
            sum += tables.get(i).bytes();
        }
        return sum;
    }

    /**
     * Sums the entries of the newest tables, those a Major of {@code k} tables reads.
     *
     * @param k how many of the newest tables, {@code 0..tableCount()}
     * @return the total number of entries in the newest {@code k} tables
     * @throws IllegalArgumentException if {@code k} is out of range
     */
    public long newestKeys(int k) {
        checkNewest(k);
        long sum = 0;
        for (int i = tables.size() - k; i < tables.size(); i++) {
            sum += tables.get(i).keys();
        }
        return sum;
    }

    private void checkNewest(int k) {
        if (k < 0 || k > tables.size()) {
            throw new IllegalArgumentException("k must be in 0.." + tables.size() + ": " + k);
        }
    }

    /**
     * The partition's sorted runs, newest first, each as the number of tables it spans: a table
     * whose {@link TableStats#extendsRun()} is set joins the run of the table before it. The first
     * table of the partition always starts a run.
     *
     * @return tables per run, newest run first; empty for a partition without tables
     */
    public int[] runTables() {
        int[] runs = new int[tables.size()];
        int count = 0;
        int i = tables.size() - 1;
        while (i >= 0) {
            int start = i;
            while (start > 0 && tables.get(start).extendsRun()) {
                start--;
            }
            runs[count++] = i - start + 1;
            i = start - 1;
        }
        return java.util.Arrays.copyOf(runs, count);
    }

    /**
     * The number of tables a Minor compaction writes: the new data cut at the table target, at
     * least one.
     *
     * @return {@code max(1, ceil(newBytes / tableTargetBytes))}
     */
    public long newTables() {
        return Math.max(1, tablesFor(newBytes, tableTargetBytes));
    }

    /**
     * The number of tables that {@code bytes} of data are cut into.
     *
     * @param bytes            data size, {@code >= 0}
     * @param tableTargetBytes table target size, {@code > 0}
     * @return {@code ceil(bytes / tableTargetBytes)}, 0 for no data
     */
    public static long tablesFor(long bytes, long tableTargetBytes) {
        return bytes / tableTargetBytes + (bytes % tableTargetBytes == 0 ? 0 : 1);
    }
}
