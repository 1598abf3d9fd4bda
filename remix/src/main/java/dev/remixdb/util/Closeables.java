package dev.remixdb.util;

import java.io.IOException;
import java.util.Arrays;

/**
 * Closing several things at once: every one is closed even when some fail, and the first failure is
 * thrown with the later ones added to it as suppressed, so that no failure is lost and no resource is
 * left open.
 */
public final class Closeables {
    private Closeables() {}

    /**
     * Closes each of {@code all} in order (nulls are skipped).
     *
     * @throws IOException the first failure, when it is one (later ones suppressed)
     */
    public static void closeAll(Iterable<? extends AutoCloseable> all) throws IOException {
        rethrow(closeAll(all, null));
    }

    /** Closes each of {@code all} in order (nulls are skipped); see {@link #closeAll(Iterable)}. */
    public static void closeAll(AutoCloseable... all) throws IOException {
        closeAll(Arrays.asList(all));
    }

    /**
     * Closes each of {@code all} in order (nulls are skipped), adding every failure to {@code first},
     * and returns the first failure of all: {@code first} when it was not null, else the first
     * failure here, else null. Throws nothing, for cleanup after another failure.
     */
    public static Throwable closeAll(Iterable<? extends AutoCloseable> all, Throwable first) {
        Throwable failure = first;
        for (AutoCloseable c : all) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Throwable t) {
                failure = add(failure, t);
            }
        }
        return failure;
    }

    /** {@code next} added to {@code first} as suppressed; {@code next} itself when {@code first} is null. */
    public static Throwable add(Throwable first, Throwable next) {
        if (first == null) {
            return next;
        }
        if (first != next) {
            first.addSuppressed(next);
        }
        return first;
    }

    /** Throws {@code t} as it is when it is an IOException, a RuntimeException or an Error; nothing when null. */
    public static void rethrow(Throwable t) throws IOException {
        switch (t) {
            case null -> { }
            case IOException e -> throw e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IOException(t);
        }
    }
}
