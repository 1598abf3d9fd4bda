package dev.remixdb.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.util.ArrayList;
import java.util.List;

/**
 * Every plan the policy returns can be carried out: checked here from the plan's definition in
 * {@link CompactionPlan}, not from the policy's own estimates, over random partitions (sizes from
 * empty to several tables, from none to all entries stale or deleted, any budget).
 */
class RemixDbPolicyPropertiesTest {

    @Property(tries = 2000)
    void everyPlanIsValid(@ForAll @IntRange(min = 2, max = 63) int maxTables,
                          @ForAll @IntRange(min = 1, max = 62) int splitTables,
                          @ForAll("targets") long target,
                          @ForAll @Size(max = 66) List<@IntRange(min = 0, max = 1500) Integer> tablePermille,
                          @ForAll @IntRange(min = 0, max = 12_000) int newPermille,
                          @ForAll @IntRange(min = 0, max = 120) int stalePercent,
                          @ForAll @IntRange(min = 0, max = 120) int tombstonePercent,
                          @ForAll @IntRange(min = 0, max = 2000) int budgetPermille) {
        RemixDbPolicy policy = RemixDbPolicy.builder()
                .maxTables(maxTables).splitTables(Math.min(splitTables, maxTables - 1)).build();
        PartitionStats p = stats(target, tablePermille, newPermille, stalePercent, tombstonePercent, budgetPermille);
        int n = p.tableCount();
        CompactionPlan plan = policy.plan(p);
        switch (plan) {
            case CompactionPlan.Abort _ -> assertTrue(p.newKeys() == 0 || p.newBytes() <= p.abortBudgetBytes(), "abort over budget");
            case CompactionPlan.Minor _ -> assertTrue(n + p.newTables() <= maxTables, "minor without room");
            case CompactionPlan.Major(int k) -> {
                assertTrue(k >= 1 && k <= n, "k out of range");
                long out = Math.max(1, ceilDiv(p.newestBytes(k) + p.newBytes(), target));
                assertTrue(n - k + out <= maxTables, "major leaves " + (n - k + out) + " tables");
            }
            case CompactionPlan.Split _ -> assertTrue(p.newKeys() > 0, "split without new data");
        }
        boolean small = p.newBytes() < policy.abortBelowFraction() * target && p.newBytes() <= p.abortBudgetBytes();
        if (p.newKeys() > 0 && !small && n + p.newTables() <= maxTables) {
            assertEquals(CompactionPlan.MINOR, plan, "room for a Minor");
        }
    }

    @Property(tries = 300)
    void samePartitionSamePlan(@ForAll("targets") long target,
                               @ForAll @Size(max = 12) List<@IntRange(min = 0, max = 1500) Integer> tablePermille,
                               @ForAll @IntRange(min = 0, max = 12_000) int newPermille,
                               @ForAll @IntRange(min = 0, max = 100) int stalePercent) {
        PartitionStats a = stats(target, tablePermille, newPermille, stalePercent, 0, 0);
        PartitionStats b = stats(target, tablePermille, newPermille, stalePercent, 0, 0);
        assertEquals(RemixDbPolicy.defaults().plan(a), RemixDbPolicy.builder().build().plan(b));
    }

    @Provide
    Arbitrary<Long> targets() {
        return Arbitraries.oneOf(Arbitraries.of(1L, 7L, 4096L, 64L << 20), Arbitraries.longs().between(1, 1L << 32));
    }

    /** Sizes are in thousandths of a table; entries are 100 bytes (at least one per table). */
    private static PartitionStats stats(long target, List<Integer> tablePermille, int newPermille,
                                        int stalePercent, int tombstonePercent, int budgetPermille) {
        List<TableStats> tables = new ArrayList<>();
        long keys = 0;
        for (int permille : tablePermille) {
            long bytes = target * permille / 1000;
            long k = bytes == 0 ? 0 : Math.max(1, bytes / 100);
            tables.add(new TableStats(bytes, k));
            keys += k;
        }
        long newBytes = target * newPermille / 1000;
        long newKeys = newBytes == 0 ? 0 : Math.max(1, newBytes / 100);
        // Percentages above 100 give counts above the totals, which the policy must tolerate.
        return new PartitionStats(tables, newBytes, newKeys, newKeys * tombstonePercent / 100,
                keys * stalePercent / 100, keys * tombstonePercent / 100, target * budgetPermille / 1000, target);
    }

    private static long ceilDiv(long a, long b) {
        return Math.ceilDiv(a, b);
    }
}
