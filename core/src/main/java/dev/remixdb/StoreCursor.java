package dev.remixdb;

import dev.remixdb.cursor.MemtableSource;
import dev.remixdb.cursor.Merger;
import dev.remixdb.cursor.Source;
import dev.remixdb.cursor.VersionSource;
import dev.remixdb.engine.MemtableRef;
import dev.remixdb.engine.ReadState;
import dev.remixdb.remix.Keys;
import dev.remixdb.remix.RemixCursor;
import dev.remixdb.version.RefCounted;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;

/**
 * A user's {@link Cursor}: the active memtable, the frozen ones and the version, merged newest first
 * as of the sequence number seen at creation, with tombstones hidden, optionally within bounds. It
 * keeps its read state (memtables, tables, REMIXes) alive until closed.
 *
 * <p>It moves both ways through {@link Merger}; backwards, each source steps back on its own sorted
 * structure (the REMIX's sorted view, the memtable's tree) rather than re-scanning forwards.
 *
 * <p>The cursor has one user thread at a time, but the store's {@link Store#close()} closes it from
 * another. Every call runs inside a {@link CallGuard}: a close waits for the call in progress (which
 * would otherwise read freed memtable memory or a cache slot already given to another block), and
 * calls after it see {@link ClosedException}. The guard costs a fence per call where a monitor cost
 * two atomic updates, which was a sixth of a scan step.
 *
 * <p>Views ({@link #keyView()}) are read outside any call, so a close from another thread cannot
 * wait for them, nor end them (see {@link EntryViews}). Such a close releases the snapshot's state
 * at once but keeps what views can reach (the merger's pinned blocks and buffers, the memtables)
 * until the views' thread next touches the cursor, or the cursor and its views become garbage.
 *
 * <p>What a close releases is held by a {@link Handle}, which the store tracks (to close at its own
 * close) through a weak reference to the cursor: a cursor dropped unclosed is found in the store's
 * reference queue and closed as a leak (counted in {@link Stats#leakedCursors()}) when the store next
 * opens a cursor or a snapshot, reports stats, or closes; until then it holds its read state (the
 * memtables and tables it saw). The handle never refers back to the cursor.
 */
final class StoreCursor implements Cursor {
    /**
     * Made on first use only: a close under another thread's views is rare, and a store that never
     * meets one starts no thread for it. One daemon thread per JVM once started.
     */
    private static final class ViewCleaner {
        static final Cleaner CLEANER = Cleaner.create(
                Thread.ofPlatform().daemon().name("remixdb-view-cleaner").factory());
    }

    private final Store store;
    private final Merger merger;
    /** Inclusive lower and exclusive upper bound, or null. */
    private final MemorySegment lower;
    private final MemorySegment upper;
    private final CallGuard guard = new CallGuard();
    /** The merger sits on a key outside the bounds: the cursor is invalid. */
    private boolean outside;
    private final EntryViews views = new EntryViews();
    /** What a close releases; the store tracks it. The same merger, guard and views as above. */
    private final Handle handle;
    /**
     * The current entry's memory, read from the sources once per position ({@link #fetch()}):
     * each source call walks down the version, the REMIX and a table cursor. Null after a move.
     */
    private Source entryOf;
    private MemorySegment keyMemory;
    private long keyOffset;
    private int keyLength;
    private MemorySegment valueMemory;
    private long valueOffset;
    private int valueLength;

    /** Takes over the caller's reference to {@code state}. Bounds are copied; null is open. */
    StoreCursor(Store store, ReadState state, long snapshot, byte[] lower, byte[] upper) {
        this.store = store;
        this.lower = lower == null ? null : MemorySegment.ofArray(lower.clone());
        this.upper = upper == null ? null : MemorySegment.ofArray(upper.clone());
        List<Source> sources = new ArrayList<>(2 + state.frozen().size());
        sources.add(new MemtableSource(state.mem().memtable(), snapshot, null));
        for (MemtableRef f : state.frozen()) {
            sources.add(new MemtableSource(f.memtable(), snapshot, null));
        }
        // LIVE: the version's own tombstones never need to mask anything newer.
        sources.add(new VersionSource(state.version(), RemixCursor.Mode.LIVE, store.readAhead()));
        dev.remixdb.memtable.RangeTombstone[][] ranges = new dev.remixdb.memtable.RangeTombstone[sources.size()][];
        ranges[0] = state.mem().memtable().rangeTombstones();
        int i = 1;
        for (MemtableRef f : state.frozen()) {
            ranges[i++] = f.memtable().rangeTombstones();
        }
        ranges[i] = new dev.remixdb.memtable.RangeTombstone[0];
        this.merger = new Merger(sources, ranges, snapshot);
        this.handle = new Handle(store, state, merger, guard, views);
    }

    /** What the store tracks of this cursor. */
    Handle handle() {
        return handle;
    }

    // ------------------------------------------------------------------ calls

