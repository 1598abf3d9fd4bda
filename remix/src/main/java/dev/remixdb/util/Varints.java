package dev.remixdb.util;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Unsigned LEB128 varints of non-negative ints: seven bits a byte, low bits first, the top bit set on
 * every byte but the last. A format that stores them names its own longest encoding (the table
 * format four bytes, the WAL five) and passes it to {@link #get}, so an over-long varint in a damaged
 * file is refused rather than read past.
 */
public final class Varints {
    /** The longest encoding of an int: five bytes carry 35 bits. */
    public static final int MAX_BYTES = 5;

    private Varints() {}

    /** Bytes of {@code v >= 0} as a varint: 1 to 5. */
    public static int size(int v) {
        return v < 1 << 7 ? 1 : v < 1 << 14 ? 2 : v < 1 << 21 ? 3 : v < 1 << 28 ? 4 : 5;
    }

    /** Writes {@code v >= 0} at {@code at}; returns the offset after it. */
    public static long put(MemorySegment s, long at, int v) {
        while (v >= 0x80) {
            s.set(ValueLayout.JAVA_BYTE, at++, (byte) (v | 0x80));
            v >>>= 7;
        }
        s.set(ValueLayout.JAVA_BYTE, at++, (byte) v);
        return at;
    }

    /**
     * Reads a varint of at most {@code maxBytes} bytes at {@code at}, not reading at or past
     * {@code limit}. Returns {@code value << 3 | size}, or -1 when it is cut off by the limit, longer
     * than {@code maxBytes}, or (at five bytes) larger than {@link Integer#MAX_VALUE}.
     */
    public static long get(MemorySegment s, long at, long limit, int maxBytes) {
        long value = 0;
        for (int i = 0; i < maxBytes && at + i < limit; i++) {
            int b = s.get(ValueLayout.JAVA_BYTE, at + i);
            value |= (long) (b & 0x7F) << (7 * i);
            if (b >= 0) {
                return value > Integer.MAX_VALUE ? -1 : value << 3 | (i + 1);
            }
        }
        return -1;
    }
}
