package dev.remixdb.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/** RangeReduce over a base policy: its plans are valid, and it widens them only past its thresholds. */
class RangeReducePolicyTest {
    private static final long MIB = 1 << 20;
    private static final long TARGET = 64 * MIB;

    /** Five 64 MiB tables of 100-byte entries, 8 MiB of new data; scan and debt counts as given. */
    private static PartitionStats partition(long stale, long tombstones, long skipped, long returned) {
        List<TableStats> tables = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tables.add(new TableStats(TARGET, TARGET / 100));
        }
        return new PartitionStats(tables, 8 * MIB, 8 * MIB / 100, 0, stale, tombstones, 0, TARGET, skipped, returned);
    }

    private static final long KEYS = 5 * TARGET / 100;

    @Test
    void scansThatKeepSkippingDebtMergeThePartition() {
        RangeReducePolicy rr = RangeReducePolicy.over(RemixDbPolicy.defaults());
        // The base policy writes a Minor (room for more tables).
        PartitionStats quiet = partition(KEYS / 5, 0, 0, 0);
        assertEquals(CompactionPlan.MINOR, RemixDbPolicy.defaults().plan(quiet));
        assertEquals(CompactionPlan.MINOR, rr.plan(quiet), "no scans: the base plan");
        // Scans passed over 20% of what they visited, and a fifth of the partition is debt: merge all.
        assertEquals(CompactionPlan.major(5), rr.plan(partition(KEYS / 5, 0, 2000, 8000)));
        // Tombstones count as debt too.
        assertEquals(CompactionPlan.major(5), rr.plan(partition(0, KEYS / 5, 2000, 8000)));
    }

    @Test
    void eachThresholdHoldsTheBasePlan() {
        RangeReducePolicy rr = RangeReducePolicy.over(RemixDbPolicy.defaults());
        // Too few entries scanned.
        assertEquals(CompactionPlan.MINOR, rr.plan(partition(KEYS / 5, 0, 200, 700)));
        // Scans rarely meet debt (5% < rho = 10%).
        assertEquals(CompactionPlan.MINOR, rr.plan(partition(KEYS / 5, 0, 500, 9500)));
        // Debt below rho of the partition: the merge would not pay for itself.
        assertEquals(CompactionPlan.MINOR, rr.plan(partition(KEYS / 20, 0, 5000, 5000)));
        // Debt below half a table in bytes.
        RangeReducePolicy strict = RangeReducePolicy.builder(RemixDbPolicy.defaults()).minDebtFraction(2).build();
        assertEquals(CompactionPlan.MINOR, strict.plan(partition(KEYS / 5, 0, 2000, 8000)), "64 MiB of debt < 2 tables");
    }

    @Test
    void abortAndSplitStand() {
        RangeReducePolicy rr = RangeReducePolicy.over(p -> CompactionPlan.SPLIT);
        assertEquals(CompactionPlan.SPLIT, rr.plan(partition(KEYS / 2, 0, 5000, 5000)));
        RangeReducePolicy waiting = RangeReducePolicy.over(p -> CompactionPlan.ABORT);
        assertEquals(CompactionPlan.ABORT, waiting.plan(partition(KEYS / 2, 0, 5000, 5000)));
    }

    @Property(tries = 2000)
    void everyPlanIsValidAndNeverLeavesMoreTablesThanTheBase(
            @ForAll @Size(max = 20) List<@IntRange(min = 0, max = 1500) Integer> tablePermille,
            @ForAll @IntRange(min = 0, max = 3000) int newPermille,
            @ForAll @IntRange(min = 0, max = 120) int debtPercent,
            @ForAll @LongRange(min = 0, max = 100_000) long skipped,
            @ForAll @LongRange(min = 0, max = 100_000) long returned,
            @ForAll boolean garnering) {
        CompactionPolicy base = garnering ? GarneringPolicy.defaults() : RemixDbPolicy.defaults();
        RangeReducePolicy rr = RangeReducePolicy.over(base);
        List<TableStats> tables = new ArrayList<>();
        long keys = 0;
        for (int permille : tablePermille) {
            long bytes = TARGET * permille / 1000;
            tables.add(new TableStats(bytes, bytes / 100));
            keys += bytes / 100;
        }
        long newBytes = TARGET * newPermille / 1000;
        PartitionStats p = new PartitionStats(tables, newBytes, newBytes / 100, 0, keys * debtPercent / 100, 0, 0,
                TARGET, skipped, returned);
        CompactionPlan basePlan = base.plan(p);
        CompactionPlan plan = rr.plan(p);
        int n = p.tableCount();
        if (!plan.equals(basePlan)) {
            assertEquals(CompactionPlan.major(n), plan, "RangeReduce only widens to a merge of every table");
            long out = Math.max(1, Math.ceilDiv(p.tableBytes() + p.newBytes(), TARGET));
            long baseAfter = switch (basePlan) {
                case CompactionPlan.Major(int k) -> n - k + Math.max(1, Math.ceilDiv(p.newestBytes(k) + p.newBytes(), TARGET));
                default -> n + p.newTables();
            };
            assertTrue(out <= baseAfter, "the merge leaves " + out + " tables, the base plan " + baseAfter);
            assertTrue(skipped >= 0.1 * (skipped + returned) && skipped + returned >= 1000, "scans qualify");
        }
    }

    /** {@link #partition} without new data: what the engine asks about for an idle merge. */
    private static PartitionStats idle(long stale, long tombstones, long skipped, long returned) {
        PartitionStats p = partition(stale, tombstones, skipped, returned);
        return new PartitionStats(p.tables(), 0, 0, 0, stale, tombstones, 0, TARGET, skipped, returned);
    }

    @Test
    void idleMergesFollowTheSameTestAndNeverAddTables() {
        RangeReducePolicy rr = RangeReducePolicy.over(RemixDbPolicy.defaults());
        assertTrue(rr.mergeIdle(idle(KEYS / 5, 0, 2000, 8000)));
        assertTrue(rr.mergeIdle(idle(0, KEYS / 5, 2000, 8000)), "tombstones are debt too");
        assertFalse(rr.mergeIdle(idle(KEYS / 5, 0, 200, 700)), "too few entries scanned");
        assertFalse(rr.mergeIdle(idle(KEYS / 5, 0, 500, 9500)), "scans rarely meet debt");
        assertFalse(rr.mergeIdle(idle(KEYS / 20, 0, 5000, 5000)), "the merge would not pay");
        assertFalse(rr.mergeIdle(partition(KEYS / 5, 0, 2000, 8000)), "new data is a flush's business");
        // Five full tables with 20% debt would still be five tables if nothing were dropped: allowed.
        // A partition of tables that are mostly empty merges into fewer, also allowed; one whose
        // merge would need more tables than it has cannot happen, so the check is on worst tables.
        List<TableStats> half = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            half.add(new TableStats(TARGET / 2, TARGET / 200));
        }
        assertTrue(rr.mergeIdle(new PartitionStats(half, 0, 0, 0, TARGET / 200, 0, 0, TARGET, 5000, 5000)));
        // The required plan is the base policy's; the default budget is 10%.
        PartitionStats p = partition(KEYS / 5, 0, 2000, 8000);
        assertEquals(RemixDbPolicy.defaults().plan(p), rr.requiredPlan(p));
        assertEquals(0.1, rr.optionalWriteBudget());
        assertEquals(0.0, RemixDbPolicy.defaults().optionalWriteBudget(), "no optional work without RangeReduce");
        assertFalse(RemixDbPolicy.defaults().mergeIdle(idle(KEYS / 5, 0, 2000, 8000)));
        assertEquals(0.5, RangeReducePolicy.builder(RemixDbPolicy.defaults()).budget(0.5).build().optionalWriteBudget());
        assertThrows(IllegalArgumentException.class, () -> RangeReducePolicy.builder(RemixDbPolicy.defaults()).budget(-1));
        assertThrows(IllegalArgumentException.class,
                () -> RangeReducePolicy.builder(RemixDbPolicy.defaults()).budget(Double.NaN));
    }

    @Test
    void namedPoliciesAndBadSettings() {
        assertTrue(CompactionPolicies.named("rangereduce") instanceof RangeReducePolicy);
        assertTrue(((RangeReducePolicy) CompactionPolicies.named(" Garnering+RangeReduce ")).base() instanceof GarneringPolicy);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("tiering"))
                .getMessage().contains("garnering"));
        assertThrows(IllegalArgumentException.class, () -> RangeReducePolicy.over(null));
        RangeReducePolicy tuned = (RangeReducePolicy) CompactionPolicies.named("rangereduce: budget=0.3, rho=0.2");
        assertEquals(0.3, tuned.budget());
        assertEquals(0.2, tuned.rho());
        assertEquals(Double.POSITIVE_INFINITY,
                ((RangeReducePolicy) CompactionPolicies.named("garnering+rangereduce:budget=unlimited")).budget());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("rangereduce:depth=2"))
                .getMessage().contains("depth"));
        assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("rangereduce:budget=-1"));
        assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("rangereduce:budget=lots"));
        assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("garnering:budget=1"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> RangeReducePolicy.builder(RemixDbPolicy.defaults()).rho(0)).getMessage().contains("rho"));
    }
}
