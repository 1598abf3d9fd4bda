package dev.remixdb;

import dev.remixdb.compaction.CompactionPlan;
import dev.remixdb.compaction.CompactionPolicy;
import dev.remixdb.compaction.PartitionStats;

/**
 * A policy that answers as {@code base} does, except that it declines every idle merge until
 * {@link #open()}: for tests that must read a partition's scan counts before an idle pass (which
 * runs on a timer) could merge it away. The compactor asks about a declined partition again only
 * after more scans, so a test scans again after opening the gate.
 */
final class GatedIdleMerges implements CompactionPolicy {
    private final CompactionPolicy base;
    private volatile boolean open;

    GatedIdleMerges(CompactionPolicy base) {
        this.base = base;
    }

    /** From now on, idle merges are the base policy's. */
    void open() {
        open = true;
    }

    @Override
    public CompactionPlan plan(PartitionStats partition) {
        return base.plan(partition);
    }

    @Override
    public CompactionPlan requiredPlan(PartitionStats partition) {
        return base.requiredPlan(partition);
    }

    @Override
    public int splitTables() {
        return base.splitTables();
    }

    @Override
    public boolean mergeIdle(PartitionStats partition) {
        return open && base.mergeIdle(partition);
    }

    @Override
    public double optionalWriteBudget() {
        return base.optionalWriteBudget();
    }

    @Override
    public String toString() {
        return base + (open ? "" : " (idle merges held back)");
    }
}
