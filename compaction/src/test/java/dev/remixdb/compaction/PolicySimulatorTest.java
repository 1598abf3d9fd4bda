package dev.remixdb.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.compaction.PolicySimulator.Report;
import dev.remixdb.compaction.PolicySimulator.Workload;
import org.junit.jupiter.api.Test;

/** Small stores (256 KiB memtables and tables, 136-byte entries) so that every plan kind shows up. */
class PolicySimulatorTest {
    private static final int ENTRY = 136;
    private static final long KIB = 1024;

    private static Workload small(long operations, long seed) {
        return Workload.uniform(operations, ENTRY, 256 * KIB, 256 * KIB, seed);
    }

    @Test
    void defaultPolicyOnARandomLoad() {
        Report r = PolicySimulator.run(RemixDbPolicy.defaults(), small(100_000, 1));
        assertEquals(100_000L * ENTRY, r.userBytes());
        assertTrue(r.writeAmplification() > 1 && r.writeAmplification() < 10, r.toString());
        assertTrue(r.writeAmplificationWithRemix() > r.writeAmplification(), r.toString());
        assertTrue(r.aborts() > 0 && r.minors() > 0 && r.majors() > 0 && r.splits() > 0, r.toString());
        assertTrue(r.maxRuns() <= 10, r.toString());
        assertTrue(r.avgRuns() > 1 && r.avgRuns() <= 10, r.toString());
        // 13.6 MB of data in partitions of at most ten 256 KiB tables: there must be many.
        assertTrue(r.partitions() >= 6, r.toString());
    }

    @Test
    void sameSeedSameReport() {
        Workload w = small(30_000, 7).withDistinctKeys(10_000);
        assertEquals(PolicySimulator.run(RemixDbPolicy.defaults(), w), PolicySimulator.run(RemixDbPolicy.defaults(), w));
    }

    @Test
    void minorOnlyWritesEveryByteOnce() {
        // The final flush may not abort, so an insert-only load is written exactly once.
        Report r = PolicySimulator.run(p -> CompactionPlan.MINOR, small(20_000, 3));
        assertEquals(r.userBytes(), r.tableBytesWritten());
        assertEquals(r.flushes(), r.minors());
        assertEquals(1, r.partitions());
    }

    @Test
    void updatesInTheMemtableAreWrittenOnce() {
        // 20,000 writes over 100 keys: each flush writes at most 100 entries.
        Report r = PolicySimulator.run(p -> CompactionPlan.MINOR, small(20_000, 3).withDistinctKeys(100));
        assertTrue(r.tableBytesWritten() <= r.flushes() * 100 * ENTRY, r.toString());
    }

    @Test
    void splitGroupsSplitTablesTablesPerPartition() {
        CompactionPolicy alwaysSplit = new CompactionPolicy() {
            @Override
            public CompactionPlan plan(PartitionStats partition) {
                return CompactionPlan.SPLIT;
            }

            @Override
            public int splitTables() {
                return 1;
            }
        };
        Report r = PolicySimulator.run(alwaysSplit, small(20_000, 5));
        assertEquals(1, r.maxRuns());
        // 20,000 entries at 1,928 per table need at least 11 tables, each its own partition.
        assertTrue(r.partitions() >= 11, r.toString());
        assertEquals(r.splits(), r.aborts() + r.minors() + r.majors() + r.splits());
    }

    @Test
    void invalidPlansAreReported() {
        assertThrows(IllegalStateException.class,
                () -> PolicySimulator.run(p -> CompactionPlan.ABORT, small(20_000, 1)));
        assertThrows(IllegalStateException.class,
                () -> PolicySimulator.run(p -> CompactionPlan.major(1), small(20_000, 1)));
    }

