package dev.remixdb.compaction;

/**
 * Decides, from numbers about one partition and the new data destined for it, what the engine does
 * with that data when a memtable is flushed (REMIX paper §4.2). Implementations are pure functions
 * of their input and thread-safe: the engine may ask about many partitions at once.
 */
public interface CompactionPolicy {

    /**
     * The plan for one partition. The returned plan is valid for {@code partition}: see each
     * {@link CompactionPlan} kind for what valid means.
     *
     * @param partition what the engine knows about the partition, never null
     * @return the plan, never null
     */
    CompactionPlan plan(PartitionStats partition);

    /**
     * How many tables each new partition gets when the engine carries out a
     * {@link CompactionPlan.Split} (the paper's M). The engine reads it from the policy because the
     * plan itself carries no arguments. Default: 2, the paper's value.
     *
     * @return tables per new partition, {@code >= 1}
     */
    default int splitTables() {
        return 2;
    }
}
