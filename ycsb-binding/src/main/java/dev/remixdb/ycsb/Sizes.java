package dev.remixdb.ycsb;

import java.util.Locale;

/** Parses and prints byte sizes as written in YCSB properties: {@code 1048576}, {@code 64k}, {@code 64m}, {@code 1g}. */
final class Sizes {
    private Sizes() {}

    /**
     * Bytes of {@code text}: a non-negative integer with an optional binary suffix k, m or g.
     *
     * @throws IllegalArgumentException naming {@code property} and the text when it is not one
     */
    static long parse(String property, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        int shift = 0;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> shift = 10;
                case 'm' -> shift = 20;
                case 'g' -> shift = 30;
                default -> shift = 0;
            }
        }
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        try {
            long n = Long.parseLong(digits);
            if (n < 0 || n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be a byte size such as 1048576, 64m or 1g: '" + text + "'");
        }
    }

    /** {@code bytes} in the largest unit that divides it exactly, e.g. {@code 64m}. */
    static String format(long bytes) {
        if (bytes != 0 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "g";
        }
        if (bytes != 0 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "m";
        }
        if (bytes != 0 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "k";
        }
        return Long.toString(bytes);
    }
}
