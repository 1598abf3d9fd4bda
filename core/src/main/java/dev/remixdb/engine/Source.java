package dev.remixdb.engine;

import java.lang.foreign.MemorySegment;

/**
 * One sorted input of a merge: a memtable, a table, or the persistent version. It yields one entry
 * per key, in increasing key order, with tombstones flagged. Key and value views stay valid until
 * the source moves. Not thread-safe.
 */
interface Source extends AutoCloseable {

    void seekToFirst();

    /** Positions at the first key {@code >= key}. */
    void seek(MemorySegment key, long offset, int length);

    boolean isValid();

    void next();

    MemorySegment keySegment();

    long keyOffset();

    int keyLength();

    boolean isTombstone();

    MemorySegment valueSegment();

    long valueOffset();

    int valueLength();

    @Override
    void close();
}
