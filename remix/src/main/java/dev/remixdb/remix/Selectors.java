package dev.remixdb.remix;

/**
 * The run selector byte of a REMIX slot (REMIX §4.1): which run holds the slot's key, and two flags.
 *
 * <pre>
 * bit 7 (0x80)  STALE      an older version of the previous slot's key
 * bit 6 (0x40)  TOMBSTONE  the version is a deletion
 * bits 0-5      run id     0..62; a higher id is a newer run
 * 0x3F          PLACEHOLDER pads a segment so all versions of a key share one segment
 * </pre>
 */
public final class Selectors {
    public static final int STALE = 0x80;
    public static final int TOMBSTONE = 0x40;
    public static final int RUN_MASK = 0x3F;
    public static final int PLACEHOLDER = 0x3F;
    /** Most runs one REMIX can index: run ids 0..62, since 63 marks a placeholder. */
    public static final int MAX_RUNS = 63;

    private Selectors() {}

    public static int run(int selector) {
        return selector & RUN_MASK;
    }

    public static boolean isStale(int selector) {
        return (selector & STALE) != 0;
    }

    public static boolean isTombstone(int selector) {
        return (selector & TOMBSTONE) != 0;
    }

    public static boolean isPlaceholder(int selector) {
        return (selector & 0xFF) == PLACEHOLDER;
    }
}
