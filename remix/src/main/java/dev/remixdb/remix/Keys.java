package dev.remixdb.remix;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Key comparison and hashing over (segment, offset, length) triples, allocation-free: the one
 * home of the store's key order (unsigned lexicographic).
 */
public final class Keys {
    static final ValueLayout.OfLong LONG_BE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Keys() {}

    /**
     * Unsigned lexicographic comparison of {@code a[aOff, aOff+aLen)} and {@code b[bOff, bOff+bLen)};
     * a proper prefix sorts first. Negative, zero or positive like {@link Comparable#compareTo}.
     */
    public static int compare(MemorySegment a, long aOff, int aLen, MemorySegment b, long bOff, int bLen) {
        int n = Math.min(aLen, bLen);
        int i = 0;
        // Eight bytes at a time read big-endian compare like the bytes themselves, unsigned.
        for (; i + 8 <= n; i += 8) {
            long x = a.get(LONG_BE, aOff + i);
            long y = b.get(LONG_BE, bOff + i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < n; i++) {
            int x = Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, aOff + i));
            int y = Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bOff + i));
            if (x != y) {
                return x - y;
            }
        }
        return Integer.compare(aLen, bLen);
    }

    /**
     * Whether {@code a[aOff, aOff+len)} and {@code b[bOff, bOff+len)} hold the same bytes. Eight bytes
     * at a time: for the short keys of a store this beats {@link MemorySegment#mismatch}, whose setup
     * costs more than the comparison itself.
     */
    public static boolean equal(MemorySegment a, long aOff, MemorySegment b, long bOff, int len) {
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            if (a.get(LONG_LE, aOff + i) != b.get(LONG_LE, bOff + i)) {
                return false;
            }
        }
        for (; i < len; i++) {
            if (a.get(ValueLayout.JAVA_BYTE, aOff + i) != b.get(ValueLayout.JAVA_BYTE, bOff + i)) {
                return false;
            }
        }
        return true;
    }

    /** Unsigned lexicographic comparison of two byte arrays, the same order as the segment form. */
    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /** Compares two whole segments. */
    public static int compare(MemorySegment a, MemorySegment b) {
        return compare(a, 0, Math.toIntExact(a.byteSize()), b, 0, Math.toIntExact(b.byteSize()));
    }

    /**
     * The 8 key bytes after the first {@code skip}, big-endian and zero-padded: for keys that share
     * their first {@code skip} bytes, a larger head means a larger key, and equal heads mean the
     * keys must be compared in full (they may still differ after these bytes, or in length).
     */
    public static long head(MemorySegment key, long off, int len, int skip) {
        int rest = len - skip;
        if (rest >= 8) {
            return key.get(LONG_BE, off + skip);
        }
        if (rest <= 0) {
            return 0;
        }
        if (len >= 8) {
            // The key's last 8 bytes end with the wanted ones: shift them to the top, zeros below.
            return key.get(LONG_BE, off + len - 8) << (8 * (8 - rest));
        }
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = p << 8 | (i < rest ? Byte.toUnsignedLong(key.get(ValueLayout.JAVA_BYTE, off + skip + i)) : 0);
        }
        return p;
    }

    /** Length of the longest common prefix of the two keys (eight bytes at a time, like {@link #compare}). */
    public static int commonPrefix(MemorySegment a, long aOff, int aLen, MemorySegment b, long bOff, int bLen) {
        int n = Math.min(aLen, bLen);
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long x = a.get(LONG_BE, aOff + i);
            long y = b.get(LONG_BE, bOff + i);
            if (x != y) {
                // Big-endian words: the first differing byte holds the highest differing bit.
                return i + Long.numberOfLeadingZeros(x ^ y) / 8;
            }
        }
        for (; i < n; i++) {
            if (a.get(ValueLayout.JAVA_BYTE, aOff + i) != b.get(ValueLayout.JAVA_BYTE, bOff + i)) {
                return i;
            }
        }
        return n;
    }

    /** A short printable form of a key for messages: hex, cut after 32 bytes. */
    public static String toString(MemorySegment key, long off, int len) {
        int shown = Math.min(len, 32);
        byte[] b = key.asSlice(off, shown).toArray(ValueLayout.JAVA_BYTE);
        return "0x" + HexFormat.of().formatHex(b) + (shown < len ? "...(" + len + " bytes)" : "");
    }

    /** A short printable form of a key for messages; see {@link #toString(MemorySegment, long, int)}. */
    public static String toString(byte[] key) {
        return toString(MemorySegment.ofArray(key), 0, key.length);
    }

    /**
     * A 64-bit hash of the key (multiply-xorshift over 8-byte words, then a final avalanche).
     * Used for the REMIX hash tags and for Bloom filters; stable across runs and versions because
     * tags are persisted in REMIX files.
     */
    public static long hash64(MemorySegment key, long off, int len) {
        long h = 0x9E3779B97F4A7C15L ^ (len * 0xC2B2AE3D27D4EB4FL);
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            long w = key.get(LONG_LE, off + i);
            h = (h ^ mixWord(w)) * 0x9FB21C651E98DF25L;
            h ^= h >>> 29;
        }
        long tail = 0;
        for (int s = 0; i < len; i++, s += 8) {
            tail |= (long) Byte.toUnsignedInt(key.get(ValueLayout.JAVA_BYTE, off + i)) << s;
        }
        h = (h ^ mixWord(tail)) * 0x9FB21C651E98DF25L;
        return avalanche(h);
    }

    /** The 8-bit REMIX hash tag of a key: one byte of {@link #hash64}. */
    public static byte tag(MemorySegment key, long off, int len) {
        return (byte) (hash64(key, off, len) >>> 56);
    }

    private static long mixWord(long w) {
        w *= 0xBF58476D1CE4E5B9L;
        return w ^ (w >>> 31);
    }

    private static long avalanche(long h) {
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        return h ^ (h >>> 33);
    }
}
