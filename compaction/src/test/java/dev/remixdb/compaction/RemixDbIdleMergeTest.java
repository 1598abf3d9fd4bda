package dev.remixdb.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RemixDB's idle merges ({@link RemixDbPolicy#withIdleMerges()}): a partition of many overlapping
 * runs that scans keep walking is merged whole when no memtable waits, and nothing else is; the
 * plain defaults never do it.
 */
class RemixDbIdleMergeTest {
    private static final long MIB = 1 << 20;
    private static final long TARGET = 64 * MIB;
    /** Entries per full table (100-byte entries). */
    private static final long PER_TABLE = TARGET / 100;

    /**
     * {@code runs} overlapping tables, the first of them followed by {@code disjoint - 1} tables that
     * continue its run (one merge's output), no new data, and {@code scanned} entries returned by scans.
     */
    private static PartitionStats idle(int runs, int disjoint, long scanned) {
        List<TableStats> tables = new ArrayList<>();
        for (int i = 0; i < disjoint; i++) {
            tables.add(new TableStats(TARGET, PER_TABLE, i > 0));
        }
        for (int i = 1; i < runs; i++) {
            tables.add(new TableStats(TARGET / 4, PER_TABLE / 4, false));
        }
        return new PartitionStats(tables, 0, 0, 0, 0, 0, 0, TARGET, 0, scanned);
    }

    private static long keys(PartitionStats p) {
        return p.tableKeys();
    }

    @Test
    void manyRunsThatScansWalkAreMerged() {
        RemixDbPolicy policy = RemixDbPolicy.withIdleMerges();
        PartitionStats five = idle(5, 2, 0);
        assertEquals(5, five.runTables().length, "two tables of one run and four overlapping ones");
        long enough = (long) Math.ceil(0.05 * keys(five));
        assertTrue(policy.mergeIdle(idle(5, 2, enough)));
        assertTrue(policy.mergeIdle(idle(9, 1, enough * 2)));
        assertFalse(policy.mergeIdle(idle(5, 2, enough - 1)), "scans walked less than 5% of it");
        assertFalse(policy.mergeIdle(idle(4, 2, keys(idle(4, 2, 0)))), "four runs: below the default of five");
        assertFalse(policy.mergeIdle(idle(1, 6, keys(idle(1, 6, 0)))), "one run of six tables: nothing to gain");
        assertFalse(RemixDbPolicy.defaults().mergeIdle(idle(9, 1, enough * 2)), "off in the plain defaults");
        assertEquals(0.0, RemixDbPolicy.defaults().optionalWriteBudget(), "no budget: the engine never looks");
    }

