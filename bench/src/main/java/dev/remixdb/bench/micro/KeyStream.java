package dev.remixdb.bench.micro;

/**
 * Uniformly random key indexes in {@code [0, n)} from a fixed seed (SplitMix64, then a multiply-high
 * to map onto the range). Allocation-free, so that drawing a key costs the same few nanoseconds for
 * every index under test.
 */
final class KeyStream {
    private final long n;
    private long state;

    KeyStream(long n, long seed) {
        if (n < 1) {
            throw new IllegalArgumentException("need at least one key: " + n);
        }
        this.n = n;
        this.state = seed;
    }

    long next() {
        long z = (state += 0x9E37_79B9_7F4A_7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        z ^= z >>> 31;
        return Math.unsignedMultiplyHigh(z, n);
    }
}
