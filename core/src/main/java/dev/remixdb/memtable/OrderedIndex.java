package dev.remixdb.memtable;

import java.lang.foreign.MemorySegment;

/**
 * Orders a memtable's entry handles by key ascending, then seq descending, for one writer and any
 * number of lock-free readers. {@link LeafTree} is the one in use; {@link SkipListIndex} is the
 * skip list it replaced, kept for the JMH comparison of the two (bench/RESULTS.md).
 */
interface OrderedIndex {

    /**
     * Writer: memory for a new entry of {@code entryBytes} (the index may put bookkeeping in front of
     * it); the returned handle is where the entry goes.
     */
    long allocate(long entryBytes);

    /**
     * Writer: finds where (key, seq) goes and returns the entry there (the first at or after it), or
     * 0; {@link #insert} then adds an entry there. {@code newest}: {@code seq} is above every seq in
     * the index, which lets a search skip reading the key's older versions (false is always correct).
     */
    long locate(MemorySegment key, long off, int len, long seq, boolean newest);

    /** Writer: adds entry {@code e}, whose key and seq are those of the last {@link #locate}. */
    void insert(long e, MemorySegment key, long off, int len, long seq);

    /** Whether {@link #handles} and {@link #rebuild} are available. */
    default boolean canRebuild() {
        return false;
    }

    /** Writer: the {@code count} handles the index holds, in order. */
    default long[] handles(int count) {
        throw new UnsupportedOperationException("no rebuild for " + getClass().getSimpleName());
    }

    /**
     * Writer: replaces the index with one over {@code handles[0, n)}, which are in order and include
     * every handle it holds. Readers already in the old index finish there and see what it held.
     */
    default void rebuild(long[] handles, int n) {
        throw new UnsupportedOperationException("no rebuild for " + getClass().getSimpleName());
    }

    /** A reader's position; one per cursor. */
    Position position();

    /** A place in the index; every method returns the entry it lands on, or 0 when there is none. */
    interface Position {
        /** The first entry at or after (key, seq). */
        long seekCeiling(MemorySegment key, long off, int len, long seq);

        /** The last entry before (key, seq). */
        long seekBefore(MemorySegment key, long off, int len, long seq);

        long first();

        long last();

        /** The entry after the current one (which must be an entry). */
        long next();

        /** The entry before the current one (which must be an entry). */
        long prev();
    }
}