    @Test
    void theMergedPartitionMustFitMaxTablesEvenWithNothingDropped() {
        // Six overlapping full tables of versions of the same keys: merged they are one table, but a
        // merge that dropped nothing would write six, within maxTables (10).
        List<TableStats> six = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            six.add(new TableStats(TARGET, PER_TABLE));
        }
        PartitionStats stale = new PartitionStats(six, 0, 0, 0, 5 * PER_TABLE, 0, 0, TARGET, 0, 6 * PER_TABLE);
        assertTrue(RemixDbPolicy.withIdleMerges().mergeIdle(stale));
        // Five tables holding twelve tables' worth of bytes (were nothing dropped): too big to merge.
        List<TableStats> big = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            big.add(new TableStats(TARGET * 12 / 5, PER_TABLE * 12 / 5));
        }
        assertFalse(RemixDbPolicy.withIdleMerges().mergeIdle(
                new PartitionStats(big, 0, 0, 0, 0, 0, 0, TARGET, 0, 12 * PER_TABLE)));
        assertTrue(RemixDbPolicy.builder().idleMergeRuns(5).maxTables(12).build().mergeIdle(
                new PartitionStats(big, 0, 0, 0, 0, 0, 0, TARGET, 0, 12 * PER_TABLE)), "maxTables 12: it fits");
    }

    @Test
    void smallPartitionsNeedTheFloorOfScannedEntries() {
        // Five runs of 100 entries each: 5% would be 25 entries, but the floor is 1,000.
        List<TableStats> tables = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tables.add(new TableStats(10_000, 100));
        }
        RemixDbPolicy policy = RemixDbPolicy.withIdleMerges();
        assertFalse(policy.mergeIdle(new PartitionStats(tables, 0, 0, 0, 0, 0, 0, TARGET, 0,
                RemixDbPolicy.IDLE_MERGE_MIN_SCANNED - 1)));
        assertTrue(policy.mergeIdle(new PartitionStats(tables, 0, 0, 0, 0, 0, 0, TARGET, 400,
                RemixDbPolicy.IDLE_MERGE_MIN_SCANNED - 400)), "entries passed over count as walked");
    }

    @Test
    void newDataIsAFlushsBusiness() {
        PartitionStats base = idle(6, 1, 10 * PER_TABLE);
        PartitionStats withNew = new PartitionStats(base.tables(), 8 * MIB, 8 * MIB / 100, 0, 0, 0, 0, TARGET, 0,
                10 * PER_TABLE);
        assertTrue(RemixDbPolicy.withIdleMerges().mergeIdle(base));
        assertFalse(RemixDbPolicy.withIdleMerges().mergeIdle(withNew));
        assertFalse(RemixDbPolicy.withIdleMerges().mergeIdle(new PartitionStats(List.of(), 0, 0, 0, 0, 0, 0, TARGET, 0,
                10 * PER_TABLE)), "no tables");
    }

    @Test
    void settingsTurnItOffOrTuneIt() {
        PartitionStats p = idle(6, 1, (long) Math.ceil(0.2 * keys(idle(6, 1, 0))));
        assertFalse(RemixDbPolicy.builder().idleMergeRuns(0).build().mergeIdle(p), "0 turns them off");
        assertFalse(RemixDbPolicy.builder().idleMergeRuns(7).build().mergeIdle(p));
        assertTrue(RemixDbPolicy.builder().idleMergeRuns(2).build().mergeIdle(idle(2, 1, keys(idle(2, 1, 0)))));
        assertFalse(RemixDbPolicy.builder().idleMergeRuns(5).idleMergeScanned(0.5).build().mergeIdle(p));
        assertTrue(RemixDbPolicy.builder().idleMergeRuns(5).idleMergeScanned(0.2).build().mergeIdle(p));

        RemixDbPolicy merging = RemixDbPolicy.withIdleMerges();
        assertEquals(RemixDbPolicy.IDLE_MERGE_RUNS, merging.idleMergeRuns());
        assertEquals(0.05, merging.idleMergeScanned());
        assertEquals(1.0, merging.optionalWriteBudget());
        assertEquals(0, RemixDbPolicy.defaults().idleMergeRuns());
        assertEquals(0.0, RemixDbPolicy.builder().idleMergeRuns(5).optionalWriteBudget(0).build().optionalWriteBudget());
        assertTrue(merging.toString().contains("idleMergeRuns=5"), merging.toString());

        assertThrows(IllegalArgumentException.class, () -> RemixDbPolicy.builder().idleMergeRuns(1));
        assertThrows(IllegalArgumentException.class, () -> RemixDbPolicy.builder().idleMergeRuns(64));
        assertThrows(IllegalArgumentException.class, () -> RemixDbPolicy.builder().idleMergeScanned(-0.1));
        assertThrows(IllegalArgumentException.class, () -> RemixDbPolicy.builder().idleMergeScanned(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> RemixDbPolicy.builder().optionalWriteBudget(-1));
        assertThrows(IllegalArgumentException.class,
                () -> RemixDbPolicy.builder().optionalWriteBudget(Double.POSITIVE_INFINITY));
    }

    @Test
    void rangeReduceKeepsTheBasePolicysIdleMerges() {
        PartitionStats runs = idle(6, 1, keys(idle(6, 1, 0)));
        assertTrue(RangeReducePolicy.over(RemixDbPolicy.withIdleMerges()).mergeIdle(runs), "no debt, but many runs");
        assertFalse(RangeReducePolicy.over(RemixDbPolicy.defaults()).mergeIdle(runs));
    }

    @Test
    void namedSettings() {
        RemixDbPolicy named = (RemixDbPolicy) CompactionPolicies.named(" RemixDB: idleMergeRuns=6, idleMergeScanned=0.1, budget=2 ");
        assertEquals(6, named.idleMergeRuns());
        assertEquals(0.1, named.idleMergeScanned());
        assertEquals(2.0, named.optionalWriteBudget());
        assertEquals(RemixDbPolicy.defaults(), CompactionPolicies.named("remixdb"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("remixdb:idleMergeRuns=5.5"))
                .getMessage().contains("whole number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("remixdb:rho=0.1"))
                .getMessage().contains("idleMergeRuns"));
        assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("remixdb:idleMergeRuns=1"));
        assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("remixdb:budget"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CompactionPolicies.named("remixdb:budget=2"))
                .getMessage().contains("idleMergeRuns > 0"));
    }
}
