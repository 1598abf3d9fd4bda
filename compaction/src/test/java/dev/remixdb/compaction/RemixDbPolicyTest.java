package dev.remixdb.compaction;

import static dev.remixdb.compaction.Stats.ENTRY;
import static dev.remixdb.compaction.Stats.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Constructed partitions, 64 MiB tables, default policy (T = 10, M = 2) unless said otherwise. */
class RemixDbPolicyTest {
    private final RemixDbPolicy policy = RemixDbPolicy.defaults();

    private CompactionPlan plan(Stats s) {
        return policy.plan(s.build());
    }

    @Test
    void noNewDataIsAnAbortEvenWithoutBudget() {
        assertEquals(CompactionPlan.ABORT, plan(new Stats().repeat(10, 64)));
    }

    @Test
    void smallNewDataIsAbortedOnlyWithinTheBudget() {
        // 8 MiB is the default abort threshold (1/8 of a table); 4 MiB is below it.
        assertEquals(CompactionPlan.ABORT, plan(new Stats().repeat(3, 64).newMib(4).budget(4 * MIB)));
        assertEquals(CompactionPlan.MINOR, plan(new Stats().repeat(3, 64).newMib(4).budget(4 * MIB - 1)));
        assertEquals(CompactionPlan.MINOR, plan(new Stats().repeat(3, 64).newMib(4)));
        // Not small: written even though the budget would allow keeping it.
        assertEquals(CompactionPlan.MINOR, plan(new Stats().repeat(3, 64).newMib(8).budget(1 << 30)));
    }

    @Test
    void abortCanBeSwitchedOff() {
        RemixDbPolicy never = RemixDbPolicy.builder().abortBelowFraction(0).build();
        assertEquals(CompactionPlan.MINOR, never.plan(new Stats().repeat(3, 64).newBytes(1).budget(1 << 30).build()));
    }

    @Test
    void emptyPartitionGetsMinorOrAbortOrSplitBySize() {
        assertEquals(CompactionPlan.MINOR, plan(new Stats().newMib(100)));
        assertEquals(CompactionPlan.ABORT, plan(new Stats().newMib(1).budget(MIB)));
        // More than ten tables' worth of new data cannot fit one partition.
        assertEquals(CompactionPlan.SPLIT, plan(new Stats().newMib(10 * 64 + 1)));
    }

    @Test
    void minorWhileTheNewTablesFit() {
        assertEquals(CompactionPlan.MINOR, plan(new Stats().repeat(9, 64).newMib(64)));
        assertEquals(CompactionPlan.MINOR, plan(new Stats().repeat(8, 64).newMib(65))); // 2 new tables
        assertInstanceOf(CompactionPlan.Major.class, plan(new Stats().repeat(6, 64).repeat(3, 8).newMib(65)));
    }

    @Test
    void majorMergesTheSmallNewestTables() {
        // Paper Figure 9: merging the three small tables with the new data gives one table; going
        // further rewrites large tables for no fewer runs.
        assertEquals(CompactionPlan.major(3), plan(new Stats().repeat(7, 64).tables(8, 8, 8).newMib(8)));
        assertEquals(CompactionPlan.major(4), plan(new Stats().repeat(6, 64).tables(4, 4, 4, 4).newMib(4)));
    }

    @Test
    void majorStopsBeforeALargeTable() {
        // Merging into the 40 MiB table would rewrite it and still leave two tables.
        assertEquals(CompactionPlan.major(2), plan(new Stats().repeat(7, 64).tables(40, 16, 16).newMib(16)));
    }

    @Test
    void majorOfSmallTablesOnlyPrefersFewerRuns() {
        // Ten 1 MiB tables: every k has the same amortised write cost; the run cost picks all.
        assertEquals(CompactionPlan.major(10), plan(new Stats().repeat(10, 1).newMib(9)));
        RemixDbPolicy readsFree = RemixDbPolicy.builder().runCost(0).build();
        CompactionPlan plan = readsFree.plan(new Stats().repeat(10, 1).newMib(9).build());
        assertInstanceOf(CompactionPlan.Major.class, plan);
    }

