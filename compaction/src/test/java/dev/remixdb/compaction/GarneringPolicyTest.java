package dev.remixdb.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

/**
 * The Garnering policy: every plan valid for its input (from {@link CompactionPlan}'s definitions),
 * the capacity curve of the paper, and the level-1 and split thresholds.
 */
class GarneringPolicyTest {
    private static final long MIB = 1 << 20;
    private static final long TARGET = 64 * MIB;

    @Property(tries = 3000)
    void everyPlanIsValid(@ForAll @IntRange(min = 2, max = 63) int maxTables,
                          @ForAll @DoubleRange(min = 1.5, max = 12) double ratio,
                          @ForAll @DoubleRange(min = 0.1, max = 1) double shrink,
                          @ForAll @IntRange(min = 1, max = 16) int firstLevelRuns,
                          @ForAll("targets") long target,
                          @ForAll @Size(max = 66) List<@IntRange(min = 0, max = 1500) Integer> tablePermille,
                          @ForAll @Size(max = 66) List<Boolean> extendsRun,
                          @ForAll @IntRange(min = 0, max = 12_000) int newPermille,
                          @ForAll @IntRange(min = 0, max = 120) int stalePercent,
                          @ForAll @IntRange(min = 0, max = 2000) int budgetPermille) {
        int fl = Math.min(firstLevelRuns, maxTables - 1);
        GarneringPolicy policy = GarneringPolicy.builder().maxTables(maxTables).sizeRatio(ratio).shrink(shrink)
                .firstLevelRuns(fl).splitTables(Math.max(1, maxTables / 4))
                .splitAboveTables(Math.max(1, maxTables / 2)).build();
        PartitionStats p = stats(target, tablePermille, extendsRun, newPermille, stalePercent, budgetPermille);
        int n = p.tableCount();
        CompactionPlan plan = policy.plan(p);
        switch (plan) {
            case CompactionPlan.Abort _ -> assertTrue(p.newKeys() == 0 || p.newBytes() <= p.abortBudgetBytes(),
                    "abort over budget");
            case CompactionPlan.Minor _ -> assertTrue(n + p.newTables() <= maxTables, "minor without room");
            case CompactionPlan.Major(int k) -> {
                assertTrue(k >= 1 && k <= n, "k out of range");
                long out = Math.max(1, Math.ceilDiv(p.newestBytes(k) + p.newBytes(), target));
                assertTrue(n - k + out <= maxTables, "major leaves " + (n - k + out) + " tables");
                assertTrue(isRunBoundary(p, k), "Major(" + k + ") cuts a sorted run in two");
            }
            case CompactionPlan.Split _ -> assertTrue(p.newKeys() > 0, "split without new data");
        }
    }

    /** Whether the newest {@code k} tables are whole runs. */
    private static boolean isRunBoundary(PartitionStats p, int k) {
        int tables = 0;
        for (int run : p.runTables()) {
            tables += run;
            if (tables == k) {
                return true;
            }
        }
        return false;
    }

    @Property(tries = 500)
    void capacitiesGrowWithTheLevelAndWithTheLevelCount(@ForAll @DoubleRange(min = 1.5, max = 12) double ratio,
                                                       @ForAll @DoubleRange(min = 0.1, max = 1) double shrink,
                                                       @ForAll @IntRange(min = 1, max = 12) int levels) {
        GarneringPolicy policy = GarneringPolicy.builder().sizeRatio(ratio).shrink(shrink).build();
        for (int i = 1; i < levels; i++) {
            double ci = policy.capacity(1, levels, i);
            double next = policy.capacity(1, levels, i + 1);
            assertTrue(next > ci, "C_" + (i + 1) + " > C_" + i);
            // The ratio between adjacent levels is T / c^(L - i - 1) (Autumn, equation 4).
            assertEquals(ratio / Math.pow(shrink, levels - i - 1), next / ci, 1e-9 * next / ci);
            // Delayed last-level compaction: a partition that gains a level has larger capacities.
            assertTrue(policy.capacity(1, levels + 1, i) >= ci * (1 - 1e-12));
        }
        // The last level is the ratio T above the one before.
        if (levels > 1) {
            assertEquals(ratio, policy.capacity(1, levels, levels) / policy.capacity(1, levels, levels - 1), 1e-9);
        }
    }

    @Test
    void levelsGrowAsTheSquareRootOfTheLogarithm() {
        GarneringPolicy garnering = GarneringPolicy.builder().sizeRatio(2).shrink(0.8).build();
        GarneringPolicy leveling = GarneringPolicy.builder().sizeRatio(2).shrink(1).build();
        // Leveling: log_T(N/B) levels; Garnering: about sqrt(2 log_{1/c}(N/B)).
        for (int e = 3; e <= 15; e++) {
            long n = (long) Math.pow(10, e);
            int g = garnering.levels(1, n);
            int l = leveling.levels(1, n);
            assertEquals(Math.ceil(Math.log(n) / Math.log(2)), l, 1, "leveling at 1e" + e);
            double sqrt = Math.sqrt(2 * Math.log(n) / Math.log(1 / 0.8));
            assertTrue(g <= sqrt + 1 && g >= sqrt / 2 - 1, "garnering at 1e" + e + ": " + g + " levels, sqrt " + sqrt);
            assertTrue(g <= l, "never more levels than leveling");
        }
        assertTrue(garnering.levels(1, (long) 1e15) * 2 < leveling.levels(1, (long) 1e15));
    }

