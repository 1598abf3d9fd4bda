package dev.remixdb.compaction;

/**
 * The Autumn paper's Garnering merge policy (Zhao et al.; {@code seeds/004}) applied to one
 * partition at a time. Each partition is a small leveled LSM-tree: its sorted runs
 * ({@link PartitionStats#runTables()}), newest first, sit in levels 1..L whose capacities are
 * <pre>
 *   C_i = B * T^i / c^((2L - 1 - i) * i / 2)        (Autumn, equation 5)
 * </pre>
 * so that the last two levels differ by the ratio {@code T} and the ratio between smaller levels
 * grows to {@code T / c^(L-i)}. With {@code c < 1} the small levels are relatively larger than under
 * plain leveling ({@code c = 1}), they absorb more flushes before a merge reaches the large levels,
 * and the number of levels grows as O(sqrt(log N)) instead of O(log N).
 *
 * <p><b>Levels of a partition.</b>
 * <ul>
 *   <li>{@code B} is {@link Builder#baseFraction(double)} of the table target (the data one flush
 *       typically brings to one partition).</li>
 *   <li>{@code L} is the fewest levels whose last level holds all of the partition's data and the
 *       new data: {@code C_L >= total}. It grows as the partition grows, and with it every
 *       capacity. That is the paper's <em>delayed last-level compaction</em>: when the last level
 *       fills, the partition gains a level instead of merging it, because under the larger
 *       capacities the old last level is no longer over its own.</li>
 *   <li>The level of a run is the smallest {@code i} with {@code bytes <= C_i}. A run reaches level
 *       {@code i} only by a merge whose input overflowed level {@code i - 1}, so size tells the
 *       level; runs get larger with age.</li>
 *   <li>Level 1 holds up to {@link Builder#firstLevelRuns(int)} runs (Autumn keeps several sorted
 *       runs in its first level so that flushes merge nothing). Each such run is one flush written
 *       by a Minor compaction: no table is rewritten, only the REMIX is rebuilt.</li>
 * </ul>
 *
 * <p><b>The plan</b>, for one partition, in this order:
 * <ol>
 *   <li><b>Abort</b> as {@link RemixDbPolicy} does: no new data, or new data below
 *       {@link Builder#abortBelowFraction(double)} of a table that fits the round's budget.</li>
 *   <li><b>Minor</b> if the new data belongs to level 1 and level 1 has room for another run.</li>
 *   <li>Otherwise the leveled merge: starting from the new data, take the newest runs while the
 *       next one's level is not above the level of what has been taken so far (it is full, or what
 *       is taken has grown into it), and stop at the first run of a higher level. That is
 *       <b>Major(k)</b> of the tables taken, or <b>Minor</b> if none.</li>
 *   <li>A merge that takes every run and would write more than {@link Builder#splitAboveTables(int)}
 *       tables is a <b>Split</b> instead: it rewrites the whole partition anyway, and splitting
 *       keeps partitions (and so each REMIX rebuild) bounded. A plan that would leave more than
 *       {@link Builder#maxTables(int)} tables takes more runs, and failing that, splits.</li>
 * </ol>
 *
 * <p><b>When to pick it.</b> It keeps fewer runs per partition than {@link RemixDbPolicy} (about
 * {@code firstLevelRuns + L}), so seeks and scans merge fewer cursors, at the cost of rewriting data
 * more often: for read-heavy stores that still take a steady stream of updates.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class GarneringPolicy implements CompactionPolicy {
    private static final GarneringPolicy DEFAULTS = builder().build();

    private final double sizeRatio;
    private final double shrink;
    private final int firstLevelRuns;
    private final double baseFraction;
    private final int splitAboveTables;
    private final int maxTables;
    private final int splitTables;
    private final double abortBelowFraction;

    private GarneringPolicy(Builder b) {
        this.sizeRatio = b.sizeRatio;
        this.shrink = b.shrink;
        this.firstLevelRuns = b.firstLevelRuns;
        this.baseFraction = b.baseFraction;
        this.splitAboveTables = b.splitAboveTables;
        this.maxTables = b.maxTables;
        this.splitTables = b.splitTables;
        this.abortBelowFraction = b.abortBelowFraction;
    }

    /** {@return a builder holding the default settings} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the policy with every setting at its default} */
    public static GarneringPolicy defaults() {
        return DEFAULTS;
    }

    @Override
    public CompactionPlan plan(PartitionStats p) {
        if (p.newKeys() == 0) {
            return CompactionPlan.ABORT;
        }
        if (p.newBytes() <= p.abortBudgetBytes() && p.newBytes() < abortBelowFraction * p.tableTargetBytes()) {
            return CompactionPlan.ABORT;
        }
        int n = p.tableCount();
        int[] runs = p.runTables();
        long[] runBytes = new long[runs.length];
        for (int i = 0, t = 0; i < runs.length; t += runs[i], i++) {
            runBytes[i] = p.newestBytes(t + runs[i]) - p.newestBytes(t);
        }
        double base = baseFraction * p.tableTargetBytes();
        int levels = levels(base, p.tableBytes() + p.newBytes());

        if (level(base, levels, p.newBytes()) == 1) {
            int firstLevel = 0;
            while (firstLevel < runs.length && level(base, levels, runBytes[firstLevel]) == 1) {
                firstLevel++;
            }
            if (firstLevel < firstLevelRuns && n + p.newTables() <= maxTables) {
                return CompactionPlan.MINOR;
            }
        }
        int k = 0;  // tables taken, newest first
        int r = 0;  // runs taken
        long taken = p.newBytes();
        while (r < runs.length && level(base, levels, runBytes[r]) <= level(base, levels, taken)) {
            taken += runBytes[r];
            k += runs[r++];
        }
        // Take more runs while the result would leave too many tables.
        while (k == 0 ? n + p.newTables() > maxTables : !MajorEstimate.of(p, k).validFor(p, maxTables)) {
            if (r == runs.length) {
                return CompactionPlan.SPLIT;
            }
            k += runs[r++];
        }
        if (k == 0) {
            return CompactionPlan.MINOR;
        }
        if (k == n && MajorEstimate.of(p, k).expectedTables() > splitAboveTables) {
            return CompactionPlan.SPLIT;
        }
        return CompactionPlan.major(k);
    }

    /**
     * Level {@code i}'s capacity in a partition of {@code levels} levels, Autumn's equation 5.
     * Package-private for tests.
     */
    double capacity(double base, int levels, int i) {
        return base * Math.pow(sizeRatio, i) / Math.pow(shrink, (2.0 * levels - 1 - i) * i / 2);
    }

    /**
     * The number of levels of a tree holding {@code buffers} times the base size B under this
     * policy's capacity curve (Autumn, equation 6): O(sqrt(log buffers)) for {@code c < 1},
     * {@code log_T(buffers)} for {@code c = 1}.
     *
     * @param buffers data size in units of B, {@code >= 0}
     * @return the fewest levels whose last level holds it, at least 1
     */
    public int levels(double buffers) {
        return levels(1, buffers);
    }

    /** The fewest levels whose last level holds {@code bytes}. Package-private for tests. */
    int levels(double base, double bytes) {
        int levels = 1;
        while (capacity(base, levels, levels) < bytes && levels < 64) {
            levels++;
        }
        return levels;
    }

    /** The level of a run of {@code bytes}: the smallest whose capacity holds it. */
    private int level(double base, int levels, long bytes) {
        for (int i = 1; i < levels; i++) {
            if (bytes <= capacity(base, levels, i)) {
                return i;
            }
        }
        return levels;
    }

    /** {@return the capacity ratio between the last two levels (the paper's T)} */
    public double sizeRatio() {
        return sizeRatio;
    }

    /** {@return the scaling factor c of the ratios toward the small levels} */
    public double shrink() {
        return shrink;
    }

    /** {@return how many runs level 1 holds before a flush merges them} */
    public int firstLevelRuns() {
        return firstLevelRuns;
    }

    /** {@return the base size B as a fraction of the table target} */
    public double baseFraction() {
        return baseFraction;
    }

    /** {@return the largest whole-partition merge, in output tables, that is not a Split} */
    public int splitAboveTables() {
        return splitAboveTables;
    }

    /** {@return the most tables a partition may have} */
    public int maxTables() {
        return maxTables;
    }

    @Override
    public int splitTables() {
        return splitTables;
    }

    /** {@return the fraction of a table below which new data may be aborted} */
    public double abortBelowFraction() {
        return abortBelowFraction;
    }

    @Override
    public String toString() {
        return "GarneringPolicy[T=" + sizeRatio + ", c=" + shrink + ", firstLevelRuns=" + firstLevelRuns
                + ", baseFraction=" + baseFraction + ", splitAboveTables=" + splitAboveTables
                + ", maxTables=" + maxTables + ", splitTables=" + splitTables
                + ", abortBelowFraction=" + abortBelowFraction + "]";
    }

    /** Builds a {@link GarneringPolicy}; every setting is checked when it is set. Not thread-safe. */
    public static final class Builder {
        private double sizeRatio = 2;
        private double shrink = 0.8;
        private int firstLevelRuns = 2;
        private double baseFraction = 0.25;
        private int splitAboveTables = 12;
        private int maxTables = 24;
        private int splitTables = 2;
        private double abortBelowFraction = 0.125;

        private Builder() {}

        /**
         * The capacity ratio between the last two levels, the paper's T. Larger values mean fewer
         * levels and fewer merges of the large levels, with more data in each. Default: 2, the
         * paper's default.
         *
         * @param ratio {@code 1.5..100}
         * @return this builder
         * @throws IllegalArgumentException if out of range or NaN
         */
        public Builder sizeRatio(double ratio) {
            if (!(ratio >= 1.5 && ratio <= 100)) {
                throw new IllegalArgumentException("sizeRatio must be in 1.5..100: " + ratio);
            }
            this.sizeRatio = ratio;
            return this;
        }

        /**
         * The paper's scaling factor c: each level below the last two has a ratio {@code 1/c}
         * larger than the one above it. 1 is plain leveling; the paper uses 0.8 and, for
         * read-heavy loads, 0.4. Default: 0.8.
         *
         * @param c {@code 0.1..1}
         * @return this builder
         * @throws IllegalArgumentException if out of range or NaN
         */
        public Builder shrink(double c) {
            if (!(c >= 0.1 && c <= 1)) {
                throw new IllegalArgumentException("shrink must be in 0.1..1: " + c);
            }
            this.shrink = c;
            return this;
        }

        /**
         * How many flushed runs level 1 holds before the next flush merges them. More runs mean
         * cheaper flushes and slower reads. Default: 2.
         *
         * @param runs {@code 1..16}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder firstLevelRuns(int runs) {
            if (runs < 1 || runs > 16) {
                throw new IllegalArgumentException("firstLevelRuns must be in 1..16: " + runs);
            }
            this.firstLevelRuns = runs;
            return this;
        }

        /**
         * The base size B of the capacity formula as a fraction of the table target: about the data
         * one flush brings to one partition. Default: 0.25.
         *
         * @param fraction {@code 0.01..16}
         * @return this builder
         * @throws IllegalArgumentException if out of range or NaN
         */
        public Builder baseFraction(double fraction) {
            if (!(fraction >= 0.01 && fraction <= 16)) {
                throw new IllegalArgumentException("baseFraction must be in 0.01..16: " + fraction);
            }
            this.baseFraction = fraction;
            return this;
        }

        /**
         * A merge of every run of a partition that would write more than this many tables splits
         * the partition instead. Default: 12.
         *
         * @param tables {@code 1..62}, below {@link #maxTables(int)} (checked by {@link #build()})
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder splitAboveTables(int tables) {
            if (tables < 1 || tables >= RemixDbPolicy.MAX_RUNS) {
                throw new IllegalArgumentException("splitAboveTables must be in 1.." + (RemixDbPolicy.MAX_RUNS - 1)
                        + ": " + tables);
            }
            this.splitAboveTables = tables;
            return this;
        }

        /**
         * The most tables a partition may have. Default: 24.
         *
         * @param tables {@code 2..63} (a REMIX indexes at most 63 runs)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxTables(int tables) {
            if (tables < 2 || tables > RemixDbPolicy.MAX_RUNS) {
                throw new IllegalArgumentException("maxTables must be in 2.." + RemixDbPolicy.MAX_RUNS + ": " + tables);
            }
            this.maxTables = tables;
            return this;
        }

        /**
         * Tables per new partition after a Split, the REMIX paper's M. Default: 2.
         *
         * @param tables {@code 1..62}, below {@link #maxTables(int)} (checked by {@link #build()})
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder splitTables(int tables) {
            if (tables < 1 || tables >= RemixDbPolicy.MAX_RUNS) {
                throw new IllegalArgumentException("splitTables must be in 1.." + (RemixDbPolicy.MAX_RUNS - 1) + ": "
                        + tables);
            }
            this.splitTables = tables;
            return this;
        }

        /**
         * New data smaller than this fraction of the table target may be aborted (kept in memory)
         * when the round's budget allows, as in {@link RemixDbPolicy.Builder#abortBelowFraction(double)}.
         * Default: 0.125.
         *
         * @param fraction {@code 0..1}
         * @return this builder
         * @throws IllegalArgumentException if out of range or NaN
         */
        public Builder abortBelowFraction(double fraction) {
            if (!(fraction >= 0 && fraction <= 1)) {
                throw new IllegalArgumentException("abortBelowFraction must be in 0..1: " + fraction);
            }
            this.abortBelowFraction = fraction;
            return this;
        }

        /**
         * Builds the policy, checking the settings against each other.
         *
         * @return the policy
         * @throws IllegalArgumentException if {@code splitTables} or {@code splitAboveTables} is not
         *                                  below {@code maxTables}, or {@code firstLevelRuns} leaves
         *                                  no room for the levels
         */
        public GarneringPolicy build() {
            if (splitTables >= maxTables || splitAboveTables >= maxTables) {
                throw new IllegalArgumentException("splitTables (" + splitTables + ") and splitAboveTables ("
                        + splitAboveTables + ") must be < maxTables (" + maxTables + ")");
            }
            if (firstLevelRuns >= maxTables) {
                throw new IllegalArgumentException("firstLevelRuns (" + firstLevelRuns + ") must be < maxTables ("
                        + maxTables + ")");
            }
            return new GarneringPolicy(this);
        }
    }
}
