package dev.remixdb.remix;

/**
 * How a REMIX is built: the segment size D and whether it stores hash tags.
 *
 * @param segmentSize D, the number of slots per segment: 16, 32 or 64. It must be at least the
 *                    number of runs, so that every version of a key fits in one segment (REMIX §4.1).
 *                    Default: 32.
 * @param tags        store one 8-bit hash tag per slot so a point lookup compares full keys only on
 *                    tag matches (C RemixDB README). Default: true.
 */
public record RemixConfig(int segmentSize, boolean tags) {
    public static final RemixConfig DEFAULT = new RemixConfig(32, true);

    public RemixConfig {
        if (segmentSize != 16 && segmentSize != 32 && segmentSize != 64) {
            throw new IllegalArgumentException("segment size must be 16, 32 or 64: " + segmentSize);
        }
    }

    /** The smallest default-like config that can index {@code runs} runs (D grows to 64 when needed). */
    public static RemixConfig forRuns(int runs, boolean tags) {
        return new RemixConfig(runs <= 32 ? 32 : 64, tags);
    }
}
