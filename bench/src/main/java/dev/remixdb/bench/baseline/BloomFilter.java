package dev.remixdb.bench.baseline;

import dev.remixdb.remix.Keys;
import dev.remixdb.remix.Run;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.remix.RunCursor;

/**
 * A standard Bloom filter over {@link Keys#hash64} values, as an SSTable keeps per table (REMIX §5.1:
 * 10 bits/key). Probe i sets bit {@code (h1 + i*h2) mod m} with h1 the hash and h2 its halves swapped
 * (double hashing, Kirsch and Mitzenmacher), mapped to [0, m) by a multiply-high instead of a
 * division. k = round(bitsPerKey * ln 2) probes, 7 for 10 bits/key (about 0.8% false positives).
 * The bits are a heap {@code long[]}; immutable once built and safe for concurrent readers.
 */
public final class BloomFilter {
    private final long[] words;
    private final long bits;
    private final int probes;

    private BloomFilter(long keys, int bitsPerKey) {
        if (bitsPerKey < 1 || bitsPerKey > 64) {
            throw new IllegalArgumentException("bits per key must be in 1..64: " + bitsPerKey);
        }
        long wanted = Math.max(64, Math.multiplyExact(Math.max(1, keys), (long) bitsPerKey));
        long nWords = (wanted + 63) >>> 6;
        if (nWords > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("Bloom filter too large for " + keys + " keys");
        }
        this.words = new long[(int) nWords];
        this.bits = nWords << 6;
        this.probes = (int) Math.max(1, Math.min(30, Math.round(bitsPerKey * Math.log(2))));
    }

    /** An empty filter sized for {@code keys} keys. */
    public static BloomFilter create(long keys, int bitsPerKey) {
        return new BloomFilter(keys, bitsPerKey);
    }

    /** A filter holding every key of {@code run}. */
    public static BloomFilter of(Run run, int bitsPerKey) {
        BloomFilter f = new BloomFilter(run.keyCount(), bitsPerKey);
        try (RunCursor c = run.newCursor()) {
            for (c.seekTo(RunAddress.of(0, 0)); c.isValid(); c.next()) {
                f.add(Keys.hash64(c.keySegment(), c.keyOffset(), c.keyLength()));
            }
        }
        return f;
    }

    /** Adds a key by its {@link Keys#hash64}. */
    public void add(long hash) {
        long h = hash;
        long step = Long.rotateLeft(hash, 32) | 1;
        for (int i = 0; i < probes; i++) {
            long bit = Math.unsignedMultiplyHigh(h, bits);
            words[(int) (bit >>> 6)] |= 1L << bit;
            h += step;
        }
    }

    /** False when the key was certainly never added; true when it may have been. */
    public boolean mightContain(long hash) {
        long h = hash;
        long step = Long.rotateLeft(hash, 32) | 1;
        for (int i = 0; i < probes; i++) {
            long bit = Math.unsignedMultiplyHigh(h, bits);
            if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
            h += step;
        }
        return true;
    }

    /** Number of probes per key (k). */
    public int probes() {
        return probes;
    }

    /** Bytes of filter bits. */
    public long sizeBytes() {
        return (long) words.length * Long.BYTES;
    }
}
