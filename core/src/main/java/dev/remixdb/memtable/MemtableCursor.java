package dev.remixdb.memtable;

import static dev.remixdb.memtable.ChunkAllocator.NULL;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Walks a {@link Memtable} at a snapshot: for each distinct key, its newest version with seq
 * {@code <= snapshotSeq}, tombstones included (see {@link #isTombstone()}). Keys whose versions are
 * all newer than the snapshot are skipped.
 *
 * <p>Every entry with seq {@code <= snapshotSeq} that was added before the cursor was created is
 * seen; entries with a larger seq never are, whenever they are added. An entry with an old seq
 * added while the cursor is in use (the engine re-inserting data) may or may not be seen.
 *
 * <p>It moves on a position in the memtable's ordered index ({@link OrderedIndex.Position}): a step
 * within an unchanged leaf of the tree costs no search. The key and value accessors return the
 * chunk that holds them plus an offset and a length, so reading allocates nothing; {@link #key()}
 * and {@link #value()} copy. A cursor is used by one thread at a time.
 */
public final class MemtableCursor implements AutoCloseable {
    /** Older versions of the current key walked over by {@link #next()} before searching instead. */
    private static final int MAX_VERSION_HOPS = 8;

    private final Memtable table;
    private final OrderedIndex.Position at;
    private final long snapshotSeq;
    private long node = NULL;
    private boolean closed;

    MemtableCursor(Memtable table, long snapshotSeq) {
        this.table = table;
        this.at = table.position();
        this.snapshotSeq = snapshotSeq;
    }

    /** The snapshot this cursor reads at. */
    public long snapshotSeq() {
        return snapshotSeq;
    }

    /** Moves to the first key {@code >= key}. */
    public void seek(MemorySegment key, long off, int len) {
        check();
        node = firstVisibleFrom(at.seekCeiling(key, off, len, snapshotSeq));
    }

    /** Moves to the first key {@code >= key}. */
    public void seek(byte[] key) {
        seek(MemorySegment.ofArray(key), 0, key.length);
    }

    /** Moves to the last key {@code <= key}. */
    public void seekForPrev(MemorySegment key, long off, int len) {
        check();
        long n = at.seekCeiling(key, off, len, snapshotSeq);
        // A node of the key itself found at or below the snapshot is its newest visible version.
        node = n != NULL && table.keyEquals(n, key, off, len) ? n
                : newestVisibleUpTo(at.seekBefore(key, off, len, Long.MAX_VALUE));
    }

    /** Moves to the last key {@code <= key}. */
    public void seekForPrev(byte[] key) {
        seekForPrev(MemorySegment.ofArray(key), 0, key.length);
    }

    /** Moves to the first key. */
    public void seekToFirst() {
        check();
        node = firstVisibleFrom(at.first());
    }

    /** Moves to the last key. */
    public void seekToLast() {
        check();
        node = newestVisibleUpTo(at.last());
    }

    /** Whether the cursor is at an entry. */
    public boolean isValid() {
        check();
        return node != NULL;
    }

    /** Moves to the next key. */
    public void next() {
        checkPositioned();
        long current = node;
        long n = at.next();
        for (int hops = 0; n != NULL && table.sameKey(n, current); hops++) {
            if (hops == MAX_VERSION_HOPS) {
                // Many versions of one key: skip them all with one search.
                n = at.seekCeiling(table.segment(current), table.keyOffset(current), table.keyLength(current),
                        Long.MIN_VALUE);
                break;
            }
            n = at.next();
        }
        node = firstVisibleFrom(n);
    }

    /**
     * Moves to the previous key. It steps back through the index's leaves, as {@link #next()} steps
     * forwards, rather than searching from the root: versions sort newest first, so the entry
     * before a key's oldest version is the previous key's oldest version, and the step walks back
     * over that key's versions to its newest one at or below the snapshot. Runs of more than
     * {@value #MAX_VERSION_HOPS} versions are passed with one search instead.
     */
    public void prev() {
        checkPositioned();
        // Entries before the current one with its key are versions newer than the snapshot.
        node = newestVisibleBackFrom(beforeKey(node));
    }

    /**
     * From the oldest version of some key (or 0), with the position on it, the newest version at or
     * below the snapshot of the last key up to there that has one, with the position moved there.
     * Going back, a key's versions come oldest first, so its newest visible one is the last met
     * before a newer one or another key; a key whose oldest version is above the snapshot has none.
     */
    private long newestVisibleBackFrom(long p) {
        while (p != NULL) {
            if (table.seq(p) > snapshotSeq) {
                p = beforeKey(p);
                continue;
            }
            long best = p;
            long q = at.prev();
            for (int hops = 0; q != NULL && table.seq(q) <= snapshotSeq && table.sameKey(q, best); hops++) {
                if (hops == MAX_VERSION_HOPS) {
                    return at.seekCeiling(table.segment(best), table.keyOffset(best), table.keyLength(best),
                            snapshotSeq);
                }
                best = q;
                q = at.prev();
            }
            // One step too far: step forward again (or, past the index's start, to its first entry). A
            // leaf that changed meanwhile may land the step elsewhere (a newer version or a smaller key
            // inserted since), so it is checked, and found again if not.
            long back = q == NULL ? at.first() : at.next();
            if (back != best) {
                back = at.seekCeiling(table.segment(best), table.keyOffset(best), table.keyLength(best),
                        table.seq(best));
            }
            return back;
        }
        return NULL;
    }

    /**
     * From entry {@code k}, with the position on it, the entry before the first (newest) version of
     * its key, or 0, with the position moved there: a walk back over the key's newer versions.
     */
    private long beforeKey(long k) {
        long q = at.prev();
        for (int hops = 0; q != NULL && table.sameKey(q, k); hops++) {
            if (hops == MAX_VERSION_HOPS) {
                return at.seekBefore(table.segment(k), table.keyOffset(k), table.keyLength(k), Long.MAX_VALUE);
            }
            q = at.prev();
        }
        return q;
    }

    /** The node handle of the current entry, for the {@link Memtable} accessors. */
    public long node() {
        checkPositioned();
        return node;
    }

    /** The chunk holding the current key; with {@link #keyOffset()} and {@link #keyLength()}. Valid while the memtable is open. */
    public MemorySegment keySegment() {
        checkPositioned();
        return table.segment(node);
    }

    /** Offset of the current key in {@link #keySegment()}. */
    public long keyOffset() {
        checkPositioned();
        return table.keyOffset(node);
    }

    /** Length of the current key. */
    public int keyLength() {
        checkPositioned();
        return table.keyLength(node);
    }

    /** A copy of the current key. */
    public byte[] key() {
        checkPositioned();
        return table.key(node);
    }

    /** Whether the current entry is a tombstone. */
    public boolean isTombstone() {
        checkPositioned();
        return table.isTombstone(node);
    }

    /** The seq of the current entry. */
    public long seq() {
        checkPositioned();
        return table.seq(node);
    }

    /** The chunk holding the current value; with {@link #valueOffset()} and {@link #valueLength()}. Valid while the memtable is open. */
    public MemorySegment valueSegment() {
        checkPositioned();
        return table.segment(node);
    }

    /** Offset of the current value in {@link #valueSegment()}. */
    public long valueOffset() {
        checkPositioned();
        return table.valueOffset(node);
    }

    /** Length of the current value; 0 for a tombstone. */
    public int valueLength() {
        checkPositioned();
        return table.valueLength(node);
    }

    /** A copy of the current value (empty for a tombstone). */
    public byte[] value() {
        checkPositioned();
        return table.valueSegment(node).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Releases nothing (the memtable owns the memory) but makes later calls fail. */
    @Override
    public void close() {
        closed = true;
        node = NULL;
    }

    /**
     * From the first node of some key (or 0), the first node at or below the snapshot. Versions of
     * a key are ordered newest first, so the first one at or below the snapshot is the one to show,
     * and a key with none is passed over into the next key's first node.
     */
    private long firstVisibleFrom(long n) {
        while (n != NULL && table.seq(n) > snapshotSeq) {
            n = at.next();
        }
        return n;
    }

    /**
     * From the last node of some key (its oldest version), or 0, the newest visible version of the
     * last key up to there that has one. If even the oldest version is newer than the snapshot, so
     * are all the others, and the key is skipped without a search.
     */
    private long newestVisibleUpTo(long last) {
        long p = last;
        while (p != NULL) {
            if (table.seq(p) <= snapshotSeq) {
                return at.seekCeiling(table.segment(p), table.keyOffset(p), table.keyLength(p), snapshotSeq);
            }
            p = at.seekBefore(table.segment(p), table.keyOffset(p), table.keyLength(p), Long.MAX_VALUE);
        }
        return NULL;
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("memtable cursor is closed");
        }
        table.checkOpen();
    }

    private void checkPositioned() {
        check();
        if (node == NULL) {
            throw new IllegalStateException("memtable cursor is not positioned at an entry");
        }
    }
}
