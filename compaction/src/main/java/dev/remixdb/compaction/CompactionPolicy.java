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

    /**
     * The plan without the optional work {@link #plan} may add: what the store must do with the new
     * data, before a policy spends bytes on its own goals (RangeReduce merging a partition to remove
     * debt). The engine carries out {@link #plan} while the {@linkplain #optionalWriteBudget budget}
     * allows what the two plans differ by, and this plan otherwise. Default: {@link #plan}, so a
     * policy without optional work never needs the budget.
     *
     * @param partition what the engine knows about the partition, never null
     * @return a valid plan, never null
     */
    default CompactionPlan requiredPlan(PartitionStats partition) {
        return plan(partition);
    }

    /**
     * Whether a partition that receives no new data should be merged whole now, dropping its stale
     * versions and tombstones: optional work the engine starts by itself when no memtable waits for
     * compaction (RangeReduce's answer to debt that only reads meet). {@code partition} has no new
     * data. Default: false.
     *
     * @param partition what the engine knows about the partition, never null
     * @return whether to merge it
     */
    default boolean mergeIdle(PartitionStats partition) {
        return false;
    }

    /**
     * How many bytes optional work may write, as a share of the bytes the store's compactions write
     * without it (counting the tables the store held when it opened). Optional work is the
     * difference between {@link #plan} and {@link #requiredPlan}, and every {@link #mergeIdle}
     * merge; the engine measures it in the bytes of the tables that the extra merging rewrites, and
     * refuses it once the budget is spent. Default: 0, no optional work.
     *
     * @return the share, {@code >= 0}
     */
    default double optionalWriteBudget() {
        return 0;
    }
}
