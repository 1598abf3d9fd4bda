package dev.remixdb.bench.micro;

/**
 * One measurement: an index running one phase on one dataset.
 *
 * @param opsPerSec           throughput: the median of the measurement's slices
 * @param minOpsPerSec        the slowest slice's rate
 * @param maxOpsPerSec        the fastest slice's rate (the spread shows how noisy the machine was)
 * @param segment             D of the REMIX, or 0 for the baselines (no segments)
 * @param keys                keys in the dataset ({@code runs * keysPerRun})
 * @param keyComparisonsPerOp full-key comparisons per operation, from the untimed checking pass
 * @param copiedFrom          null when measured on this locality's own dataset; for H = 1 (where
 *                            locality means nothing) the locality whose measurement is repeated here
 */
public record Result(Phase phase, String index, int runs, String locality, int segment, long keys,
                     double opsPerSec, double minOpsPerSec, double maxOpsPerSec, double keyComparisonsPerOp,
                     long ops, double seconds, String copiedFrom) {

    /** Whether this is a REMIX (has a segment size). */
    public boolean isRemix() {
        return segment > 0;
    }

    /** The same measurement reported under another locality (for H = 1). */
    Result copyTo(String otherLocality) {
        return new Result(phase, index, runs, otherLocality, segment, keys, opsPerSec, minOpsPerSec, maxOpsPerSec,
                keyComparisonsPerOp,
                ops, seconds, locality);
    }
}
