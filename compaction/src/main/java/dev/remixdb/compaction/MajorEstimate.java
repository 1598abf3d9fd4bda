package dev.remixdb.compaction;

/**
 * What a Major compaction of the newest {@code k} tables would produce, estimated from a
 * partition's numbers. Two sizes are kept apart on purpose: {@link #worstTables} assumes nothing is
 * dropped and decides whether the plan is valid, so a plan never relies on a guess; the expected
 * sizes count the stale versions and tombstones that the merge should drop and feed the cost model,
 * so that a partition full of garbage looks as cheap to merge as it is.
 *
 * @param k              how many of the newest tables are merged
 * @param inputBytes     bytes read: the newest {@code k} tables plus the new data
 * @param worstTables    tables written if nothing is dropped
 * @param expectedBytes  bytes written once stale versions (and, for a full merge, tombstones) go
 * @param expectedTables tables written, from {@code expectedBytes}
 * @param runsAfter      runs the partition has afterwards: untouched tables plus expected output
 * @param keysAfter      entries in the partition afterwards, the size of the REMIX to rebuild
 */
record MajorEstimate(int k, long inputBytes, long worstTables, long expectedBytes, long expectedTables,
                     long runsAfter, long keysAfter) {

    /** Estimates Major({@code k}) for {@code p}, {@code 1 <= k <= p.tableCount()}. */
    static MajorEstimate of(PartitionStats p, int k) {
        int n = p.tableCount();
        long target = p.tableTargetBytes();
        long inputBytes = p.newestBytes(k) + p.newBytes();
        long inputKeys = p.newestKeys(k) + p.newKeys();
        long worstTables = Math.max(1, PartitionStats.tablesFor(inputBytes, target));

        long dropped = droppedKeys(p, k, inputKeys);
        // Entries are assumed to be of average size: the policy only sees totals.
        double bytesPerKey = inputKeys == 0 ? 0 : (double) inputBytes / inputKeys;
        long expectedBytes = Math.max(0, inputBytes - Math.round(dropped * bytesPerKey));
        long expectedTables = Math.min(worstTables, PartitionStats.tablesFor(expectedBytes, target));
        long keysAfter = p.tableKeys() + p.newKeys() - dropped;
        return new MajorEstimate(k, inputBytes, worstTables, expectedBytes, expectedTables,
                n - k + expectedTables, keysAfter);
    }

    /**
     * Entries the merge should drop. Every stale version among the merged tables goes, since the
     * version that shadows it is newer and so is merged too; the stale versions are assumed to be
     * spread over the tables in proportion to their entries. Tombstones go only when every table is
     * merged, because otherwise they may still hide a version in an older table.
     */
    private static long droppedKeys(PartitionStats p, int k, long inputKeys) {
        long tableKeys = p.tableKeys();
        long stale = Math.min(p.staleKeys(), tableKeys);
        long dropped;
        if (k == p.tableCount()) {
            long tombstones = Math.min(p.tombstoneKeys(), tableKeys);
            dropped = stale + tombstones + Math.min(p.newTombstones(), p.newKeys());
        } else {
            dropped = tableKeys == 0 ? 0 : Math.round((double) stale * p.newestKeys(k) / tableKeys);
        }
        // A stale tombstone is counted twice above; never drop more than the input holds.
        return Math.min(dropped, inputKeys);
    }

    /** Whether the result has at most {@code maxTables} tables even if nothing is dropped. */
    boolean validFor(PartitionStats p, int maxTables) {
        return p.tableCount() - k + worstTables <= maxTables;
    }
}
