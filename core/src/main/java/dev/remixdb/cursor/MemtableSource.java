package dev.remixdb.cursor;

import dev.remixdb.memtable.Memtable;
import dev.remixdb.memtable.MemtableCursor;
import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;

/**
 * A memtable as a {@link Source}: the newest version of each key visible at a snapshot, optionally
 * limited to keys below {@code upper} (a partition's range, for compaction).
 */
public final class MemtableSource implements Source {
    private final MemtableCursor cursor;
    private final MemorySegment upper;

    /** @param upper exclusive upper bound, or null for none */
    public MemtableSource(Memtable memtable, long snapshot, byte[] upper) {
        this.cursor = memtable.cursor(snapshot);
        this.upper = upper == null ? null : MemorySegment.ofArray(upper);
    }

    @Override
    public void seekToFirst() {
        cursor.seekToFirst();
    }

    @Override
    public void seek(MemorySegment key, long offset, int length) {
        cursor.seek(key, offset, length);
    }

    // Backwards only without an upper bound: compaction, which sets one, only moves forwards.

    @Override
    public void seekToLast() {
        forwardOnlyWithBound();
        cursor.seekToLast();
    }

    @Override
    public void seekForPrev(MemorySegment key, long offset, int length) {
        forwardOnlyWithBound();
        cursor.seekForPrev(key, offset, length);
    }

    @Override
    public void prev() {
        forwardOnlyWithBound();
        cursor.prev();
    }

    private void forwardOnlyWithBound() {
        if (upper != null) {
            throw new UnsupportedOperationException("a memtable source with an upper bound only moves forwards");
        }
    }

    @Override
    public boolean isValid() {
        return cursor.isValid() && (upper == null
                || Keys.compare(cursor.keySegment(), cursor.keyOffset(), cursor.keyLength(), upper, 0, (int) upper.byteSize()) < 0);
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
    public long seq() {
        return cursor.seq();
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