    /** Starts a call, or throws {@link ClosedException} when the cursor is closed or closing. */
    private void enter() {
        if (!guard.enter()) {
            throw handle.closedCall();
        }
    }

    private void exit() {
        guard.exit();
    }

    /**
     * Every move starts here: the entry's views end, and so does the cached entry, since a move
     * that throws halfway may already have let go of the memory it pointed into.
     */
    private void beginMove() {
        views.end();
        entryOf = null;
    }

    @Override
    public void seekToFirst() {
        enter();
        try {
            beginMove();
            first();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    private void first() {
        if (lower == null) {
            merger.seekToFirst();
        } else {
            merger.seek(lower, 0, (int) lower.byteSize());
        }
        settleForwards();
    }

    @Override
    public void seek(byte[] key) {
        enter();
        try {
            checkKey(key);
            beginMove();
            MemorySegment k = MemorySegment.ofArray(key);
            if (lower != null && compare(k, lower) < 0) {
                k = lower;
            }
            merger.seek(k, 0, (int) k.byteSize());
            settleForwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    @Override
    public void seekToLast() {
        enter();
        try {
            beginMove();
            if (upper == null) {
                merger.seekToLast();
            } else {
                seekBelowUpper();
            }
            settleBackwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    @Override
    public void seekForPrev(byte[] key) {
        enter();
        try {
            checkKey(key);
            beginMove();
            MemorySegment k = MemorySegment.ofArray(key);
            if (upper != null && compare(k, upper) >= 0) {
                seekBelowUpper();
            } else {
                merger.seekForPrev(k, 0, key.length);
            }
            settleBackwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
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
        entryOf = null;
        while (merger.isValid()) {
            if (upper != null && compareCurrent(upper) >= 0) {
                outside = true;
                return;
            }
            if (!merger.isTombstone()) {
                return;
            }
            if (!merger.skipHiddenForwards()) {
                merger.next();
            }
        }
    }

    /** After a backward move: passes over tombstones, and stops at the lower bound. */
    private void settleBackwards() {
        outside = false;
        entryOf = null;
        while (merger.isValid()) {
            if (lower != null && compareCurrent(lower) < 0) {
                outside = true;
                return;
            }
            if (!merger.isTombstone()) {
                return;
            }
            if (!merger.skipHiddenBackwards()) {
                merger.prev();
            }
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
    public boolean isValid() {
        enter();
        try {
            return merger.isValid() && !outside;
        } finally {
            exit();
        }
    }

    @Override
    public byte[] key() {
        enter();
        try {
            fetch();
            return copy(keyMemory, keyOffset, keyLength);
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    @Override
    public byte[] value() {
        enter();
        try {
            fetch();
            return copy(valueMemory, valueOffset, valueLength);
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    @Override
    public MemorySegment keyView() {
        enter();
        try {
            fetch();
            return views.view(keyMemory, keyOffset, keyLength);
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    @Override
    public MemorySegment valueView() {
        enter();
        try {
            fetch();
            return views.view(valueMemory, valueOffset, valueLength);
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    /**
     * The scans of {@link RemixDB#scan} and {@link Snapshot#scan}: checks the arguments before a
     * cursor is opened, then scans with the cursor {@code open} makes and closes it.
     */
    static int scan(int limit, EntryVisitor visitor, java.util.function.Supplier<Cursor> open) {
        if (visitor == null) {
            throw new IllegalArgumentException("visitor must not be null");
        }
        if (limit < 0) {
            throw new IllegalArgumentException("negative limit: " + limit);
        }
        try (Cursor c = open.get()) {
            return ((StoreCursor) c).scan(limit, visitor);
        }
    }

    /**
     * From the first key of the cursor's range, hands up to {@code limit} entries to {@code visitor}
     * as views valid during its call; returns how many it saw. One call for the whole scan.
     */
    private int scan(int limit, EntryVisitor visitor) {
        enter();
        int n = 0;
        try {
            beginMove();
            first();
            while (n < limit && merger.isValid() && !outside) {
                fetch();
                n++;
                boolean more;
                guard.enterCallback();
                try {
                    more = visitor.visit(views.view(keyMemory, keyOffset, keyLength),
                            views.view(valueMemory, valueOffset, valueLength));
                } finally {
                    guard.exitCallback();
                    if (views.endableByCaller()) {
                        views.end();
                    }
                }
                if (guard.isClosing()) {
                    // The visitor closed the cursor (or the store) on this thread.
                    throw new ClosedException("cursor of " + store);
                }
                if (!more || n == limit) {
                    break;
                }
                entryOf = null;
                merger.next();
                settleForwards();
            }
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
        return n;
    }

    /** A bulk copy straight into a new array: no slice object, one bounds and liveness check. */
    private static byte[] copy(MemorySegment from, long offset, int length) {
        byte[] out = new byte[length];
        MemorySegment.copy(from, ValueLayout.JAVA_BYTE, offset, out, 0, length);
        return out;
    }

    @Override
    public void next() {
        enter();
        try {
            positioned();
            beginMove();
            merger.next();
            settleForwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    @Override
    public void prev() {
        enter();
        try {
            positioned();
            beginMove();
            merger.prev();
            settleBackwards();
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            exit();
        }
    }

    /** Reads the current entry's memory from its source, once per position. */
    private void fetch() {
        Source s = positioned();
        if (entryOf != s) {
            keyMemory = s.keySegment();
            keyOffset = s.keyOffset();
            keyLength = s.keyLength();
            valueMemory = s.valueSegment();
            valueOffset = s.valueOffset();
            valueLength = s.valueLength();
            entryOf = s;
        }
    }

    private Source positioned() {
        if (!merger.isValid() || outside) {
            throw new IllegalStateException("cursor is not positioned at a key");
        }
        return merger.current();
    }

    @Override
    public void close() {
        handle.close(false);
    }

    /**
     * What a cursor's close releases, and the close itself: the read state, the merger (with the
     * blocks it pins), the views. Refers to no cursor, so that a cursor dropped unclosed can become
     * garbage while the store tracks this.
     */
    static final class Handle {
        private final Store store;
        private final ReadState state;
        private final Merger merger;
        private final CallGuard guard;
        private final EntryViews views;
        /** The store's weak reference to the cursor, set when the store tracks it. */
        volatile Object tracking;
        /**
         * After a close by another thread than the views': releases what the views can reach, once
         * (a cleaner's {@code clean}, or the release itself when no cleaner could be had).
         */
        private volatile Runnable deferred;

        Handle(Store store, ReadState state, Merger merger, CallGuard guard, EntryViews views) {
            this.store = store;
            this.state = state;
            this.merger = merger;
            this.guard = guard;
            this.views = views;
        }

        /**
         * A call on a closed or closing cursor: waits for the close to finish (it waits for no call,
         * so this is short), ends the views another thread's close left to this one; returns the
         * exception to throw.
         */
        ClosedException closedCall() {
            for (int spins = 0; !guard.isClosed(); spins++) {
                if (spins < 100) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
            ClosedException closed = new ClosedException("cursor of " + store);
            Runnable d = deferred;
            if (d != null) {
                if (views.endDetached()) {
                    deferred = null;
                    try {
                        d.run();  // the views are gone: free what they showed now, not at the next GC
                    } catch (RuntimeException e) {
                        closed.addSuppressed(e);
                    }
                }
            } else if (views.openByCaller()) {
                views.end();  // copies left by a close on another thread
            }
            return closed;
        }

        /**
         * Closes the cursor: by its user, by the store's close, or ({@code leaked}) by the store
         * once the cursor was garbage-collected unclosed, on whatever thread found it.
         */
        void close(boolean leaked) {
            // The store closes cursors left open by other threads: only one close may release.
            if (!guard.beginClose()) {
                closedCall();  // close() is idempotent: it only finishes what another thread's close left
                return;
            }
            if (leaked) {
                store.counters().leakedCursors.increment();
            }
            try {
                if (!views.endableByCaller()) {
                    if (EntryViews.ZERO_COPY) {
                        closeKeepingViews();
                        return;
                    }
                    // Copies alias nothing of the store: release it all; their thread ends them later.
                } else {
                    views.end();
                }
                try {
                    merger.close();
                } finally {
                    state.release();
                    store.cursorClosed(this);
                }
            } finally {
                guard.endClose();
            }
        }

        /**
         * A close by another thread while views are open: the state goes now (so that the store's
         * close need not wait for a thread that may never come back), what the views can reach
         * goes later.
         */
        private void closeKeepingViews() {
            List<MemtableRef> memtables = new ArrayList<>(1 + state.frozen().size());
            try {
                memtables.add(state.mem());
                memtables.addAll(state.frozen());
                for (MemtableRef m : memtables) {
                    m.retain();
                }
                store.viewsHeld();
                // Refers to neither the cursor nor the views' scope, or the cleaner could never run.
                Merger m = merger;
                Store st = store;
                Runnable release = () -> {
                    try {
                        m.close();
                    } finally {
                        try {
                            RefCounted.releaseAll(memtables, null);
                        } finally {
                            st.viewsReleased();
                        }
                    }
                };
                java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
                Runnable once = () -> {
                    if (done.compareAndSet(false, true)) {
                        release.run();
                    }
                };
                Runnable d;
                try {
                    d = ViewCleaner.CLEANER.register(views.scope(), once)::clean;
                } catch (RuntimeException | Error e) {
                    // No cleaner (its thread could not start): only the views' thread, when it comes
                    // back, frees what they show. Never free it under them.
                    d = once;
                }
                deferred = d;
                views.detach();
            } finally {
                try {
                    state.release();
                } finally {
                    store.cursorClosed(this);
                }
            }
        }
    }
}
