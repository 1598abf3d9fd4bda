package dev.remixdb.cursor;

import java.lang.foreign.MemorySegment;

/**
 * One sorted input of a merge: a memtable, a table, or the persistent version. It yields one entry
 * per key, in increasing key order, with tombstones flagged. Key and value views stay valid until
 * the source moves. Not thread-safe.
 *
 * <p>Sources that user cursors read (memtables, the version) also move backwards; compaction's
 * inputs only move forwards and keep the defaults, which refuse.
 */
public interface Source extends AutoCloseable {

    void seekToFirst();

    /** Positions at the first key {@code >= key}. */
    void seek(MemorySegment key, long offset, int length);

    boolean isValid();

    void next();

    /** Positions at the last key. */
    default void seekToLast() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " only moves forwards");
    }

    /** Positions at the last key {@code <= key}. */
    default void seekForPrev(MemorySegment key, long offset, int length) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " only moves forwards");
    }

    /** Makes the source invalid, as past its last key (moving forwards). */
    default void seekPastEnd() {
        seekToLast();
        if (isValid()) {
            next();
        }
    }

    /** Makes the source invalid, as before its first key (moving backwards). */
    default void seekBeforeStart() {
        seekToFirst();
        if (isValid()) {
            prev();
        }
    }

    /** Moves to the previous key; the source becomes invalid before the first one. */
    default void prev() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " only moves forwards");
    }

    MemorySegment keySegment();

    long keyOffset();

    int keyLength();

    boolean isTombstone();

    /**
     * The sequence number of the current entry, or -1 where entries carry none (tables: their
     * versions are older than everything a memtable still holds).
     */
    default long seq() {
        return -1;
    }

    MemorySegment valueSegment();

    long valueOffset();

    int valueLength();

    @Override
    void close();
}