    @Test
    void flushesStayInTheFirstLevelUntilItHoldsItsRuns() {
        GarneringPolicy policy = GarneringPolicy.builder().firstLevelRuns(3).build();
        // A large last level (one run of 4 tables) and small first-level runs of 4 MiB.
        Runs r = new Runs().run(4, 64).run(1, 4);
        assertEquals(CompactionPlan.MINOR, policy.plan(r.stats(4 * MIB)));
        r.run(1, 4);
        assertEquals(CompactionPlan.MINOR, policy.plan(r.stats(4 * MIB)));
        r.run(1, 4);
        // Three first-level runs: the flush merges them, and not the large run below.
        assertEquals(CompactionPlan.major(3), policy.plan(r.stats(4 * MIB)));
    }

    @Test
    void aMergeThatGrowsIntoTheNextLevelTakesIt() {
        GarneringPolicy policy = GarneringPolicy.builder().firstLevelRuns(1).sizeRatio(4).shrink(0.8)
                .baseFraction(0.25).build();
        double base = 0.25 * TARGET;
        long total = 200 * MIB;
        int levels = policy.levels(base, total);
        long c1 = (long) policy.capacity(base, levels, 1);
        // A first-level run just under C_1 and a second-level run just above it: a flush makes the
        // first-level run overflow into level 2, so both merge.
        Runs r = new Runs().run(1, (c1 + 2 * MIB) / MIB).run(1, c1 / MIB - 1);
        CompactionPlan plan = policy.plan(r.stats(4 * MIB));
        assertEquals(CompactionPlan.major(2), plan, "C_1 = " + c1 / MIB + " MiB of " + levels + " levels");
    }

    @Test
    void aWholePartitionMergeAboveTheThresholdSplits() {
        // A base of 16 tables puts every run in level 1, whose one run is full: the flush merges all.
        GarneringPolicy policy = GarneringPolicy.builder().firstLevelRuns(1).baseFraction(16).splitAboveTables(4)
                .maxTables(8).build();
        Runs r = new Runs().run(4, 64).run(1, 60);
        // Merging everything would write 5+ tables: split instead.
        assertEquals(CompactionPlan.SPLIT, policy.plan(r.stats(64 * MIB)));
        // The same merge of fewer bytes stays one partition.
        GarneringPolicy roomy = GarneringPolicy.builder().firstLevelRuns(1).baseFraction(16).splitAboveTables(12)
                .maxTables(16).build();
        assertEquals(CompactionPlan.major(5), roomy.plan(r.stats(64 * MIB)));
    }

    @Test
    void tooManyTablesTakesMoreRunsOrSplits() {
        GarneringPolicy policy = GarneringPolicy.builder().firstLevelRuns(2).maxTables(6).splitAboveTables(5).build();
        Runs r = new Runs();
        for (int i = 0; i < 6; i++) {
            r.run(1, 1);
        }
        CompactionPlan plan = policy.plan(r.stats(MIB));
        assertTrue(plan instanceof CompactionPlan.Major || plan == CompactionPlan.SPLIT, plan.toString());
    }

    @Test
    void settingsAreCheckedByName() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GarneringPolicy.builder().shrink(0))
                .getMessage().contains("shrink"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> GarneringPolicy.builder().sizeRatio(1))
                .getMessage().contains("sizeRatio"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> GarneringPolicy.builder().maxTables(4).splitAboveTables(4).build()).getMessage().contains("maxTables"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> GarneringPolicy.builder().firstLevelRuns(17)).getMessage().contains("firstLevelRuns"));
    }

    /** A partition built run by run, oldest first; sizes in MiB, 100-byte entries. */
    private static final class Runs {
        final List<TableStats> tables = new ArrayList<>();

        Runs run(int tableCount, long mibEach) {
            for (int i = 0; i < tableCount; i++) {
                tables.add(new TableStats(mibEach * MIB, mibEach * MIB / 100, i > 0));
            }
            return this;
        }

        PartitionStats stats(long newBytes) {
            return new PartitionStats(tables, newBytes, newBytes / 100, 0, 0, 0, 0, TARGET);
        }
    }

    @Provide
    Arbitrary<Long> targets() {
        return Arbitraries.oneOf(Arbitraries.of(1L, 7L, 4096L, 64L << 20), Arbitraries.longs().between(1, 1L << 32));
    }

    private static PartitionStats stats(long target, List<Integer> tablePermille, List<Boolean> extendsRun,
                                        int newPermille, int stalePercent, int budgetPermille) {
        List<TableStats> tables = new ArrayList<>();
        long keys = 0;
        for (int i = 0; i < tablePermille.size(); i++) {
            long bytes = target * tablePermille.get(i) / 1000;
            long k = bytes == 0 ? 0 : Math.max(1, bytes / 100);
            tables.add(new TableStats(bytes, k, i > 0 && i < extendsRun.size() && extendsRun.get(i)));
            keys += k;
        }
        long newBytes = target * newPermille / 1000;
        long newKeys = newBytes == 0 ? 0 : Math.max(1, newBytes / 100);
        return new PartitionStats(tables, newBytes, newKeys, 0, keys * stalePercent / 100, 0,
                target * budgetPermille / 1000, target);
    }
}