    @Test
    void workloadRejectsBadValuesByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Workload.uniform(10, ENTRY, ENTRY - 1, KIB, 1));
        assertTrue(e.getMessage().contains("memtableBytes") && e.getMessage().contains("135"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> new Workload(10, 0, ENTRY, KIB, KIB, 0.6, 5, 1));
        assertTrue(e.getMessage().contains("abortFraction") && e.getMessage().contains("0.6"), e.getMessage());
    }

    @Test
    void deletesLeaveTombstonesUntilAFullMergeDropsThem() {
        // Minor only: nothing is ever merged, so every stale version and tombstone stays.
        Workload w = small(60_000, 9).withDistinctKeys(5_000).withDeletes(0.3);
        Report minors = PolicySimulator.run(p -> CompactionPlan.MINOR, w);
        PolicySimulator.Sample end = minors.last();
        assertEquals(60_000, end.operations());
        assertTrue(end.debtEntries() > 0 && end.spaceAmplification() > 1.5, end.toString());
        assertTrue(end.liveEntries() > 0 && end.liveEntries() < 5_000, end.toString());
        // Always merging everything: one table set holding only live keys, no debt at all.
        Report full = PolicySimulator.run(p -> p.tableCount() == 0 ? CompactionPlan.MINOR
                : CompactionPlan.major(p.tableCount()), w);
        assertEquals(0, full.last().debtEntries(), full.last().toString());
        assertEquals(1.0, full.last().spaceAmplification(), 1e-9);
        // Both keep the same live keys: the model's contents do not depend on the policy.
        assertEquals(end.liveEntries(), full.last().liveEntries());
    }

    @Test
    void aZipfianChoiceRepeatsHotKeys() {
        Workload uniform = small(50_000, 4).withDistinctKeys(1_000_000);
        Workload zipf = uniform.withZipf(0.99);
        long uniformLive = PolicySimulator.run(p -> CompactionPlan.MINOR, uniform).last().liveEntries();
        long zipfLive = PolicySimulator.run(p -> CompactionPlan.MINOR, zipf).last().liveEntries();
        // 50,000 uniform draws from 1M keys are nearly all distinct; Zipfian ones repeat the hot keys.
        assertTrue(uniformLive > 48_000, "uniform: " + uniformLive);
        assertTrue(zipfLive < 0.8 * uniformLive, "zipf: " + zipfLive + " of " + uniformLive);
    }

    @Test
    void samplesCoverTheRunInOrder() {
        Report r = PolicySimulator.run(RemixDbPolicy.defaults(), small(100_000, 2).withDistinctKeys(30_000));
        assertTrue(r.samples().size() >= 10 && r.samples().size() <= PolicySimulator.SAMPLES + 1, r.samples().toString());
        long previous = -1;
        for (PolicySimulator.Sample s : r.samples()) {
            assertTrue(s.operations() > previous, "samples in order: " + r.samples());
            assertTrue(s.avgSortedRuns() <= s.avgRuns() && s.avgRuns() <= s.maxRuns(), s.toString());
            previous = s.operations();
        }
        assertEquals(100_000, r.last().operations());
        assertEquals(r.writeAmplification(), r.last().writeAmplification(), 1e-9);
    }

    @Test
    void garneringKeepsFewerSortedRunsThanTheDefaultForMoreWrites() {
        Workload w = small(200_000, 11);
        Report remix = PolicySimulator.run(RemixDbPolicy.defaults(), w);
        Report garnering = PolicySimulator.run(GarneringPolicy.defaults(), w);
        assertTrue(garnering.avgSortedRuns() < remix.avgSortedRuns(), garnering + " vs " + remix);
        assertTrue(garnering.writeAmplification() > remix.writeAmplification(), garnering + " vs " + remix);
    }

    @Test
    void deletesNeedDistinctKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> small(10, 1).withDeletes(0.1));
        assertTrue(e.getMessage().contains("deleteFraction"), e.getMessage());
    }

    @Test
    void rangeReduceClearsTheDebtThatScansMeet() {
        Workload w = small(300_000, 13).withDistinctKeys(30_000).withDeletes(0.3).withScans(2);
        Report base = PolicySimulator.run(RemixDbPolicy.defaults(), w);
        Report rr = PolicySimulator.run(RangeReducePolicy.builder(RemixDbPolicy.defaults()).minDebtFraction(0.1).build(), w);
        assertTrue(rr.avgDebtEntries() < base.avgDebtEntries(), rr.avgDebtEntries() + " vs " + base.avgDebtEntries());
        // The running budget: optional bytes stay within their share of the rest, and the debt
        // still falls; with no limit RangeReduce spends more.
        Report budgeted = PolicySimulator.run(RangeReducePolicy.builder(RemixDbPolicy.defaults()).minDebtFraction(0.1)
                .budget(0.1).build(), w);
        assertTrue(budgeted.optionalBytes() > 0, budgeted.toString());
        assertTrue(budgeted.optionalBytes() <= 0.1 * (budgeted.tableBytesWritten() - budgeted.optionalBytes()),
                budgeted.toString());
        assertTrue(budgeted.avgDebtEntries() < base.avgDebtEntries(), budgeted.avgDebtEntries() + " vs " + base.avgDebtEntries());
        Report unlimited = PolicySimulator.run(RangeReducePolicy.builder(RemixDbPolicy.defaults()).minDebtFraction(0.1)
                .budget(Double.POSITIVE_INFINITY).build(), w);
        assertTrue(unlimited.optionalBytes() > budgeted.optionalBytes(), unlimited + " vs " + budgeted);
        // Without scans it is its base policy exactly.
        Workload quiet = w.withScans(0);
        assertEquals(PolicySimulator.run(RemixDbPolicy.defaults(), quiet),
                PolicySimulator.run(RangeReducePolicy.over(RemixDbPolicy.defaults()), quiet));
    }
}
