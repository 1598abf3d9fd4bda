package dev.remixdb.remix;

import java.lang.foreign.MemorySegment;

/**
 * A position in one {@link Run}. Not thread-safe: one cursor per thread.
 *
 * <p>The key and value are exposed as (segment, offset, length) of the run's own memory (a block in
 * the cache for a table), so that comparing or copying them allocates nothing. They stay valid until
 * the cursor moves or closes.
 */
public interface RunCursor extends AutoCloseable {

    /** Positions the cursor at {@code address}; the run's end address makes it invalid. */
    void seekTo(int address);

    /** Positions the cursor at the first key {@code >= key}; invalid when there is none. */
    void seek(MemorySegment key, long offset, int length);

    /** Whether the cursor is at a key. */
    boolean isValid();

    /** The packed {@link RunAddress} of the current key (the end address when invalid after the last key). */
    int address();

    /** Moves to the next key (invalid after the last one). */
    void next();

    /** Moves to the previous key (invalid before the first one). */
    void prev();

    /**
     * Moves {@code n} keys forward ({@code n > 0}) or backward ({@code n < 0}), using the block
     * metadata only, so skipping across blocks reads no key.
     */
    void skip(int n);

    /** The memory holding the current key. */
    MemorySegment keySegment();

    /** The offset of the current key in {@link #keySegment()}. */
    long keyOffset();

    /** The length in bytes of the current key. */
    int keyLength();

    /** Whether the current entry is a tombstone (a deletion). */
    boolean isTombstone();

    /** The memory holding the current value (empty for a tombstone). */
    MemorySegment valueSegment();

    /** The offset of the current value in {@link #valueSegment()}. */
    long valueOffset();

    /** The length in bytes of the current value (0 for a tombstone). */
    int valueLength();

    /** Compares the current key with {@code key[offset, offset+length)} (unsigned lexicographic). */
    default int compareKey(MemorySegment key, long offset, int length) {
        return Keys.compare(keySegment(), keyOffset(), keyLength(), key, offset, length);
    }

    /** Releases what the cursor holds (a pinned cache block); the run itself stays open. */
    @Override
    void close();
}