    @Test
    void tombstonesMakeAFullMergeWorthIt() {
        Stats s = new Stats().repeat(6, 64).tables(8, 8, 8, 8).newMib(8);
        assertEquals(CompactionPlan.major(4), plan(s));
        long keys = s.build().tableKeys();
        // Nine in ten entries are tombstones: only a full merge drops them, and it leaves one run.
        assertEquals(CompactionPlan.major(10), plan(s.tombstones(keys * 9 / 10)));
    }

    @Test
    void splitWhenFullOfLargeTables() {
        assertEquals(CompactionPlan.SPLIT, plan(new Stats().repeat(10, 64).newMib(8)));
        // A Major of the small table would leave ten runs, so the next flush would need another.
        assertEquals(CompactionPlan.SPLIT, plan(new Stats().repeat(9, 64).tables(8).newMib(9)));
        assertEquals(CompactionPlan.SPLIT, plan(new Stats().repeat(9, 64).tables(30).newMib(40)));
    }

    @Test
    void largeNewDataSplitsWhenNoMajorLeavesRoomForIt() {
        // Three new tables: a Major of the six small tables writes three and leaves 4 + 3 runs,
        // room for the next three.
        assertEquals(CompactionPlan.major(6), plan(new Stats().repeat(4, 64).repeat(6, 2).newMib(150)));
        assertEquals(CompactionPlan.SPLIT, plan(new Stats().repeat(5, 64).repeat(5, 2).newMib(150)));
    }

    @Test
    void scoreFollowsTheCostModel() {
        // Figure 9 again: k = 3 writes 32 MiB and leaves 8 runs (two Minors fit); k = 4 writes
        // 96 MiB for the same 8 runs.
        PartitionStats p = new Stats().repeat(7, 64).tables(8, 8, 8).newMib(8).build();
        RemixDbPolicy noRemix = RemixDbPolicy.builder().remixBytesPerKey(0).runCost(0).build();
        double k3 = noRemix.score(p, MajorEstimate.of(p, 3), 1);
        double k4 = noRemix.score(p, MajorEstimate.of(p, 4), 1);
        assertEquals((32 + 2 * 8) / (3 * 8.0), k3, 1e-6);
        assertEquals((96 + 2 * 8) / (3 * 8.0), k4, 1e-6);
        assertTrue(k3 < k4);
    }

    @Test
    void estimateDropsStaleVersionsInProportion() {
        // 4 x 64 MiB, a quarter of all entries stale; merging the newest two drops their share.
        long keys = 4 * 64 * MIB / ENTRY;
        PartitionStats p = new Stats().repeat(4, 64).stale(keys / 4).newBytes(ENTRY).build();
        MajorEstimate two = MajorEstimate.of(p, 2);
        assertEquals(2 * 64 * MIB + ENTRY, two.inputBytes());
        assertEquals(3, two.worstTables()); // a 100-byte spill-over still makes a table
        assertEquals(96 * MIB + ENTRY, two.expectedBytes(), 2 * ENTRY);
        assertEquals(2, two.expectedTables());
        assertEquals(4, two.runsAfter());
    }

    @Test
    void policyIsDeterministicAndHasTheDocumentedDefaults() {
        assertEquals(10, policy.maxTables());
        assertEquals(2, policy.splitTables());
        assertEquals(0.125, policy.abortBelowFraction());
        assertEquals(0.1, policy.runCost());
        assertEquals(5.0, policy.remixBytesPerKey());
        PartitionStats p = new Stats().repeat(7, 64).tables(8, 8, 8).newMib(8).build();
        assertEquals(policy.plan(p), RemixDbPolicy.builder().build().plan(p));
    }
}
