package dev.remixdb.engine;

import dev.remixdb.ClosedException;
import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.Stats;
import dev.remixdb.cache.BlockCache;
import dev.remixdb.io.BlockReader;
import dev.remixdb.memtable.Memtable;
import dev.remixdb.remix.RemixCursor;
import dev.remixdb.table.TableOptions;
import dev.remixdb.version.FileNames;
import dev.remixdb.version.Manifest;
import dev.remixdb.version.Partition;
import dev.remixdb.version.TableHandle;
import dev.remixdb.version.Version;
import dev.remixdb.wal.WalOp;
import dev.remixdb.wal.WalWriter;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The storage engine behind {@link dev.remixdb.RemixDB}: the write path (group commit into the WAL,
 * then the memtable), the read path (memtables, then the partition's REMIX), memtable switches,
 * version installs and shutdown. Recovery is in {@link Recovery}, compaction in {@link Compactor}.
 *
 * <p>Concurrency: {@link #lock} guards the writer queue, the memtable switch and the view swap.
 * Readers take no lock: they retain the current {@link View}. One writer at a time, the leader of a
 * group, appends to the WAL and inserts into the active memtable, holding {@link #insertLock};
 * compaction holds the same lock when it puts aborted data back into the active memtable.
 */
public final class Engine implements AutoCloseable {
    private final Path dir;
    private final Options options;
    private final TableOptions tableOptions;
    private final BlockReader reader;
    private final BlockCache cache;
    private final FileChannel lockChannel;
    private final FileLock fileLock;
    /** This JVM's claim on the directory ({@link StoreLocks}), given back after the LOCK is released. */
    private final String claim;
    final Counters counters = new Counters();

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a compaction finishes or the store closes: stalled writers re-check. */
    private final Condition roomMade = lock.newCondition();
    /** Signalled when a memtable is frozen or the store closes: the compactor wakes up. */
    private final Condition workReady = lock.newCondition();
    private final ArrayDeque<Writer> writers = new ArrayDeque<>();
    private final ReentrantLock insertLock = new ReentrantLock();
    /** The thread running a read-modify-write function at the head of the queue, or null. */
    private Thread preparing;
    /** True from handing a view to the compactor until it has let go of it (guarded by lock). */
    private boolean compacting;

    private volatile View view;
    private volatile long visibleSeq;
    private long lastSeq;
    private WalWriter wal;
    private final AtomicLong nextFile;
    private volatile Throwable failure;
    private volatile boolean closed;
    private final Set<EngineCursor> cursors = ConcurrentHashMap.newKeySet();
    private final Compactor compactor;

    Engine(Recovery.State s) {
        this.dir = s.dir();
        this.options = s.options();
        this.tableOptions = s.tableOptions();
        this.reader = s.reader();
        this.cache = s.cache();
        this.lockChannel = s.lockChannel();
        this.fileLock = s.fileLock();
        this.claim = s.claim();
        this.nextFile = new AtomicLong(s.nextFileNumber());
        this.lastSeq = s.lastSeq();
        this.visibleSeq = s.lastSeq();
        this.wal = s.wal();
        this.view = new View(s.mem(), null, s.version());
        s.mem().release();
        s.version().release();
        this.compactor = new Compactor(this, options.compactionThreads());
        compactor.start();
    }

    /** Opens (creating or recovering) the store in {@code dir}. */
    public static Engine open(Path dir, Options options) throws IOException {
        return new Engine(Recovery.recover(dir, options));
    }

    // ------------------------------------------------------------------ accessors for the compactor

    Path dir() {
        return dir;
    }

    Options options() {
        return options;
    }

    TableOptions tableOptions() {
        return tableOptions;
    }

    BlockReader reader() {
        return reader;
    }

    BlockCache cache() {
        return cache;
    }

    long newFileNumber() {
        return nextFile.getAndIncrement();
    }

    // ------------------------------------------------------------------ views

    /** The current view, retained: release it when done. */
    View acquireView() {
        for (;;) {
            View v = view;
            if (v.tryRetain()) {
                return v;
            }
            checkOpen();
        }
    }

    // ------------------------------------------------------------------ writes

    /** Most bytes one group gathers from the queue, so that one slow leader does not carry all. */
    private static final long MAX_GROUP_BYTES = 4L << 20;

    /**
     * Writes {@code ops} atomically (one WAL record), durably when {@code sync}. Concurrent writers
     * are grouped: the first in the queue writes everybody's records with one fsync (group commit).
     */
    public void write(List<WalOp> ops, boolean sync) throws IOException {
        write(new Writer(ops, sync || options.syncWrites(), lock.newCondition()), false);
    }

    /**
     * A read-modify-write: {@code prepare} runs once, when this write reaches the head of the
     * queue, and returns the ops to write (none: nothing is written). Until they are applied no other
     * write happens, so the reads {@code prepare} makes through {@link #get} are current. Other
     * writers wait while it runs; it must not write to this engine itself.
     */
    public void update(Supplier<List<WalOp>> prepare, boolean sync) throws IOException {
        write(new Writer(prepare, sync || options.syncWrites(), lock.newCondition()), false);
    }

    private void write(Writer w, boolean flush) throws IOException {
        List<Writer> group;
        long firstSeq;
        long groupLastSeq;
        boolean syncGroup = false;
        WalWriter log;
        MemtableRef mem;
        lock.lock();
        try {
            checkWritable();
            if (preparing == Thread.currentThread()) {
                throw new IllegalStateException("a read-modify-write function must not write to the store it runs on");
            }
            writers.addLast(w);
            while (!w.done && writers.peekFirst() != w) {
                w.turn.awaitUninterruptibly();
            }
            if (w.done) {
                rethrow(w.error);
                return;
            }
            try {
                if (w.prepare != null) {
                    w.ops = prepareAtHead(w);
                }
                if (!flush && w.ops.isEmpty()) {
                    leaveHead();
                    return;
                }
                makeRoom(w.bytes(), flush);
            } catch (RuntimeException | IOException | Error e) {
                leaveHead();
                throw e;
            }
            if (flush) {
                leaveHead();
                return;
            }
            // The group takes what fits the memtable's room, so that a full memtable never holds
            // more than memtableBytes (one table's worth, see TableSink); the leader always goes.
            // It stops at a read-modify-write: that one must read what this group writes.
            group = new ArrayList<>();
            long room = Math.min(MAX_GROUP_BYTES, options.memtableBytes() - view.mem.memtable.dataBytes());
            long bytes = 0;
            for (Writer x : writers) {
                long b = x.bytes();
                if (!group.isEmpty() && (bytes + b > room || x.prepare != null)) {
                    break;
                }
                group.add(x);
                syncGroup |= x.sync;
                bytes += b;
            }
            firstSeq = lastSeq + 1;
            for (Writer x : group) {
                lastSeq += x.ops.size();
            }
            groupLastSeq = lastSeq;
            log = wal;
            mem = view.mem;
        } finally {
            lock.unlock();
        }
        Throwable error = null;
        try {
            append(group, firstSeq, syncGroup, log, mem.memtable);
        } catch (Throwable t) {
            error = t;
        }
        lock.lock();
        try {
            if (error != null) {
                // The WAL may now hold part of the group: later writes must not appear to succeed.
                failure = error;
            } else {
                visibleSeq = groupLastSeq;
            }
            for (Writer x : group) {
                writers.removeFirst();
                x.done = true;
                x.error = error;
                if (x != w) {
                    x.turn.signal();
                }
            }
            if (!writers.isEmpty()) {
                writers.peekFirst().turn.signal();
            }
        } finally {
            lock.unlock();
        }
        rethrow(error);
    }

    /**
     * Under {@link #lock}, by the head of the queue: runs its prepare function without the lock (it
     * reads, and others must be able to queue meanwhile). Being the head keeps every other write
     * out until this one is applied or leaves.
     */
    private List<WalOp> prepareAtHead(Writer w) throws IOException {
        preparing = Thread.currentThread();
        lock.unlock();
        List<WalOp> ops;
        try {
            ops = w.prepare.get();
        } finally {
            lock.lock();
            preparing = null;
        }
        checkWritable();
        return ops == null ? List.of() : ops;
    }

    /** Under {@link #lock}: the head leaves the queue without writing; the next one goes. */
    private void leaveHead() {
        writers.removeFirst();
        if (!writers.isEmpty()) {
            writers.peekFirst().turn.signal();
        }
    }

    private void append(List<Writer> group, long firstSeq, boolean sync, WalWriter log, Memtable mem)
            throws IOException {
        insertLock.lock();
        try {
            long seq = firstSeq;
            for (Writer x : group) {
                counters.walBytes.add(log.append(seq, x.ops));
                seq += x.ops.size();
            }
            if (sync) {
                log.sync();
            }
            seq = firstSeq;
            for (Writer x : group) {
                for (WalOp op : x.ops) {
                    if (op.delete()) {
                        mem.delete(seq, op.key());
                    } else {
                        mem.add(seq, op.key(), op.value());
                    }
                    counters.userBytes.add(op.key().length + (op.value() == null ? 0 : op.value().length));
                    seq++;
                }
            }
        } finally {
            insertLock.unlock();
        }
    }

    private static void rethrow(Throwable t) throws IOException {
        switch (t) {
            case null -> { }
            case IOException e -> throw new IOException("write failed: " + e.getMessage(), e);
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IOException(t);
        }
    }

    /**
     * Under {@link #lock}, by the queue's leader: makes sure the active memtable has room for
     * {@code incoming} more bytes, freezing it when not (or, with {@code force}, whenever it is not empty). While the previous frozen memtable is still
     * being compacted, the writer waits (a stall, counted).
     */
    private void makeRoom(long incoming, boolean force) throws IOException {
        for (;;) {
            checkWritable();
            View v = view;
            long used = v.mem.memtable.dataBytes();
            // A write larger than a whole memtable goes alone into an empty one.
            if (force ? v.mem.memtable.entryCount() == 0 : used == 0 || used + incoming <= options.memtableBytes()) {
                return;
            }
            if (v.imm != null) {
                long start = System.nanoTime();
                roomMade.awaitUninterruptibly();
                counters.stallNanos.add(System.nanoTime() - start);
                continue;
            }
            v.mem.flushAll = force;
            switchMemtable(v);
            return;
        }
    }

    private void switchMemtable(View v) throws IOException {
        long number = newFileNumber();
        WalWriter next = WalWriter.create(FileNames.wal(dir, number), number);
        Manifest.syncDirectory(dir);
        WalWriter old = wal;
        wal = next;
        try {
            old.close();
        } catch (IOException e) {
            failure = e;
            throw e;
        }
        MemtableRef fresh = new MemtableRef(new Memtable(), number);
        swap(new View(fresh, v.mem, v.version));
        fresh.release();
        workReady.signalAll();
    }

    /** Under {@link #lock}: makes {@code next} the current view. */
    private void swap(View next) {
        View old = view;
        view = next;
        old.release();
    }

    /** Forces every acknowledged write to disk. */
    public void sync() throws IOException {
        checkOpen();
        WalWriter log;
        lock.lock();
        try {
            log = wal;
        } finally {
            lock.unlock();
        }
        try {
            log.sync();
        } catch (IOException e) {
            lock.lock();
            try {
                // A WAL switched out meanwhile was synced when it was closed: nothing is lost.
                if (log == wal) {
                    // After a failed fsync the kernel may have dropped the dirty pages and a later
                    // fsync can succeed without them: nothing written since the last good sync can be
                    // promised durable, so this store takes no more writes (reopen recovers the WAL).
                    if (failure == null) {
                        failure = e;
                    }
                    roomMade.signalAll();
                    throw e;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    // ------------------------------------------------------------------ reads

    /** The value of {@code key}, or null when it is absent or deleted. */
    public byte[] get(byte[] key) {
        View v = acquireView();
        try {
            return get(v, visibleSeq, key);
        } finally {
            v.release();
        }
    }

    /** The value of {@code key} in {@code v} as of {@code seq}, or null. */
    static byte[] get(View v, long seq, byte[] key) {
        for (MemtableRef m = v.mem; m != null; m = m == v.mem ? v.imm : null) {
            long node = m.memtable.find(key, seq);
            if (node >= 0) {
                return m.memtable.isTombstone(node) ? null : m.memtable.value(node);
            }
        }
        Partition p = v.version.partition(v.version.find(key));
        if (p.remix() == null) {
            return null;
        }
        try (RemixCursor c = p.remix().cursor(RemixCursor.Mode.LIVE)) {
            return c.get(key) ? c.valueBytes() : null;
        }
    }

    /**
     * A cursor over a snapshot of the store as of now, limited to [{@code lower}, {@code upper})
     * (null: open).
     */
    public Cursor cursor(byte[] lower, byte[] upper) {
        checkOpen();
        View v = acquireView();
        return cursor(v, visibleSeq, lower, upper);
    }

    /** A cursor on {@code v} as of {@code seq}; takes over the caller's reference to {@code v}. */
    Cursor cursor(View v, long seq, byte[] lower, byte[] upper) {
        EngineCursor c;
        try {
            c = new EngineCursor(this, v, seq, lower, upper);
        } catch (RuntimeException | Error e) {
            v.release();
            throw e;
        }
        cursors.add(c);
        if (closed) {
            c.close();
            checkOpen();
        }
        return c;
    }

    /** A consistent read-only view of the store as of now; see {@link dev.remixdb.Snapshot}. */
    public dev.remixdb.Snapshot snapshot() {
        checkOpen();
        View v = acquireView();
        EngineSnapshot s;
        try {
            s = new EngineSnapshot(this, v, visibleSeq);
        } catch (RuntimeException | Error e) {
            v.release();
            throw e;
        }
        if (closed) {
            s.close();
            checkOpen();
        }
        return s;
    }

    /** Snapshots not yet closed: the store closes them at its own close. */
    final Set<EngineSnapshot.Pin> snapshots = ConcurrentHashMap.newKeySet();

    void cursorClosed(EngineCursor c) {
        cursors.remove(c);
    }

    // ------------------------------------------------------------------ compaction hooks

    /** Blocks until a frozen memtable waits for compaction (returned retained with its view), or null at close. */
    View awaitWork() {
        lock.lock();
        try {
            while (!closed && failure == null && view.imm == null) {
                workReady.awaitUninterruptibly();
            }
            if (closed || failure != null) {
                return null;
            }
            View v = view;
            v.retain();
            compacting = true;
            return v;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The compactor is done with the view {@link #awaitWork()} gave it. Released before waiters wake, so
     * that files only the replaced version used are gone when {@link #awaitCompaction} returns.
     */
    void workDone(View v) {
        v.release();
        lock.lock();
        try {
            compacting = false;
            roomMade.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Puts the newest versions of aborted partitions' keys back into the active memtable and its WAL. */
    void reinsert(List<Compactor.Kept> entries) throws IOException {
        if (entries.isEmpty()) {
            return;
        }
        // No memtable switch can happen now: it waits for the frozen memtable being compacted.
        WalWriter log;
        MemtableRef mem;
        lock.lock();
        try {
            log = wal;
            mem = view.mem;
        } finally {
            lock.unlock();
        }
        insertLock.lock();
        try {
            for (Compactor.Kept e : entries) {
                counters.walBytes.add(log.append(e.seq(), List.of(new WalOp(e.delete(), e.key(), e.value()))));
            }
            log.sync();
            for (Compactor.Kept e : entries) {
                if (e.delete()) {
                    mem.memtable.delete(e.seq(), e.key());
                } else {
                    mem.memtable.add(e.seq(), e.key(), e.value());
                }
            }
        } finally {
            insertLock.unlock();
        }
    }

    /**
     * Makes {@code next} the current version, replacing the frozen memtable it absorbed: writes the
     * MANIFEST (crash-atomic), swaps the view, then lets go of what the new version no longer uses.
     *
     * @param next     the new version; its creator reference passes to the engine
     * @param replaced partitions of the old version that {@code next} does not list
     */
    void install(Version next, List<Partition> replaced) throws IOException {
        Manifest.syncDirectory(dir);
        long firstLiveWal;
        Manifest.Data data;
        lock.lock();
        try {
            firstLiveWal = view.mem.firstWal;
            data = new Manifest.Data(nextFile.get(), firstLiveWal, lastSeq, next.sequence(), Manifest.entries(next));
        } finally {
            lock.unlock();
        }
        try {
            counters.flushBytes.add(Manifest.write(dir, data));
        } catch (IOException | RuntimeException e) {
            next.release();
            throw e;
        }
        Set<TableHandle> kept = new HashSet<>();
        for (Partition p : next.partitions()) {
            kept.addAll(p.tables());
        }
        for (Partition p : replaced) {
            p.markObsolete();
            for (TableHandle t : p.tables()) {
                if (!kept.contains(t)) {
                    // Its cached blocks go when the table closes (Table.close), after its last reader.
                    t.markObsolete();
                }
            }
        }
        lock.lock();
        try {
            swap(new View(view.mem, null, next));
            next.release();
            roomMade.signalAll();
        } finally {
            lock.unlock();
        }
        FileNames.deleteWalsBefore(dir, firstLiveWal);
    }

    /** A background failure: writes fail from now on with it as the cause; reads go on. */
    void failed(Throwable t) {
        lock.lock();
        try {
            if (failure == null) {
                failure = t;
            }
            roomMade.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ stats, close

    /** Counters and sizes as of now. */
    public Stats stats() {
        View v = acquireView();
        try {
            return StatsCollector.collect(v, counters, cache, dir, snapshots.size(), cursors.size());
        } finally {
            v.release();
        }
    }

    /** Throws {@link ClosedException} once the store is closed. */
    public void checkOpen() {
        if (closed) {
            throw new ClosedException("RemixDB at " + dir);
        }
    }

    private void checkWritable() throws IOException {
        checkOpen();
        Throwable f = failure;
        if (f != null) {
            throw new IOException("RemixDB at " + dir + " cannot write after a failure: " + f, f);
        }
    }

    /**
     * Waits for writes in progress and the running compaction, closes open cursors, syncs the WAL
     * and frees every file and segment. Idempotent.
     */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            roomMade.signalAll();
            workReady.signalAll();
        } finally {
            lock.unlock();
        }
        Throwable error = null;
        try {
            compactor.close();
        } catch (Throwable t) {
            error = t;
        }
        // A leader already appending finishes its group: wait for it. One that passed its checks but
        // has not reached the WAL yet finds it closed and fails having written nothing (RemixDB turns
        // that into ClosedException).
        insertLock.lock();
        try {
            wal.close();
        } catch (Throwable t) {
            error = addTo(error, t);
        } finally {
            insertLock.unlock();
        }
        for (EngineCursor c : List.copyOf(cursors)) {
            c.close();
        }
        for (EngineSnapshot.Pin p : List.copyOf(snapshots)) {
            p.release(false);
        }
        try {
            view.release();
        } catch (Throwable t) {
            error = addTo(error, t);
        }
        for (AutoCloseable c : new AutoCloseable[] {cache, reader, fileLock, lockChannel, () -> StoreLocks.release(claim)}) {
            try {
                c.close();
            } catch (Throwable t) {
                error = addTo(error, t);
            }
        }
        rethrow(error);
    }

    private static Throwable addTo(Throwable first, Throwable next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /**
     * Waits until no frozen memtable is left and the compactor has let go of the version it compacted
     * (for tests and benchmarks); false on timeout.
     *
     * @throws IOException when compaction failed (the store then refuses writes)
     */
    public boolean awaitCompaction(long timeout, TimeUnit unit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        lock.lock();
        try {
            while ((view.imm != null || compacting) && failure == null) {
                checkOpen();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                roomMade.awaitNanos(left);
            }
            checkWritable();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Freezes the active memtable now if it holds anything, so that compaction picks it up (tests,
     * benchmarks). It takes its turn in the writer queue, so no write is in flight during the switch.
     */
    public void flush() throws IOException {
        write(new Writer(List.of(), false, lock.newCondition()), true);
    }

    @Override
    public String toString() {
        return "RemixDB[" + dir + "]";
    }
}
