package dev.remixdb.bench.dbbench;

/**
 * A pseudo-random bijection of [0, n), computed per element in O(1) memory: a 4-round Feistel
 * network over the smallest even number of bits that covers n, with cycle walking (an output of n or
 * more is fed back in until it falls inside; it always does, since the network is a bijection of a
 * range at most 4n wide). It gives the shuffled load order, the keys to delete (distinct by
 * construction) and the scattering of Zipfian ranks, identically in every process for a seed,
 * without a 4M-entry array per use.
 */
public final class Permutation {
    private static final int ROUNDS = 4;

    private final long n;
    private final int halfBits;
    private final long halfMask;
    private final long[] roundKeys = new long[ROUNDS];

    public Permutation(long n, long seed) {
        if (n < 1) {
            throw new IllegalArgumentException("a permutation needs n >= 1: " + n);
        }
        this.n = n;
        int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(n - 1));
        this.halfBits = (bits + 1) / 2;
        this.halfMask = (1L << halfBits) - 1;
        long s = seed;
        for (int r = 0; r < ROUNDS; r++) {
            s = Values.mix(s + 0x9e3779b97f4a7c15L);
            roundKeys[r] = s;
        }
    }

    /** Size of the permuted range. */
    public long size() {
        return n;
    }

    /** The element at position {@code i} (0 <= i < n). */
    public long apply(long i) {
        if (i < 0 || i >= n) {
            throw new IndexOutOfBoundsException("position " + i + " outside [0, " + n + ")");
        }
        long x = i;
        do {
            x = feistel(x);
        } while (x >= n);
        return x;
    }

    private long feistel(long x) {
        long left = x >>> halfBits;
        long right = x & halfMask;
        for (int r = 0; r < ROUNDS; r++) {
            long next = left ^ (Values.mix(right ^ roundKeys[r]) & halfMask);
            left = right;
            right = next;
        }
        return (left << halfBits) | right;
    }
}
