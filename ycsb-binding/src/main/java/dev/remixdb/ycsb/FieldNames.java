package dev.remixdb.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decoded field names, remembered: a YCSB run uses the same ten names in every record, so decoding
 * returns the same {@link String} instances instead of allocating (and hashing, when they go into
 * the result map) ten new ones per record. A direct-mapped cache of {@value #SLOTS} entries; a
 * colliding name just replaces the one in its slot.
 *
 * <p>Not thread-safe: one per client thread.
 */
final class FieldNames {
    private static final int SLOTS = 64;

    private final byte[][] bytes = new byte[SLOTS][];
    private final String[] names = new String[SLOTS];

    /** The name stored in {@code record[offset, offset + length)}. */
    String name(byte[] record, int offset, int length) {
        int h = length;
        for (int i = offset, end = offset + length; i < end; i++) {
            h = 31 * h + record[i];
        }
        int slot = (h ^ (h >>> 16)) & (SLOTS - 1);
        byte[] b = bytes[slot];
        if (b != null && Arrays.equals(b, 0, b.length, record, offset, offset + length)) {
            return names[slot];
        }
        String name = new String(record, offset, length, StandardCharsets.UTF_8);
        bytes[slot] = Arrays.copyOfRange(record, offset, offset + length);
        names[slot] = name;
        return name;
    }
}
