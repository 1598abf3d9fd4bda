package dev.remixdb.bench.micro;

/** The three operations of REMIX §5.1 (Figures 11 and 12: a, b, c). */
public enum Phase {
    /** Seek to a random existing key and copy that key out. */
    SEEK("seek"),
    /** Seek, then copy 50 key-value pairs (the target and the 49 after it) into a buffer. */
    SEEK_NEXT50("seeknext50"),
    /** Point lookup of a random existing key, copying its value out. */
    GET("get");

    /** Pairs copied by {@link #SEEK_NEXT50}. */
    public static final int SCAN_LENGTH = 50;

    private final String label;

    Phase(String label) {
        this.label = label;
    }

    /** The name used on the command line and in reports. */
    public String label() {
        return label;
    }

    /** Parses a label ("seek", "seeknext50", "get"). */
    public static Phase parse(String s) {
        for (Phase p : values()) {
            if (p.label.equals(s.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException("phase must be seek, seeknext50 or get: " + s);
    }
}
