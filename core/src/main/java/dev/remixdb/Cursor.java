package dev.remixdb;

import java.lang.foreign.MemorySegment;

/**
 * Iterates over the live keys of a {@link RemixDB} in unsigned byte order, in either direction, as
 * of the moment the cursor was created (or of its {@link Snapshot}): later writes are not seen, and
 * compactions do not disturb it. A cursor may be limited to [lower, upper) when it is opened
 * ({@link RemixDB#cursor(byte[], byte[])}): it then never stops outside, so a scan ends without the
 * caller comparing keys.
 *
 * <p>The current entry comes two ways: {@link #key()} and {@link #value()} copy it into new arrays;
 * {@link #keyView()} and {@link #valueView()} show the store's memory itself, read-only, without a
 * copy, until the cursor moves. A view read after the cursor moved or closed throws
 * {@link IllegalStateException}; it never shows another entry's bytes.
 *
 * <p>A cursor holds the memory and files of its snapshot until {@link #close()}; closing the store
 * closes its cursors. A cursor dropped without a close is closed by the store once it has been
 * garbage-collected and the store next opens a cursor or a snapshot, reports stats, or closes;
 * each is counted in {@link Stats#leakedCursors()}. Not thread-safe: use one cursor per thread (a call
 * that starts while another thread is in a call on the same cursor throws
 * {@link IllegalStateException}; the check is best effort, not a lock).
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

    /**
     * The current key as a read-only view, without a copy, valid until the cursor next moves
     * ({@code seek*}, {@code next}, {@code prev}) or closes; reading it after that throws
     * {@link IllegalStateException}.
     *
     * <p>Views are confined to the thread that took them: read on another thread they throw
     * {@link WrongThreadException}, and until their thread moves the cursor, other threads can
     * neither take views nor move the cursor ({@link IllegalStateException}). Closing the cursor, or
     * the store, from another thread is allowed: the memory behind the views is then kept until their
     * thread touches the cursor again (which throws {@link ClosedException} and ends the views), or
     * the cursor and its views are garbage.
     *
     * <p>The views alias the store's memory when the JVM allows this module restricted methods
     * ({@code --enable-native-access}, which the io_uring reader needs too); otherwise each view is a
     * copy with the same lifetime.
     *
     * @throws IllegalStateException when the cursor is not at a key, or another thread holds views
     */
    MemorySegment keyView();

    /** The current value as a read-only view; lifetime and threads as {@link #keyView()}. */
    MemorySegment valueView();

    /** Moves to the next key; the cursor becomes invalid after the last one. */
    void next();

    /** Moves to the previous key; the cursor becomes invalid before the first one. */
    void prev();

    /** Releases the snapshot. Idempotent. */
    @Override
    void close();
}
