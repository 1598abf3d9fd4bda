package dev.remixdb.compaction;

/**
 * RangeReduce (Kaushik, Athanassoulis, Sarkar; {@code seeds/001}) on top of another policy: range
 * scans tell the store where compaction debt (stale versions and tombstones) costs reads, and a
 * partition whose scans keep passing over it is merged whole, so the debt goes.
 *
 * <p><b>The unit rewritten: a whole partition.</b> RangeReduce writes a scanned range back as a
 * merged run. Under a REMIX that saves nothing: the old versions stay in their tables, only marked
 * stale, and every scan still passes over them. Debt leaves a partition only when all the tables
 * holding it are merged (tombstones only when every table of the partition takes part), so the unit
 * is the partition, merged with the new data of the flush that decides it ({@code Major} of every
 * table).
 *
 * <p><b>What scans count.</b> A user cursor walks a partition's REMIX and passes over stale versions
 * and tombstones by their selector bits, without reading them. The engine counts those
 * ({@link PartitionStats#scanSkipped()}) and the entries returned
 * ({@link PartitionStats#scanReturned()}) since the partition's tables last changed.
 *
 * <p><b>The Bounded-Merge test.</b> The base policy's plan becomes a merge of the whole partition
 * when all of these hold (RangeReduce merges a range only when the levels involved are within the
 * ratio rho of each other and each holds at least half a file):
 * <ol>
 *   <li>scans saw enough of the partition: {@code scanSkipped + scanReturned >=}
 *       {@link Builder#minScanned(long)};</li>
 *   <li>scans pay for the debt: {@code scanSkipped >= rho * (scanSkipped + scanReturned)};</li>
 *   <li>the merge pays for itself: the debt is at least {@code rho} of what the merge rewrites
 *       ({@code staleKeys + tombstoneKeys >= rho * tableKeys}). This bounds the price of one merge:
 *       a merge that removes {@code G} bytes of debt writes at most {@code G / rho} bytes, and none
 *       runs while the debt is below that share;</li>
 *   <li>the debt is at least {@link Builder#minDebtFraction(double)} of a table in bytes;</li>
 *   <li>the merged partition fits: it has no more tables than the base plan would leave, even if
 *       nothing is dropped.</li>
 * </ol>
 * Otherwise, and whenever the base plan is Abort or Split (which already merges everything), the
 * base plan stands. rho defaults to 0.1, RangeReduce's 1/T for T = 10.
 *
 * <p><b>Partitions that are only read.</b> A flush asks about the partitions it writes into. A
 * partition that scans keep meeting but writes do not reach is merged by itself when no memtable
 * waits for compaction ({@link #mergeIdle}): the same test, items 1 to 4, and the merged partition
 * must not have more tables than it has now. The base policy's own idle merges
 * ({@link RemixDbPolicy#withIdleMerges()}'s, of partitions with many runs) stay, under this policy's
 * budget.
 *
 * <p><b>The budget.</b> Every byte RangeReduce adds is optional work: at a flush, the merge beyond
 * the base plan (the tables the base plan would have left alone), and every idle merge. The engine
 * lets it happen while the optional bytes stay within {@link Builder#budget(double)} (default 0.1)
 * of what compactions write without them, so the store writes at most that much more than under
 * the base policy alone. Items 3 and 4 decide which merge is worth it; the budget decides how much
 * of that the store affords, the running bound that a per-merge test cannot give.
 *
 * <p>Instances are immutable and thread-safe if the base policy is.
 */
public final class RangeReducePolicy implements CompactionPolicy {
    private final CompactionPolicy base;
    private final double rho;
    private final long minScanned;
    private final double minDebtFraction;
    private final double budget;

    private RangeReducePolicy(Builder b) {
        this.base = b.base;
        this.rho = b.rho;
        this.minScanned = b.minScanned;
        this.minDebtFraction = b.minDebtFraction;
        this.budget = b.budget;
    }

    /**
     * RangeReduce with its default settings over {@code base}.
     *
     * @param base the policy whose plans RangeReduce may widen
     * @return the policy
     * @throws IllegalArgumentException if {@code base} is null
     */
    public static RangeReducePolicy over(CompactionPolicy base) {
        return builder(base).build();
    }

    /**
     * A builder over {@code base}, holding the default settings.
     *
     * @param base the policy whose plans RangeReduce may widen
     * @return the builder
     * @throws IllegalArgumentException if {@code base} is null
     */
    public static Builder builder(CompactionPolicy base) {
        if (base == null) {
            throw new IllegalArgumentException("base policy must not be null");
        }
        return new Builder(base);
    }

    @Override
    public CompactionPlan plan(PartitionStats p) {
        CompactionPlan plan = base.plan(p);
        if (plan instanceof CompactionPlan.Abort || plan instanceof CompactionPlan.Split || !debtWorthMerging(p)) {
            return plan;
        }
        int n = p.tableCount();
        if (plan instanceof CompactionPlan.Major(int k) && k == n) {
            return plan;
        }
        long tablesAfterBase = switch (plan) {
            case CompactionPlan.Major(int k) -> n - k + MajorEstimate.of(p, k).worstTables();
            default -> n + p.newTables();
        };
        return MajorEstimate.of(p, n).worstTables() <= tablesAfterBase ? CompactionPlan.major(n) : plan;
    }

