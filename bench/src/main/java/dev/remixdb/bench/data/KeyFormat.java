package dev.remixdb.bench.data;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The keys and values of a benchmark dataset, computed from a key's index so that nothing per key is
 * kept on the heap and every answer can be checked.
 *
 * <p>Key {@code i} of {@code n} is the 16 lowercase hex digits of {@code i * floor((2^64 - 1) / n)}:
 * 16 bytes (REMIX §5.1 uses 16-byte keys), strictly increasing with {@code i}, and spread over the
 * whole key space so that keys differ early and anchors are short, as with random keys. Value {@code i}
 * is {@link #VALUE_BYTES} bytes: {@code i} big-endian, then words derived from {@code i}. (Not to be
 * confused with core's {@code dev.remixdb.KeyCodec}, which encodes typed keys of the public API.)
 */
public final class KeyFormat {
    /** Key size in bytes (REMIX §5.1). */
    public static final int KEY_BYTES = 16;
    /** Value size in bytes (REMIX §5.1). */
    public static final int VALUE_BYTES = 100;

    private static final ValueLayout.OfLong LONG_BE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_BE =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final long LOW_NIBBLES = 0x0F0F_0F0F_0F0F_0F0FL;
    private static final long ONES = 0x0101_0101_0101_0101L;

    private final long count;
    private final long step;

    /** The key format of a dataset of {@code count >= 1} keys. */
    public KeyFormat(long count) {
        if (count < 1) {
            throw new IllegalArgumentException("a dataset needs at least one key: " + count);
        }
        this.count = count;
        if (count > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("too many keys: " + count);
        }
        this.step = Long.divideUnsigned(-1L, count);
    }

    /** Number of keys in the dataset. */
    public long count() {
        return count;
    }

    /** Writes key {@code index} ({@link #KEY_BYTES} bytes) at {@code dst[off]}. Allocation-free. */
    public void writeKey(MemorySegment dst, long off, long index) {
        long v = index * step;
        dst.set(LONG_BE, off, hex8(v >>> 32));
        dst.set(LONG_BE, off + 8, hex8(v & 0xFFFF_FFFFL));
    }

    /**
     * Writes a key that is not in the dataset and sorts strictly between key {@code index} and key
     * {@code index + 1} (after the last key when {@code index} is the last), for checks of misses.
     */
    public void writeAbsentKey(MemorySegment dst, long off, long index) {
        long v = index * step + (step >>> 1);
        dst.set(LONG_BE, off, hex8(v >>> 32));
        dst.set(LONG_BE, off + 8, hex8(v & 0xFFFF_FFFFL));
    }

    /** Writes value {@code index} ({@link #VALUE_BYTES} bytes) at {@code dst[off]}. Allocation-free. */
    public void writeValue(MemorySegment dst, long off, long index) {
        dst.set(LONG_BE, off, index);
        long w = index * 0x9E37_79B9_7F4A_7C15L;
        int at = 8;
        for (; at + 8 <= VALUE_BYTES; at += 8) {
            w = (w ^ (w >>> 29)) * 0xBF58_476D_1CE4_E5B9L + at;
            dst.set(LONG_BE, off + at, w);
        }
        dst.set(INT_BE, off + at, (int) w);
    }

    /** Key {@code index} as a new array (for tests and checks, not hot paths). */
    public byte[] key(long index) {
        byte[] k = new byte[KEY_BYTES];
        writeKey(MemorySegment.ofArray(k), 0, index);
        return k;
    }

    /** Value {@code index} as a new array (for tests and checks, not hot paths). */
    public byte[] value(long index) {
        byte[] v = new byte[VALUE_BYTES];
        writeValue(MemorySegment.ofArray(v), 0, index);
        return v;
    }

    /**
     * Eight hex digits of the low 32 bits of {@code u}, as eight ASCII bytes in a big-endian long:
     * spread each nibble into its own byte, then add '0' and, for nibbles of 10 and more, 'a' - '0' - 10.
     */
    private static long hex8(long u) {
        long x = u & 0xFFFF_FFFFL;
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFFL;
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FFL;
        x = (x | (x << 4)) & LOW_NIBBLES;
        long letters = ((x + 0x0606_0606_0606_0606L) >>> 4) & ONES;
        return x + 0x3030_3030_3030_3030L + letters * ('a' - '0' - 10);
    }
}
