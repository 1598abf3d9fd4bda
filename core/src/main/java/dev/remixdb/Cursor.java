package dev.remixdb;

/**
 * Iterates over the live keys of a {@link RemixDB} in unsigned byte order, in either direction, as
 * of the moment the cursor was created (or of its {@link Snapshot}): later writes are not seen, and
 * compactions do not disturb it. A cursor may be limited to [lower, upper) when it is opened
 * ({@link RemixDB#cursor(byte[], byte[])}): it then never stops outside, so a scan ends without the
 * caller comparing keys.
 *
 * <p>A cursor holds the memory and files of its snapshot until {@link #close()}; closing the store
 * closes its cursors. Not thread-safe: use one cursor per thread.
 */
public interface Cursor extends AutoCloseable {

    /** Positions at the first key (within the bounds). */
    void seekToFirst();

    /** Positions at the last key (within the bounds). */
    void seekToLast();

    /** Positions at the first key {@code >= key} (and within the bounds). */
    void seek(byte[] key);

    /** Positions at the last key {@code <= key} (and within the bounds). */
    void seekForPrev(byte[] key);

    /** Whether the cursor is at a key. */
    boolean isValid();

    /** The current key (a copy). */
    byte[] key();

    /** The current value (a copy). */
    byte[] value();

    /** Moves to the next key; the cursor becomes invalid after the last one. */
    void next();

    /** Moves to the previous key; the cursor becomes invalid before the first one. */
    void prev();

    /** Releases the snapshot. Idempotent. */
    @Override
    void close();
}
