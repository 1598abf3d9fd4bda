package dev.remixdb.remix;

import java.lang.foreign.MemorySegment;

/**
 * The keys of one run in increasing order with their tombstone flags, read once from the start:
 * what a REMIX rebuild needs from a new run. A table's compressed keys block (CKB) provides one
 * without reading data blocks. Not thread-safe.
 */
public interface KeySource extends AutoCloseable {

    /** Advances to the next key; false at the end. The first call moves to the first key. */
    boolean next();

    /** The memory holding the current key (valid until {@link #next()}). */
    MemorySegment keySegment();

    /** The offset of the current key. */
    long keyOffset();

    /** The length of the current key. */
    int keyLength();

    /** Whether the current key is a tombstone. */
    boolean isTombstone();

    @Override
    void close();

    /** A key source that reads keys through a run cursor (used when a run has no compressed keys). */
    static KeySource fromCursor(RunCursor cursor) {
        return new KeySource() {
            private boolean started;

            @Override
            public boolean next() {
                if (!started) {
                    started = true;
                    cursor.seekTo(RunAddress.of(0, 0));
                } else if (cursor.isValid()) {
                    cursor.next();
                }
                return cursor.isValid();
            }

            @Override
            public MemorySegment keySegment() {
                return cursor.keySegment();
            }

            @Override
            public long keyOffset() {
                return cursor.keyOffset();
            }

            @Override
            public int keyLength() {
                return cursor.keyLength();
            }

            @Override
            public boolean isTombstone() {
                return cursor.isTombstone();
            }

            @Override
            public void close() {
                cursor.close();
            }
        };
    }
}
