package dev.remixdb.version;

import java.util.Arrays;

/** Small helpers for keys held as byte arrays. */
public final class Bytes {
    private Bytes() {}

    /** Unsigned lexicographic order, the order of every key in the store. */
    public static int compare(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b);
    }

    /** A short printable form for messages: hex, cut after 32 bytes. */
    public static String toString(byte[] key) {
        StringBuilder sb = new StringBuilder("0x");
        int n = Math.min(key.length, 32);
        for (int i = 0; i < n; i++) {
            sb.append(Character.forDigit((key[i] >> 4) & 15, 16)).append(Character.forDigit(key[i] & 15, 16));
        }
        if (key.length > n) {
            sb.append("...(").append(key.length).append(" bytes)");
        }
        return sb.toString();
    }
}
