package dev.remixdb;

import dev.remixdb.cursor.MemtableSource;
import dev.remixdb.cursor.Merger;
import dev.remixdb.cursor.Source;
import dev.remixdb.cursor.VersionSource;
import dev.remixdb.engine.MemtableRef;
import dev.remixdb.engine.ReadState;
import dev.remixdb.remix.Keys;
import dev.remixdb.remix.RemixCursor;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * A user's {@link Cursor}: the active memtable, the frozen ones and the version, merged newest first
 * as of the sequence number seen at creation, with tombstones hidden, optionally within bounds. It
 * keeps its read state (memtables, tables, REMIXes) alive until closed.
 *
 * <p>It moves both ways through {@link Merger}; backwards, each source steps back on its own sorted
 * structure (the REMIX's sorted view, the memtable's skip list) rather than re-scanning forwards.
 *
 * <p>Every method holds the cursor's monitor. The cursor has one user thread, but the store's
 * {@link Store#close()} closes it from another: the monitor makes that close wait for a call in
 * progress (which would otherwise read freed memtable memory or a cache slot already given to
 * another block), and calls after it see {@link ClosedException}. Uncontended, the monitor costs a
 * compare-and-swap per call and allocates nothing.
 */
final class StoreCursor implements Cursor {
    private final Store store;
    private final ReadState state;
    private final Merger merger;
    /** Inclusive lower and exclusive upper bound, or null. */
    private final MemorySegment lower;
    private final MemorySegment upper;
    /** The merger sits on a key outside the bounds: the cursor is invalid. */
    private boolean outside;
    private boolean closed;

    /** Takes over the caller's reference to {@code state}. Bounds are copied; null is open. */
    StoreCursor(Store store, ReadState state, long snapshot, byte[] lower, byte[] upper) {
        this.store = store;
        this.state = state;
        this.lower = lower == null ? null : MemorySegment.ofArray(lower.clone());
        this.upper = upper == null ? null : MemorySegment.ofArray(upper.clone());
        List<Source> sources = new ArrayList<>(2 + state.frozen().size());
        sources.add(new MemtableSource(state.mem().memtable(), snapshot, null));
        for (MemtableRef f : state.frozen()) {
            sources.add(new MemtableSource(f.memtable(), snapshot, null));
        }
        // LIVE: the version's own tombstones never need to mask anything newer.
        sources.add(new VersionSource(state.version(), RemixCursor.Mode.LIVE, store.readAhead()));
        this.merger = new Merger(sources);
    }

    @Override
    public synchronized void seekToFirst() {
        checkOpen();
        try {
            if (lower == null) {
                merger.seekToFirst();
            } else {
                merger.seek(lower, 0, (int) lower.byteSize());
            }
            settleForwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    @Override
    public synchronized void seek(byte[] key) {
        checkOpen();
        checkKey(key);
        MemorySegment k = MemorySegment.ofArray(key);
        if (lower != null && compare(k, lower) < 0) {
            k = lower;
        }
        try {
            merger.seek(k, 0, (int) k.byteSize());
            settleForwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    @Override
    public synchronized void seekToLast() {
        checkOpen();
        try {
            if (upper == null) {
                merger.seekToLast();
            } else {
                seekBelowUpper();
            }
            settleBackwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    @Override
    public synchronized void seekForPrev(byte[] key) {
        checkOpen();
        checkKey(key);
        MemorySegment k = MemorySegment.ofArray(key);
        try {
            if (upper != null && compare(k, upper) >= 0) {
                seekBelowUpper();
            } else {
                merger.seekForPrev(k, 0, key.length);
            }
            settleBackwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    /** Positions at the last key below the (exclusive) upper bound. */
    private void seekBelowUpper() {
        merger.seekForPrev(upper, 0, (int) upper.byteSize());
        if (merger.isValid() && compareCurrent(upper) == 0) {
            merger.prev();
        }
    }

    /**
     * After a forward move: passes over tombstones, and stops at the upper bound, checked first so
     * that a run of deleted keys past the bound is not walked.
     */
    private void settleForwards() {
        outside = false;
        while (merger.isValid()) {
            if (upper != null && compareCurrent(upper) >= 0) {
                outside = true;
                return;
            }
            if (!merger.isTombstone()) {
                return;
            }
            merger.next();
        }
    }

    /** After a backward move: passes over tombstones, and stops at the lower bound. */
    private void settleBackwards() {
        outside = false;
        while (merger.isValid()) {
            if (lower != null && compareCurrent(lower) < 0) {
                outside = true;
                return;
            }
            if (!merger.isTombstone()) {
                return;
            }
            merger.prev();
        }
    }

    private int compareCurrent(MemorySegment bound) {
        Source s = merger.current();
        return Keys.compare(s.keySegment(), s.keyOffset(), s.keyLength(), bound, 0, (int) bound.byteSize());
    }

    private static int compare(MemorySegment a, MemorySegment b) {
        return Keys.compare(a, 0, (int) a.byteSize(), b, 0, (int) b.byteSize());
    }

    private static void checkKey(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
    }

    @Override
    public synchronized boolean isValid() {
        checkOpen();
        return merger.isValid() && !outside;
    }

    @Override
    public synchronized byte[] key() {
        try {
            Source s = positioned();
            return copy(s.keySegment(), s.keyOffset(), s.keyLength());
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    @Override
    public synchronized byte[] value() {
        try {
            Source s = positioned();
            return copy(s.valueSegment(), s.valueOffset(), s.valueLength());
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    /** A bulk copy straight into a new array: no slice object, one bounds and liveness check. */
    private static byte[] copy(MemorySegment from, long offset, int length) {
        byte[] out = new byte[length];
        MemorySegment.copy(from, ValueLayout.JAVA_BYTE, offset, out, 0, length);
        return out;
    }

    @Override
    public synchronized void next() {
        positioned();
        try {
            merger.next();
            settleForwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    @Override
    public synchronized void prev() {
        positioned();
        try {
            merger.prev();
            settleBackwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    private Source positioned() {
        checkOpen();
        if (!merger.isValid() || outside) {
            throw new IllegalStateException("cursor is not positioned at a key");
        }
        return merger.current();
    }

    private void checkOpen() {
        if (closed) {
            throw new ClosedException("cursor of " + store);
        }
    }

    @Override
    public synchronized void close() {
        // The store closes cursors left open by other threads: only one close may release.
        if (closed) {
            return;
        }
        closed = true;
        try {
            merger.close();
        } finally {
            state.release();
            store.cursorClosed(this);
        }
    }
}
