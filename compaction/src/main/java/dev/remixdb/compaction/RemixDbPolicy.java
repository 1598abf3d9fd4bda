package dev.remixdb.compaction;

/**
 * RemixDB's compaction policy (REMIX paper §4.2) with its own cost model for Major compactions.
 * For one partition, in this order:
 * <ol>
 *   <li><b>Abort</b> if there is no new data, or if the new data is smaller than
 *       {@link #abortBelowFraction()} of a table and fits the round's abort budget: a tiny table
 *       would cost a full REMIX rebuild for little data, so the data waits in the memtable.</li>
 *   <li><b>Minor</b> if the new tables fit: {@code tableCount + newTables <= maxTables}.</li>
 *   <li><b>Split</b> if the partition holds more than {@code maxTables} tables of live data, or if
 *       no Major leaves room for the next round's Minor. Such a partition is full of large tables
 *       (the paper's "low input/output ratio such as 10/9"): a Major now would only be followed by
 *       another at the next flush.</li>
 *   <li>Otherwise <b>Major(k)</b> with the lowest score among the k that leave that room.</li>
 * </ol>
 *
 * <p><b>Cost model.</b> A Major buys free table slots, and each free slot lets a later flush be a
 * cheap Minor. So the score of Major(k) is the write amplification amortised over the cycle it
 * starts: this Major plus the {@code m = free slots / newTables} Minors that can follow before the
 * partition is full again, assuming later flushes bring as much data as this one:
 * <pre>
 *   wa(k)    = (written(k) + remix + m * (newBytes + remix)) / ((1 + m) * newBytes)
 *   score(k) = wa(k) + runCost * runsAfter(k)
 * </pre>
 * where {@code written(k)} is the expected output (stale versions and, for a full merge, tombstones
 * dropped), {@code remix = remixBytesPerKey * entries} the REMIX rebuilt after each compaction, and
 * the second term charges every run left in the partition, because every run slows seeks and
 * point lookups. The lowest score wins; ties go to the smaller k, which rewrites less. The REMIX
 * term adds the same {@code remix / newBytes} to every k except through the entries a merge drops;
 * it keeps the scale of {@code wa} true, so that {@code runCost} weighs against real amplification.
 * With equal output sizes per byte merged, the model reproduces the paper's rule of thumb: merge
 * the small newest tables that fold into few outputs, stop before a large one (its Figure 9).
 *
 * <p><b>Idle merges of scanned partitions (off in {@link #defaults()}, on in
 * {@link #withIdleMerges()}).</b> Each flush into a partition adds a sorted run that overlaps the
 * others, and a range scan reads a block in every run it meets. In memory the REMIX makes that
 * cheap; once the data is larger than the caches every run costs a device read per scan (at 16M
 * keys, direct I/O: 8 blocks per 50-entry scan against RocksDB's 4). With
 * {@link Builder#idleMergeRuns(int)} set, when no memtable waits, a partition with at least that
 * many sorted runs that scans have walked since its tables last changed (at least
 * {@link Builder#idleMergeScanned(double)} of its entries, and at least
 * {@value #IDLE_MERGE_MIN_SCANNED}) is merged whole into one run. That is optional work, bounded by
 * {@link Builder#optionalWriteBudget(double)}: a store that is only written, or only read point by
 * point, never pays for it. It is off by default because in memory it costs more than it saves:
 * on two cores, YCSB E with the merges running fell to 0.70x RocksDB, where it runs at 1.14x
 * without them. The engine turns it on for stores with direct I/O, whose block cache is the only
 * cache.
 *
 * <p>Validity never relies on estimates: a Major is considered only if its result has at most
 * {@code maxTables} tables even when nothing is dropped. A full partition whose tables are mostly
 * stale therefore gets a Split; since a Split merges everything it drops that garbage too, and if
 * little is left it yields a single partition.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class RemixDbPolicy implements CompactionPolicy {
    /** The largest number of runs one REMIX can index (6-bit run ids in the selectors). */
    public static final int MAX_RUNS = 63;

    /** Scanned entries below which no partition is merged for its scans, whatever its size. */
    public static final long IDLE_MERGE_MIN_SCANNED = 1_000;

    /** The number of runs from which {@link #withIdleMerges()} merges a scanned partition. */
    public static final int IDLE_MERGE_RUNS = 5;

    private static final RemixDbPolicy DEFAULTS = builder().build();
    private static final RemixDbPolicy WITH_IDLE_MERGES = builder().idleMergeRuns(IDLE_MERGE_RUNS).build();

    private final int maxTables;
    private final int splitTables;
    private final double abortBelowFraction;
    private final double runCost;
    private final double remixBytesPerKey;
    private final int idleMergeRuns;
    private final double idleMergeScanned;
    private final double optionalWriteBudget;

    private RemixDbPolicy(Builder b) {
        this.maxTables = b.maxTables;
        this.splitTables = b.splitTables;
        this.abortBelowFraction = b.abortBelowFraction;
        this.runCost = b.runCost;
        this.remixBytesPerKey = b.remixBytesPerKey;
        this.idleMergeRuns = b.idleMergeRuns;
        this.idleMergeScanned = b.idleMergeScanned;
        this.optionalWriteBudget = b.optionalWriteBudget;
    }

    /** {@return a builder holding the default settings} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the policy with every setting at its default} */
    public static RemixDbPolicy defaults() {
        return DEFAULTS;
    }

    /**
     * {@return the defaults plus idle merges of scanned partitions of {@value #IDLE_MERGE_RUNS} or
     * more runs (see the class Javadoc): for data larger than memory that is scanned}
     */
    public static RemixDbPolicy withIdleMerges() {
        return WITH_IDLE_MERGES;
    }

    @Override
    public CompactionPlan plan(PartitionStats p) {
        if (p.newKeys() == 0) {
            return CompactionPlan.ABORT; // nothing to write; the REMIX stays as it is
        }
        if (p.newBytes() <= p.abortBudgetBytes() && p.newBytes() < abortBelowFraction * p.tableTargetBytes()) {
            return CompactionPlan.ABORT;
        }
        long newTables = p.newTables();
        int n = p.tableCount();
        if (n + newTables <= maxTables) {
            return CompactionPlan.MINOR;
        }
        if (PartitionStats.tablesFor(MajorEstimate.of(p, n).expectedBytes(), p.tableTargetBytes()) > maxTables) {
            return CompactionPlan.SPLIT; // too much live data for one partition, however merged
        }
        MajorEstimate best = null;
        double bestScore = Double.POSITIVE_INFINITY;
        for (int k = 1; k <= n; k++) {
            MajorEstimate e = MajorEstimate.of(p, k);
            if (!e.validFor(p, maxTables) || maxTables - e.runsAfter() < newTables) {
                continue;
            }
            double score = score(p, e, newTables);
            if (score < bestScore) {
                best = e;
                bestScore = score;
            }
        }
        return best == null ? CompactionPlan.SPLIT : CompactionPlan.major(best.k());
    }

    /**
     * Whether a partition that no new data reaches should be merged whole now because scans keep
     * walking its many runs (see the class Javadoc). Even if no stale version were dropped, the
     * merged partition has at most {@link #maxTables()} tables (or no more than now): a larger one is
     * a Split's business, at its next flush.
     */
    @Override
    public boolean mergeIdle(PartitionStats p) {
        int n = p.tableCount();
        if (idleMergeRuns == 0 || n == 0 || p.newKeys() != 0 || p.runTables().length < idleMergeRuns) {
            return false;
        }
        long scanned = p.scanSkipped() + p.scanReturned();
        return scanned >= IDLE_MERGE_MIN_SCANNED && scanned >= idleMergeScanned * p.tableKeys()
                && MajorEstimate.of(p, n).worstTables() <= Math.max(n, maxTables);
    }

    /**
     * {@return the optional bytes idle merges may write, a share of what compactions write without
     * them; 0 when idle merges are off, so that the engine does not look for them}
     */
    @Override
    public double optionalWriteBudget() {
        return idleMergeRuns == 0 ? 0 : optionalWriteBudget;
    }

    /**
     * The cost model's score of a Major (lower is better); see the class Javadoc. Package-private
     * so that tests can check the ranking it induces.
     */
    double score(PartitionStats p, MajorEstimate e, long newTables) {
        double newBytes = Math.max(1, p.newBytes());
        double remix = remixBytesPerKey * e.keysAfter();
        long minorsAfter = (maxTables - e.runsAfter()) / newTables;
        double written = e.expectedBytes() + remix + minorsAfter * (newBytes + remix);
        double wa = written / ((1 + minorsAfter) * newBytes);
        return wa + runCost * e.runsAfter();
    }

    /** {@return the most tables a partition may have (the paper's T)} */
    public int maxTables() {
        return maxTables;
    }

    /** {@return the number of tables per new partition after a Split (the paper's M)} */
    @Override
    public int splitTables() {
        return splitTables;
    }

    /** {@return the fraction of a table below which new data may be aborted} */
    public double abortBelowFraction() {
        return abortBelowFraction;
    }

    /** {@return the cost of one run left in a partition, in units of write amplification} */
    public double runCost() {
        return runCost;
    }

    /** {@return the estimated REMIX size per entry, in bytes} */
    public double remixBytesPerKey() {
        return remixBytesPerKey;
    }

    /** {@return the sorted runs from which a scanned partition is merged when idle; 0: never} */
    public int idleMergeRuns() {
        return idleMergeRuns;
    }

    /** {@return the share of a partition's entries that scans must walk before it is merged when idle} */
    public double idleMergeScanned() {
        return idleMergeScanned;
    }

    @Override
    public String toString() {
        return "RemixDbPolicy[maxTables=" + maxTables + ", splitTables=" + splitTables
                + ", abortBelowFraction=" + abortBelowFraction + ", runCost=" + runCost
                + ", remixBytesPerKey=" + remixBytesPerKey + ", idleMergeRuns=" + idleMergeRuns
                + ", idleMergeScanned=" + idleMergeScanned + ", optionalWriteBudget=" + optionalWriteBudget + "]";
    }

    /** Builds a {@link RemixDbPolicy}; every setting is checked when it is set. Not thread-safe. */
    public static final class Builder {
        private int maxTables = 10;
        private int splitTables = 2;
        private double abortBelowFraction = 0.125;
        private double runCost = 0.1;
        private double remixBytesPerKey = 5;
        private int idleMergeRuns = 0;
        private double idleMergeScanned = 0.05;
        private double optionalWriteBudget = 1.0;

        private Builder() {}

        /**
         * The most tables (runs) a partition may have, the paper's T. More runs make Minor
         * compactions last longer before a merge, at the cost of slower reads.
         * Default: 10, the paper's value.
         *
         * @param maxTables {@code 2..63} (a REMIX indexes at most 63 runs)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxTables(int maxTables) {
            if (maxTables < 2 || maxTables > MAX_RUNS) {
                throw new IllegalArgumentException("maxTables must be in 2.." + MAX_RUNS + ": " + maxTables);
            }
            this.maxTables = maxTables;
            return this;
        }

        /**
         * Tables per new partition after a Split, the paper's M. Small values leave room for many
         * Minor compactions in the new partitions; 1 makes many tiny partitions.
         * Default: 2, the paper's value.
         *
         * @param splitTables {@code 1..62}, and below {@link #maxTables(int)} (checked by
         *                    {@link #build()}, so the two may be set in any order)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder splitTables(int splitTables) {
            if (splitTables < 1 || splitTables >= MAX_RUNS) {
                throw new IllegalArgumentException("splitTables must be in 1.." + (MAX_RUNS - 1) + ": " + splitTables);
            }
            this.splitTables = splitTables;
            return this;
        }

        /**
         * New data smaller than this fraction of the table target may be aborted (kept in memory)
         * when the round's budget allows: writing it would make a small table and rebuild the
         * whole REMIX for it. 0 disables Abort except when there is no new data.
         * Default: 0.125 (8 MiB of new data for 64 MiB tables).
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
         * What one run left in a partition costs in the Major score, in units of write
         * amplification: higher values trade more rewriting for fewer runs to read.
         * Default: 0.1 (ten runs weigh as much as one extra write of the new data).
         *
         * @param runCost finite, {@code >= 0}
         * @return this builder
         * @throws IllegalArgumentException if negative, infinite or NaN
         */
        public Builder runCost(double runCost) {
            if (!(runCost >= 0 && runCost < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("runCost must be finite and >= 0: " + runCost);
            }
            this.runCost = runCost;
            return this;
        }

        /**
         * Estimated REMIX bytes per entry, used to charge the rebuild that follows every
         * compaction. The paper measures 1.0 to 5.4 bytes per key, plus one with hash tags.
         * Default: 5.
         *
         * @param bytes finite, {@code >= 0}
         * @return this builder
         * @throws IllegalArgumentException if negative, infinite or NaN
         */
        public Builder remixBytesPerKey(double bytes) {
            if (!(bytes >= 0 && bytes < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("remixBytesPerKey must be finite and >= 0: " + bytes);
            }
            this.remixBytesPerKey = bytes;
            return this;
        }

        /**
         * The number of sorted runs (tables that overlap in key range; one merge's output is one run)
         * from which a partition that scans keep walking is merged whole when no memtable waits.
         * Fewer runs mean fewer blocks per scan once data is larger than the caches; each merge
         * rewrites the partition once. Default: 0 (off); {@link #withIdleMerges()} uses
         * {@value #IDLE_MERGE_RUNS}.
         *
         * @param runs {@code 2..63}, or 0 to never merge a partition for its scans
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder idleMergeRuns(int runs) {
            if (runs != 0 && (runs < 2 || runs > MAX_RUNS)) {
                throw new IllegalArgumentException("idleMergeRuns must be 0 or in 2.." + MAX_RUNS + ": " + runs);
            }
            this.idleMergeRuns = runs;
            return this;
        }

        /**
         * How much of a partition scans must walk (entries returned or passed over, as a share of its
         * entries, since its tables last changed) before {@link #idleMergeRuns(int)} merges it: the
         * evidence that scans go on there. Never fewer than {@value #IDLE_MERGE_MIN_SCANNED} entries.
         * Default: 0.05.
         *
         * @param fraction finite, {@code >= 0}
         * @return this builder
         * @throws IllegalArgumentException if negative, infinite or NaN
         */
        public Builder idleMergeScanned(double fraction) {
            if (!(fraction >= 0 && fraction < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("idleMergeScanned must be finite and >= 0: " + fraction);
            }
            this.idleMergeScanned = fraction;
            return this;
        }

        /**
         * How many bytes idle merges may write, as a share of what the store's compactions write
         * without them: the bound on what {@link #idleMergeRuns(int)} can cost. 0 turns idle merges
         * off. Default: 1 (idle merges write at most as much as the store's tables at open plus what
         * the required compactions wrote since); unused while {@link #idleMergeRuns(int)} is 0.
         *
         * @param share finite, {@code >= 0}
         * @return this builder
         * @throws IllegalArgumentException if negative, infinite or NaN
         */
        public Builder optionalWriteBudget(double share) {
            if (!(share >= 0 && share < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("optionalWriteBudget must be finite and >= 0: " + share);
            }
            this.optionalWriteBudget = share;
            return this;
        }

        /**
         * Builds the policy, checking the settings against each other.
         *
         * @return the policy with the settings of this builder
         * @throws IllegalArgumentException if {@code splitTables >= maxTables}: a Split would then
         *                                  make partitions as full as the one it splits
         */
        public RemixDbPolicy build() {
            if (splitTables >= maxTables) {
                throw new IllegalArgumentException(
                        "splitTables (" + splitTables + ") must be < maxTables (" + maxTables + ")");
            }
            return new RemixDbPolicy(this);
        }
    }
}