    /** {@return the base policy's plan: everything RangeReduce adds is optional} */
    @Override
    public CompactionPlan requiredPlan(PartitionStats p) {
        return base.plan(p);
    }

    /**
     * Merge a partition that gets no new data when the Bounded-Merge test holds and the merged
     * partition has no more tables than now, even if nothing is dropped.
     */
    @Override
    public boolean mergeIdle(PartitionStats p) {
        int n = p.tableCount();
        boolean debt = n > 0 && p.newKeys() == 0 && debtWorthMerging(p) && MajorEstimate.of(p, n).worstTables() <= n;
        return debt || base.mergeIdle(p);
    }

    /** {@return the optional bytes allowed, a share of what compactions write without them} */
    @Override
    public double optionalWriteBudget() {
        return budget;
    }

    /** The Bounded-Merge test of the class Javadoc, items 1 to 4. Package-private for tests. */
    boolean debtWorthMerging(PartitionStats p) {
        long scanned = p.scanSkipped() + p.scanReturned();
        if (p.tableCount() == 0 || scanned < minScanned || p.scanSkipped() < rho * scanned) {
            return false;
        }
        long keys = p.tableKeys();
        long debt = Math.min(keys, p.staleKeys() + p.tombstoneKeys());
        if (keys == 0 || debt < rho * keys) {
            return false;
        }
        double bytesPerKey = (double) p.tableBytes() / keys;
        return debt * bytesPerKey >= minDebtFraction * p.tableTargetBytes();
    }

    @Override
    public int splitTables() {
        return base.splitTables();
    }

    /** {@return the policy whose plans this one widens} */
    public CompactionPolicy base() {
        return base;
    }

    /** {@return the ratio rho of the Bounded-Merge test} */
    public double rho() {
        return rho;
    }

    /** {@return the fewest scanned entries before scans count} */
    public long minScanned() {
        return minScanned;
    }

    /** {@return the running budget of optional bytes, a share of the bytes written without them} */
    public double budget() {
        return budget;
    }

    /** {@return the least debt worth a merge, as a fraction of the table target} */
    public double minDebtFraction() {
        return minDebtFraction;
    }

    @Override
    public String toString() {
        return "RangeReducePolicy[rho=" + rho + ", minScanned=" + minScanned + ", minDebtFraction=" + minDebtFraction
                + ", budget=" + budget + ", base=" + base + "]";
    }

    /** Builds a {@link RangeReducePolicy}; every setting is checked when it is set. Not thread-safe. */
    public static final class Builder {
        private final CompactionPolicy base;
        private double rho = 0.1;
        private long minScanned = 1000;
        private double minDebtFraction = 0.5;
        private double budget = 0.1;

        private Builder(CompactionPolicy base) {
            this.base = base;
        }

        /**
         * The ratio rho: scans must pass over at least this share of what they visit, and the debt
         * must be at least this share of the partition. Default: 0.1 (RangeReduce's 1/T, T = 10).
         *
         * @param rho {@code 0.001..1}
         * @return this builder
         * @throws IllegalArgumentException if out of range or NaN
         */
        public Builder rho(double rho) {
            if (!(rho >= 0.001 && rho <= 1)) {
                throw new IllegalArgumentException("rho must be in 0.001..1: " + rho);
            }
            this.rho = rho;
            return this;
        }

        /**
         * How many entries scans must have visited in a partition (returned or passed over) before
         * their counts are trusted. Default: 1000.
         *
         * @param entries {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if below 1
         */
        public Builder minScanned(long entries) {
            if (entries < 1) {
                throw new IllegalArgumentException("minScanned must be >= 1: " + entries);
            }
            this.minScanned = entries;
            return this;
        }

        /**
         * The least debt worth a merge, in bytes as a fraction of the table target (RangeReduce
         * asks for at least half a file of qualifying data). Default: 0.5.
         *
         * @param fraction {@code 0..16}
         * @return this builder
         * @throws IllegalArgumentException if out of range or NaN
         */
        public Builder minDebtFraction(double fraction) {
            if (!(fraction >= 0 && fraction <= 16)) {
                throw new IllegalArgumentException("minDebtFraction must be in 0..16: " + fraction);
            }
            this.minDebtFraction = fraction;
            return this;
        }

        /**
         * The running budget of optional bytes: RangeReduce's merges may write at most this share
         * of what the store's compactions write without them (see the class Javadoc). Default: 0.1,
         * at most 10% more bytes written. {@code Double.POSITIVE_INFINITY} takes every merge the
         * test allows.
         *
         * @param share {@code >= 0}
         * @return this builder
         * @throws IllegalArgumentException if negative or NaN
         */
        public Builder budget(double share) {
            if (!(share >= 0)) {
                throw new IllegalArgumentException("budget must be >= 0: " + share);
            }
            this.budget = share;
            return this;
        }

        /** {@return the policy} */
        public RangeReducePolicy build() {
            return new RangeReducePolicy(this);
        }
    }
}
