package dev.remixdb.bench.dbbench;

/**
 * The keys of the db benchmark: key {@code i} is {@code String.format("%016x", i)} as 16 ASCII
 * bytes, as in the workload. Fixed-width hex keeps the byte order equal to the integer
 * order, so the benchmark can say which key a seek must land on without asking the store. Written
 * by hand because {@code String.format} per operation would cost more than some store operations.
 */
public final class Keys {
    /** Bytes of every present key. */
    public static final int BYTES = 16;

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private Keys() {}

    /** Writes key {@code i} into {@code out[0..16)}. */
    public static void format(long i, byte[] out) {
        for (int b = BYTES - 1; b >= 0; b--) {
            out[b] = HEX[(int) (i & 15)];
            i >>>= 4;
        }
    }

    /** Key {@code i} as a new array. */
    public static byte[] of(long i) {
        byte[] k = new byte[BYTES];
        format(i, k);
        return k;
    }

    /**
     * A key that no load writes and that sorts right after key {@code i} and before key
     * {@code i + 1}: key {@code i} followed by {@code '!'} (17 bytes). Used by readmissing.
     */
    public static void formatMissing(long i, byte[] out17) {
        format(i, out17);
        out17[BYTES] = '!';
    }

    /** The integer of a 16-byte lowercase hex key, or -1 when {@code key} is not one. */
    /** {@link #parse(byte[])} of a view. */
    public static long parse(java.lang.foreign.MemorySegment key) {
        if (key.byteSize() != BYTES) {
            return -1;
        }
        long x = 0;
        for (int b = 0; b < BYTES; b++) {
            int d = digit(key.get(java.lang.foreign.ValueLayout.JAVA_BYTE, b));
            if (d < 0) {
                return -1;
            }
            x = (x << 4) | d;
        }
        return x;
    }

    private static int digit(int c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    }

    public static long parse(byte[] key) {
        if (key == null || key.length != BYTES) {
            return -1;
        }
        long x = 0;
        for (int b = 0; b < BYTES; b++) {
            int c = key[b];
            int d;
            if (c >= '0' && c <= '9') {
                d = c - '0';
            } else if (c >= 'a' && c <= 'f') {
                d = c - 'a' + 10;
            } else {
                return -1;
            }
            x = (x << 4) | d;
        }
        return x;
    }

    /** For error messages: the key as text (it is ASCII), or its bytes in hex when it is not. */
    public static String show(byte[] key) {
        if (key == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(key.length);
        for (byte x : key) {
            if (x >= 0x20 && x < 0x7f) {
                b.append((char) x);
            } else {
                b.append(String.format("\\x%02x", x & 0xff));
            }
        }
        return b.toString();
    }
}
