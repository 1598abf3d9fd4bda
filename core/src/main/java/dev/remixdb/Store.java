package dev.remixdb;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.compact.Compactor;
import dev.remixdb.engine.Checkpointer;
import dev.remixdb.engine.Counters;
import dev.remixdb.engine.EngineConfig;
import dev.remixdb.engine.ReadState;
import dev.remixdb.engine.Recovery;
import dev.remixdb.engine.VersionSet;
import dev.remixdb.engine.WritePipeline;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.io.BlockReader;
import dev.remixdb.cursor.ReadAhead;
import dev.remixdb.util.Closeables;
import dev.remixdb.wal.WalOp;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The engine assembled: the store directory, the block reader and cache, the {@link VersionSet},
 * the {@link WritePipeline} and the {@link Compactor}, plus what users hold open (cursors and
 * snapshots). It opens them in order, serves reads from the current read state, and closes them in
 * the reverse order. {@link RemixDB} checks arguments and delegates here.
 *
 * <p>Closing, and calls racing it: {@link #close()} first marks every part closed, so that a call
 * starting afterwards throws {@link ClosedException}; it then waits for the compactor and for the
 * group being appended, closes the WAL, closes open cursors and snapshots, and waits until every
 * read state is released (the last reader has finished) before it frees the cache, the reader and the
 * directory lock. A call that started before close therefore completes normally or throws
 * {@link ClosedException}; it never meets freed memory or a closed file.
 */
final class Store implements AutoCloseable {
    private final StoreDirectory dir;
    private final BlockReader reader;
    private final ReadAhead readAhead;
    private final BlockCache cache;
    private final Counters counters;
    private final VersionSet versions;
    private final WritePipeline writes;
    private final Compactor compactor;
    /** Open cursors, each through a weak reference, so that one dropped unclosed can be found. */
    private final Set<CursorRef> cursors = ConcurrentHashMap.newKeySet();
    /** Where the references of cursors garbage-collected unclosed arrive. */
    private final java.lang.ref.ReferenceQueue<StoreCursor> droppedCursors = new java.lang.ref.ReferenceQueue<>();
    private final Set<StoreSnapshot.Pin> snapshots = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Set when close() begins: writes that skip the WAL are refused from then on (see {@link #beginUnlogged}). */
    private volatile boolean closing;
    /** Writes that skip the WAL under way. */
    private final java.util.concurrent.atomic.AtomicInteger unloggedCalls = new java.util.concurrent.atomic.AtomicInteger();

    private Store(Recovery.Recovered r, EngineConfig config) {
        this.dir = r.dir();
        this.reader = r.reader();
        this.readAhead = new ReadAhead(r.cache(), reader.parallel());
        this.cache = r.cache();
        this.counters = new Counters();
        Supplier<ClosedException> closedError = this::closedError;
        // The cache's memory only grows (slots are reused, never unmapped), so its room only shrinks.
        BlockCache c = r.cache();
        LongSupplier cacheRoom = config.frozenInCacheRoom() ? () -> Math.max(0, c.capacityBytes() - c.memoryBytes()) : null;
        this.versions = new VersionSet(dir, r.nextFileNumber(), r.mem(), r.version(), config.maxFrozenMemtables(),
                cacheRoom, counters, closedError);
        r.mem().release();
        r.version().release();
        this.writes = new WritePipeline(config, versions, dir, counters, r.wal(), r.lastSeq(), closedError);
        this.compactor = new Compactor(versions, writes, config, dir.path(), reader, cache, counters);
        compactor.start();
    }

    /** Whether scans fetch ahead; shared by the store's cursors. */
    ReadAhead readAhead() {
        return readAhead;
    }

    /** Opens (creating or recovering) the store in {@code dir}. */
    static Store open(Path dir, EngineConfig config) throws IOException {
        return new Store(Recovery.recover(dir, config), config);
    }

    private ClosedException closedError() {
        return new ClosedException("RemixDB at " + dir.path());
    }

    Path path() {
        return dir.path();
    }

    // ------------------------------------------------------------------ writes

    void write(List<WalOp> ops) throws IOException {
        try {
            writes.write(ops, false);
        } catch (IOException e) {
            throw surface(e);
        }
    }

    void write(WalOp op) throws IOException {
        try {
            writes.write(op, false);
        } catch (IOException e) {
            throw surface(e);
        }
    }

    void writeUnlogged(List<WalOp> ops) throws IOException {
        beginUnlogged();
        try {
            writes.writeUnlogged(ops);
        } catch (IOException e) {
            throw surface(e);
        } finally {
            unloggedCalls.decrementAndGet();
        }
    }

    void writeDeferred(List<WalOp> ops) throws IOException {
        beginUnlogged();
        try {
            writes.writeDeferred(ops);
        } catch (IOException e) {
            throw surface(e);
        } finally {
            unloggedCalls.decrementAndGet();
        }
    }

    /**
     * Counts a write that skips the WAL as under way, or refuses it once close() has begun: close()
     * waits for those under way, then puts them into tables, so that none returns and is then lost
     * (a logged write that races close() is safe in the WAL, which close() writes out).
     */
    private void beginUnlogged() {
        unloggedCalls.incrementAndGet();
        // After the count, so that close() either sees it or this sees closing (both are volatile).
        if (closing) {
            unloggedCalls.decrementAndGet();
            throw closedError();
        }
    }

    void publishDeferred() throws IOException {
        checkOpen();
        try {
            writes.publishDeferred();
        } catch (IOException e) {
            throw surface(e);
        }
    }

    /**
     * A read-modify-write ({@link WritePipeline#update(byte[], Function, boolean)}) of a function that
     * reads {@code key}, whose value is read ahead on this thread.
     */
    void update(byte[] key, Function<WritePipeline.Reader, List<WalOp>> prepare) throws IOException {
        checkOpen();
        try {
            writes.update(key, prepare, false);
        } catch (IOException e) {
            throw surface(e);
        }
    }

    void sync() throws IOException {
        checkOpen();
        try {
            writes.sync();
        } catch (IOException e) {
            throw surface(e);
        }
    }

    /** See {@link RemixDB#checkpoint(Path)}; {@code allowLinks} false copies every file. */
    CheckpointReport checkpoint(Path target, boolean allowLinks) throws IOException {
        checkOpen();
        try {
            Checkpointer.Result r = Checkpointer.take(versions, writes, dir, target, allowLinks);
            return new CheckpointReport(r.dir(), r.filesLinked(), r.bytesLinked(), r.filesCopied(), r.bytesCopied(),
                    r.pauseNanos(), r.lastSequence());
        } catch (java.nio.channels.ClosedByInterruptException e) {
            // As the README says: an interrupted checkpoint ends with InterruptedIOException (the
            // thread keeps its interrupt status); the failed checkpoint left nothing at the target.
            java.io.InterruptedIOException x = new java.io.InterruptedIOException("checkpoint to " + target
                    + " interrupted");
            x.initCause(e);
            throw x;
        } catch (IOException e) {
            throw surface(e);
        }
    }

    /** See {@link RemixDB#compactRange}. */
    void compactRange(byte[] from, byte[] to) throws IOException, InterruptedException {
        checkOpen();
        try {
            java.util.concurrent.CompletableFuture<Void> done = compactor.compactRange(from, to);
            // A round must come even when nothing was written: an empty memtable is frozen for it.
            dev.remixdb.engine.MemtableRef frozen = writes.freezeMemtable(true);
            if (frozen != null) {
                frozen.release();
            }
            for (;;) {
                try {
                    done.get(100, TimeUnit.MILLISECONDS);
                    return;
                } catch (java.util.concurrent.TimeoutException e) {
                    versions.checkWritable();
                } catch (java.util.concurrent.ExecutionException e) {
                    if (closed) {
                        // The compactor's close failed the request: a call that raced close() says so.
                        throw closedError();
                    }
                    // The cause's message, not its name: that may be an engine class (a CorruptionException
                    // of the REMIX package, which surface() hands on as the public one).
                    throw e.getCause() instanceof IOException io ? io
                            : new IOException("compaction of the range failed: " + e.getCause().getMessage(), e.getCause());
                }
            }
        } catch (IOException e) {
            throw surface(e);
        }
    }

    /** Freezes the memtable and waits until compaction has written it into tables. */
    void compactMemtable() throws IOException, InterruptedException {
        try {
            writes.freezeMemtable();
            if (!versions.awaitCompaction(1, TimeUnit.HOURS)) {
                throw new IOException("compaction did not finish within an hour");
            }
        } catch (IOException e) {
            throw surface(e);
        }
    }

    /**
     * A write failure as users see it: when damage found by a compaction is behind it, the cause is
     * the API's {@link CorruptionException} (naming the file and offset), not the format layer's.
     */
    private static IOException surface(IOException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof CorruptionException) {
                return e;
            }
            if (t instanceof dev.remixdb.remix.CorruptionException damage) {
                IOException out = new IOException(e.getMessage(), new CorruptionException(damage));
                out.setStackTrace(e.getStackTrace());
                return out;
            }
        }
        return e;
    }

    // ------------------------------------------------------------------ reads

    byte[] get(byte[] key) {
        checkOpen();
        ReadState s = versions.acquire();
        try {
            return s.get(writes.visibleSequence(), key);
        } finally {
            s.release();
        }
    }

    /**
     * The values of {@code keys} as of now, read without blocking on the disk ({@link AsyncLookup}).
     * A closed store gives a future failed with {@link ClosedException}.
     */
    java.util.concurrent.CompletableFuture<java.util.List<byte[]>> multiGetAsync(byte[][] keys) {
        ReadState s;
        try {
            checkOpen();
            s = versions.acquire();
        } catch (ClosedException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
        long seq = writes.visibleSequence();
        if (reader.onOwnThread()) {
            // A user's stage of another lookup, on the I/O thread: reads through the I/O thread would
            // wait for the thread that waits for them (a multiGet's join, a getAsync(..).join()).
            // Blocking reads instead, which complete the future before it is returned.
            try {
                byte[][] values = new byte[keys.length][];
                for (int i = 0; i < keys.length; i++) {
                    values[i] = s.get(seq, keys[i]);
                }
                return java.util.concurrent.CompletableFuture.completedFuture(
                        java.util.Collections.unmodifiableList(java.util.Arrays.asList(values)));
            } catch (dev.remixdb.remix.CorruptionException e) {
                return java.util.concurrent.CompletableFuture.failedFuture(new CorruptionException(e));
            } catch (RuntimeException e) {
                return java.util.concurrent.CompletableFuture.failedFuture(e);
            } finally {
                s.release();
            }
        }
        return AsyncLookup.start(s, seq, keys, reader.parallel());
    }

    /** Whether the calling thread is the block reader's I/O thread (see {@link BlockReader#onOwnThread()}). */
    boolean onIoThread() {
        return reader.onOwnThread();
    }

    /** A cursor over a snapshot of the store as of now, limited to [lower, upper) (null: open). */
    Cursor cursor(byte[] lower, byte[] upper) {
        checkOpen();
        ReadState s = versions.acquire();
        return cursor(s, writes.visibleSequence(), lower, upper);
    }

    /** A cursor on {@code s} as of {@code seq}; takes over the caller's reference to {@code s}. */
    Cursor cursor(ReadState s, long seq, byte[] lower, byte[] upper) {
        closeDroppedCursors();
        StoreCursor c;
        try {
            c = new StoreCursor(this, s, seq, lower, upper);
        } catch (RuntimeException | Error e) {
            s.release();
            throw e;
        }
        CursorRef ref = new CursorRef(c, droppedCursors);
        c.handle().tracking = ref;
        cursors.add(ref);
        // close() marks the store closed before it closes the cursors it finds: one added after
        // that pass must close itself.
        if (closed) {
            c.close();
            checkOpen();
        }
        return c;
    }

    /** The store's weak reference to an open cursor, holding what its close releases. */
    private static final class CursorRef extends java.lang.ref.WeakReference<StoreCursor> {
        final StoreCursor.Handle handle;

        CursorRef(StoreCursor cursor, java.lang.ref.ReferenceQueue<StoreCursor> queue) {
            super(cursor, queue);
            this.handle = cursor.handle();
        }
    }

    void cursorClosed(StoreCursor.Handle h) {
        if (h.tracking instanceof CursorRef ref) {
            cursors.remove(ref);
            ref.clear();  // a closed cursor is not reported as dropped
        }
    }

    /**
     * Closes the cursors garbage-collected without a close, counting each as a leak: their read
     * states would otherwise keep memtables and tables alive until the store closes.
     */
    private void closeDroppedCursors() {
        for (java.lang.ref.Reference<? extends StoreCursor> r; (r = droppedCursors.poll()) != null; ) {
            CursorRef ref = (CursorRef) r;
            if (cursors.remove(ref)) {
                try {
                    ref.handle.close(true);
                } catch (RuntimeException | Error e) {
                    // Never the caller's failure (it may hold a read state this would leave taken).
                    System.getLogger(Store.class.getName()).log(System.Logger.Level.WARNING,
                            "closing a cursor dropped without close failed", e);
                }
            }
        }
    }

    private final Object viewLock = new Object();
    /** Cursors closed by another thread than their views', whose blocks must stay readable. */
    private int viewHolds;
    /** The store closed while views were held: the last release closes the cache. */
    private boolean cacheCloseDeferred;

    void viewsHeld() {
        synchronized (viewLock) {
            viewHolds++;
        }
    }

    void viewsReleased() {
        boolean closeCache;
        synchronized (viewLock) {
            closeCache = --viewHolds == 0 && cacheCloseDeferred;
            cacheCloseDeferred &= !closeCache;
        }
        if (closeCache) {
            cache.close();
        }
    }

    /**
     * The cache's memory goes with it; while a cursor closed under another thread's views still
     * pins blocks ({@link StoreCursor}), it goes with the last of them instead.
     */
    private void closeCacheUnlessViewsHeld() {
        synchronized (viewLock) {
            if (viewHolds > 0) {
                cacheCloseDeferred = true;
                return;
            }
        }
        cache.close();
    }

    /** A consistent read-only view of the store as of now. */
    Snapshot snapshot() {
        checkOpen();
        closeDroppedCursors();
        ReadState s = versions.acquire();
        StoreSnapshot snapshot;
        try {
            snapshot = new StoreSnapshot(this, s, writes.visibleSequence());
        } catch (RuntimeException | Error e) {
            s.release();
            throw e;
        }
        if (closed) {
            snapshot.close();
            checkOpen();
        }
        return snapshot;
    }

    Set<StoreSnapshot.Pin> snapshots() {
        return snapshots;
    }

    Counters counters() {
        return counters;
    }

    Stats stats() {
        checkOpen();
        closeDroppedCursors();
        ReadState s = versions.acquire();
        try {
            return StatsCollector.collect(s, counters, cache, dir.path(), snapshots.size(), cursors.size(),
                    reader.name(), readAhead.blocksFetched());
        } finally {
            s.release();
        }
    }

    // ------------------------------------------------------------------ close

    /** Throws {@link ClosedException} once the store is closed. */
    void checkOpen() {
        if (closed) {
            throw closedError();
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Refuses a close on the store's I/O thread, before anything is changed. */
    void checkCloseAllowed() {
        if (writes.inFunction()) {
            // It would wait for the writes in progress, among them the one this thread is applying.
            throw new IllegalStateException("a read-modify-write function must not close the store it runs on");
        }
        if (reader.onOwnThread() && !closed) {
            // It would wait for lookups that only this thread can finish, then stop this thread.
            throw new IllegalStateException("a store cannot be closed from a stage of its asynchronous read that runs"
                    + " on its I/O thread: close it from another thread, or attach the stage with an ...Async method");
        }
    }

    /**
     * Waits for writes in progress and the running compaction, closes open cursors and snapshots,
     * syncs the WAL, waits for the last reader, and frees every file and segment. Idempotent.
     */
    @Override
    public void close() throws IOException {
        checkCloseAllowed();
        Throwable error = null;
        synchronized (this) {
            if (closed) {
                return;
            }
            // Writes that skipped the WAL live only in memtables: into tables with them first, once
            // the last of them under way has returned.
            closing = true;
            while (unloggedCalls.get() > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
            try {
                if (writes.unloggedPending()) {
                    writes.sync();
                }
            } catch (IOException | RuntimeException e) {
                error = e;
            }
            closed = true;
        }
        versions.close();
        try {
            compactor.close();
        } catch (Throwable t) {
            error = t;
        }
        try {
            writes.close();
        } catch (Throwable t) {
            error = Closeables.add(error, t);
        }
        closeDroppedCursors();
        for (CursorRef c : List.copyOf(cursors)) {
            try {
                c.handle.close(false);
            } catch (Throwable t) {
                error = Closeables.add(error, t);  // close the rest of the store all the same
            }
        }
        for (StoreSnapshot.Pin p : List.copyOf(snapshots)) {
            p.release(false);
        }
        try {
            versions.releaseAndAwaitReaders();
        } catch (Throwable t) {
            error = Closeables.add(error, t);
        }
        List<AutoCloseable> rest = new ArrayList<>(List.of(this::closeCacheUnlessViewsHeld, reader, dir));
        error = Closeables.closeAll(rest, error);
        Closeables.rethrow(error);
    }

    @Override
    public String toString() {
        return "RemixDB[" + dir.path() + "]";
    }
}
