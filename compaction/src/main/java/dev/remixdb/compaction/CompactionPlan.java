package dev.remixdb.compaction;

/**
 * What to do with one partition's new data at a memtable flush (REMIX paper §4.2). The engine
 * carries the plan out; a {@link CompactionPolicy} only chooses it.
 */
public sealed interface CompactionPlan
        permits CompactionPlan.Abort, CompactionPlan.Minor, CompactionPlan.Major, CompactionPlan.Split {

    /** The shared {@link Abort} instance. */
    Abort ABORT = new Abort();
    /** The shared {@link Minor} instance. */
    Minor MINOR = new Minor();
    /** The shared {@link Split} instance. */
    Split SPLIT = new Split();

    /**
     * A Major compaction of the newest {@code tables} tables.
     *
     * @param tables how many of the newest tables to merge, {@code >= 1}
     * @return the plan
     */
    static Major major(int tables) {
        return new Major(tables);
    }

    /**
     * Keep the new data in the memtable and the WAL for the next round: nothing is written and the
     * partition's REMIX is not rebuilt. Valid only if the new data fits the round's abort budget
     * ({@link PartitionStats#abortBudgetBytes()}), or if there is no new data at all.
     */
    record Abort() implements CompactionPlan {}

    /**
     * Write the new data as {@link PartitionStats#newTables()} new tables appended as the newest
     * runs; no existing table is rewritten. Valid if the partition then has at most the policy's
     * maximum number of tables.
     */
    record Minor() implements CompactionPlan {}

    /**
     * Merge the newest {@code tables} tables with the new data (stale versions dropped; tombstones
     * dropped only when every table takes part) into new tables that replace them. Valid when
     * {@code 1 <= tables <= tableCount} and the partition then has at most the policy's maximum
     * number of tables.
     *
     * @param tables how many of the newest tables to merge, {@code >= 1}
     */
    record Major(int tables) implements CompactionPlan {
        /**
         * Checks the table count.
         *
         * @throws IllegalArgumentException if {@code tables < 1}
         */
        public Major {
            if (tables < 1) {
                throw new IllegalArgumentException("tables must be >= 1: " + tables);
            }
        }
    }

    /**
     * Merge all tables with the new data, cut the result into new tables and group them into new
     * partitions of {@link CompactionPolicy#splitTables()} tables each (the last may have fewer).
     * Always valid when there is new data.
     */
    record Split() implements CompactionPlan {}
}
