package dev.remixdb.cursor;

import dev.remixdb.remix.Run;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.remix.RunCursor;

import java.lang.foreign.MemorySegment;

/**
 * One table (any REMIX run) as a {@link Source}, for merging tables in a major compaction: a scan
 * cursor, so the merge's reads do not go through the block cache.
 */
public final class RunSource implements Source {
    private final RunCursor cursor;

    public RunSource(Run run) {
        this.cursor = run.newScanCursor();
    }

    @Override
    public void seekToFirst() {
        cursor.seekTo(RunAddress.of(0, 0));
    }

    @Override
    public void seek(MemorySegment key, long offset, int length) {
        cursor.seek(key, offset, length);
    }

    @Override
    public boolean isValid() {
        return cursor.isValid();
    }

    @Override
    public void next() {
        cursor.next();
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
    public MemorySegment valueSegment() {
        return cursor.valueSegment();
    }

    @Override
    public long valueOffset() {
        return cursor.valueOffset();
    }

    @Override
    public int valueLength() {
        return cursor.valueLength();
    }

    @Override
    public void close() {
        cursor.close();
    }
}
