package dev.remixdb.bench.data;

import java.util.Locale;

/** How keys are spread over the runs of a dataset (REMIX §5.1, "Experimental Setup"). */
public enum Locality {
    /** Each key goes to a randomly chosen run: neighbouring keys are usually in different runs. */
    WEAK(1),
    /** Every 64 consecutive keys go together to a randomly chosen run. */
    STRONG(64);

    private final int groupSize;

    Locality(int groupSize) {
        this.groupSize = groupSize;
    }

    /** How many consecutive keys share a run. */
    public int groupSize() {
        return groupSize;
    }

    /** The lowercase name used on the command line and in reports ("weak", "strong"). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses "weak" or "strong". */
    public static Locality parse(String s) {
        for (Locality l : values()) {
            if (l.label().equals(s.trim().toLowerCase(Locale.ROOT))) {
                return l;
            }
        }
        throw new IllegalArgumentException("locality must be weak or strong: " + s);
    }
}
