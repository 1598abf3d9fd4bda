package dev.remixdb.bench.dbbench;

import java.util.Arrays;

/**
 * The values of the db benchmark. A value is a function of (key, generation, seed), so a reader can
 * check every byte it gets back without keeping the data: bytes 0-7 hold the key's integer, bytes
 * 8-11 the generation (which write phase wrote it), the rest pseudo-random filler from both. The
 * header lets a scan check cheaply that each value belongs to its key and is of a generation that
 * may be there; a point read compares every byte.
 */
public final class Values {
    /** Smallest value size: the 12-byte header and at least 4 bytes of filler. */
    public static final int MIN_BYTES = 16;

    private final int size;
    private final long seed;

    public Values(int size, long seed) {
        if (size < MIN_BYTES) {
            throw new IllegalArgumentException("values need at least " + MIN_BYTES + " bytes: " + size);
        }
        this.size = size;
        this.seed = seed;
    }

    /** Bytes per value. */
    public int size() {
        return size;
    }

    /** A buffer of the right size. */
    public byte[] newBuffer() {
        return new byte[size];
    }

    /** Writes the value of key {@code i} at generation {@code gen} into {@code out}. */
    public void fill(long i, int gen, byte[] out) {
        putLong(out, 0, i);
        out[8] = (byte) (gen >>> 24);
        out[9] = (byte) (gen >>> 16);
        out[10] = (byte) (gen >>> 8);
        out[11] = (byte) gen;
        long x = mix(seed ^ mix(i * 0x9e3779b97f4a7c15L + gen));
        int b = 12;
        for (; b + 8 <= size; b += 8) {
            x = mix(x + 0x9e3779b97f4a7c15L);
            putLong(out, b, x);
        }
        x = mix(x + 0x9e3779b97f4a7c15L);
        for (; b < size; b++) {
            out[b] = (byte) x;
            x >>>= 8;
        }
    }

    /** The key integer in a value's header, or -1 when the value is too short to have one. */
    public static long keyOf(byte[] value) {
        return value == null || value.length < 12 ? -1 : getLong(value, 0);
    }

    /** The generation in a value's header, or -1 when the value is too short to have one. */
    public static int genOf(byte[] value) {
        if (value == null || value.length < 12) {
            return -1;
        }
        return (value[8] & 0xff) << 24 | (value[9] & 0xff) << 16 | (value[10] & 0xff) << 8 | (value[11] & 0xff);
    }

    /** Whether {@code value} is exactly key {@code i}'s value at {@code gen}; {@code scratch} is a buffer of {@link #size()}. */
    public boolean matches(long i, int gen, byte[] value, byte[] scratch) {
        if (value == null || value.length != size) {
            return false;
        }
        fill(i, gen, scratch);
        return Arrays.equals(value, scratch);
    }

    /** A 64-bit bijective mixer (the SplitMix64 finalizer constants). */
    static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }

    private static void putLong(byte[] out, int at, long x) {
        for (int b = 0; b < 8; b++) {
            out[at + b] = (byte) (x >>> (56 - 8 * b));
        }
    }

    private static long getLong(byte[] in, int at) {
        long x = 0;
        for (int b = 0; b < 8; b++) {
            x = (x << 8) | (in[at + b] & 0xff);
        }
        return x;
    }
}
