package dev.remixdb;

/**
 * Iterates over the live keys of a {@link RemixDB} in increasing unsigned byte order, as of the
 * moment the cursor was created: later writes are not seen, and compactions do not disturb it.
 * A cursor holds the memory and files of that snapshot until {@link #close()}; closing the store
 * closes its cursors. Not thread-safe: use one cursor per thread.
 */
public interface Cursor extends AutoCloseable {

    /** Positions at the first key. */
    void seekToFirst();

    /** Positions at the first key {@code >= key}. */
    void seek(byte[] key);

    /** Whether the cursor is at a key. */
    boolean isValid();

    /** The current key (a copy). */
    byte[] key();

    /** The current value (a copy). */
    byte[] value();

    /** Moves to the next key; the cursor becomes invalid after the last one. */
    void next();

    /** Releases the snapshot. Idempotent. */
    @Override
    void close();
}
