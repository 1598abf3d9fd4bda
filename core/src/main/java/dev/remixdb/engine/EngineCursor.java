package dev.remixdb.engine;

import dev.remixdb.ClosedException;
import dev.remixdb.Cursor;
import dev.remixdb.remix.RemixCursor;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * A user's cursor: the active memtable, the frozen one and the version, merged newest first as of
 * the sequence number seen at creation, with tombstones hidden. It keeps its view (memtables,
 * tables, REMIXes) alive until closed.
 *
 * <p>Every method holds the cursor's monitor. The cursor has one user thread, but the store's
 * {@link Engine#close()} closes it from another: the monitor makes that close wait for a call in
 * progress (which would otherwise read freed memtable memory, a cache slot already given to another
 * block, or fail with a bare NullPointerException), and calls after it see {@link ClosedException}.
 * Uncontended, the monitor costs a compare-and-swap per call and allocates nothing.
 */
final class EngineCursor implements Cursor {
    private final Engine engine;
    private final View view;
    private final Merger merger;
    private boolean closed;

    /** Takes over the caller's reference to {@code view}. */
    EngineCursor(Engine engine, View view, long snapshot) {
        this.engine = engine;
        this.view = view;
        List<Source> sources = new ArrayList<>(3);
        sources.add(new MemtableSource(view.mem.memtable, snapshot, null));
        if (view.imm != null) {
            sources.add(new MemtableSource(view.imm.memtable, snapshot, null));
        }
        // LIVE: the version's own tombstones never need to mask anything newer.
        sources.add(new VersionSource(view.version, RemixCursor.Mode.LIVE));
        this.merger = new Merger(sources);
    }

    @Override
    public synchronized void seekToFirst() {
        checkOpen();
        merger.seekToFirst();
        skipTombstones();
    }

    @Override
    public synchronized void seek(byte[] key) {
        checkOpen();
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        merger.seek(MemorySegment.ofArray(key), 0, key.length);
        skipTombstones();
    }

    private void skipTombstones() {
        while (merger.isValid() && merger.isTombstone()) {
            merger.next();
        }
    }

    @Override
    public synchronized boolean isValid() {
        checkOpen();
        return merger.isValid();
    }

    @Override
    public synchronized byte[] key() {
        Source s = positioned();
        return s.keySegment().asSlice(s.keyOffset(), s.keyLength()).toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public synchronized byte[] value() {
        Source s = positioned();
        return s.valueSegment().asSlice(s.valueOffset(), s.valueLength()).toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public synchronized void next() {
        positioned();
        merger.next();
        skipTombstones();
    }

    private Source positioned() {
        checkOpen();
        if (!merger.isValid()) {
            throw new IllegalStateException("cursor is not positioned at a key");
        }
        return merger.current();
    }

    private void checkOpen() {
        if (closed) {
            throw new ClosedException("cursor of " + engine);
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
            view.release();
            engine.cursorClosed(this);
        }
    }
}
