package dev.remixdb.engine;

import dev.remixdb.files.FileNames;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.memtable.Memtable;
import dev.remixdb.util.Closeables;
import dev.remixdb.wal.WalOp;
import dev.remixdb.wal.WalWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The write path: a queue of writers, group commit into the WAL, then the active memtable; memtable
 * switches when it is full (with a new WAL); and the re-insertion of data an aborted compaction
 * keeps in memory, through the same append path. Unless a write asks for a sync, its WAL record is
 * buffered and reaches the file within {@link EngineConfig#walFlushMillis()} ({@link WalFlusher}),
 * so that a stream of small writes shares records and write calls.
 *
 * <p>Concurrency: {@link #lock} guards the queue, the sequence numbers and the WAL switch. The
 * writer at the head of the queue leads: it takes the writes behind it that fit (a group), appends
 * them to the WAL with one fsync if any asked for one, and inserts them into the memtable holding
 * {@link #insertLock}, with {@link #lock} released so others can queue meanwhile. Only the head
 * switches memtables, so nothing else changes the active memtable under it. Readers see a group once
 * it is applied, when the visible sequence number passes it.
 */
public final class WritePipeline {
    /** Most bytes one group gathers from the queue, so that one slow leader does not carry all. */
    private static final long MAX_GROUP_BYTES = 4L << 20;

    /** A record for the WAL and the memtable: ops with sequence numbers {@code firstSeq, firstSeq + 1, ...}. */
    private record Numbered(long firstSeq, List<WalOp> ops) {}

    /** A version kept in memory by an aborted compaction, put back with its own sequence number. */
    public record Kept(long seq, WalOp op) {}

    private final EngineConfig config;
    private final VersionSet versions;
    private final StoreDirectory dir;
    private final Counters counters;
    private final Supplier<? extends RuntimeException> closedError;

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<WriteRequest> requests = new ArrayDeque<>();
    /**
     * The group being applied, reused by one leader after another: groups form one at a time (the
     * next head forms its own only after this one has left the queue, see {@link #submit}).
     */
    private final ArrayList<WriteRequest> group = new ArrayList<>();
    /** Each platform thread's request for plain writes (see {@link #reusableRequest}). */
    private final ThreadLocal<WriteRequest> reusable = new ThreadLocal<>();
    private final ReentrantLock insertLock = new ReentrantLock();
    /** Where the memtable copied the last inserted ops to, for the WAL (used under {@link #insertLock}). */
    private final EntryCopies copies = new EntryCopies();
    /** The thread running a read-modify-write function (the leader of a group), or null. */
    private volatile Thread applying;
    private long lastSeq;
    private volatile long visibleSeq;
    private volatile WalWriter wal;
    /** Writes buffered WAL records within {@code walFlushMillis}, and syncs and closes retired WALs. */
    private final WalFlusher flusher;
    /** When the last logged group was buffered (see {@link #sparse()}); guarded by {@link #insertLock}. */
    private long lastGroupNanos;
    private volatile boolean closed;

    /**
     * @param wal         the WAL of the active memtable; the pipeline owns it from now on
     * @param lastSeq     the last sequence number used so far
     * @param closedError what a call after close throws (the API's {@code ClosedException})
     */
    public WritePipeline(EngineConfig config, VersionSet versions, StoreDirectory dir, Counters counters, WalWriter wal,
                         long lastSeq, Supplier<? extends RuntimeException> closedError) {
        this.config = config;
        this.versions = versions;
        this.dir = dir;
        this.counters = counters;
        this.wal = wal;
        this.lastSeq = lastSeq;
        this.visibleSeq = lastSeq;
        this.closedError = closedError;
        versions.current().mem().startSeq(lastSeq + 1);
        versions.current().mem().memtable().expectFullAt(config.memtableBytes());
        this.flusher = new WalFlusher(() -> this.wal, dir, config.walFlushMillis() * 1_000_000, versions::fail,
                "remixdb-wal");
        flusher.start();
    }

    /** The sequence number of the newest write readers may see. */
    public long visibleSequence() {
        return visibleSeq;
    }

    /** The last sequence number handed out (possibly to a group still being written). */
    public long lastSequence() {
        lock.lock();
        try {
            return lastSeq;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ writes

    /**
     * Writes {@code ops} atomically (one WAL record), durably when {@code sync}. Concurrent writers
     * are grouped: the first in the queue writes everybody's records with one fsync (group commit).
     * The ops must be valid: the API checks user input before it gets here.
     */
    public void write(List<WalOp> ops, boolean sync) throws IOException {
        write(ops, null, sync);
    }

    /** {@link #write(List, boolean)} of one op. */
    public void write(WalOp op, boolean sync) throws IOException {
        write(null, op, sync);
    }

    private void write(List<WalOp> ops, WalOp op, boolean sync) throws IOException {
        sync |= config.syncWrites();
        WriteRequest w = reusableRequest();
        if (w == null) {
            submit(new WriteRequest(ops == null ? List.of(op) : ops, sync), false);
            return;
        }
        w.reuse(ops, op, sync);
        try {
            submit(w, false);
        } finally {
            w.recycle();
        }
    }

    /**
     * The calling thread's reusable request when it is free, else null: a virtual thread gets none
     * (it may write once and end, and a thread-local would cost it more than a request), nor does a
     * thread that already writes (a read-modify-write function it runs as a group's leader, which is
     * refused in {@link #submit}).
     */
    private WriteRequest reusableRequest() {
        if (Thread.currentThread().isVirtual()) {
            return null;
        }
        WriteRequest w = reusable.get();
        if (w == null) {
            w = WriteRequest.reusable();
            reusable.set(w);
        }
        return w.busy ? null : w;
    }

    /** Whether the calling thread is running a read-modify-write function (as its group's leader). */
    public boolean inFunction() {
        return applying == Thread.currentThread();
    }

    /** What a read-modify-write function reads through: the store as of the writes before it. */
    @FunctionalInterface
    public interface Reader {
        /** The value of {@code key}, or null when absent or deleted. */
        byte[] get(byte[] key);
    }

    /**
     * A read-modify-write: {@code prepare} runs once, in the group commit that applies this write,
     * just before its ops go in; it reads through the {@link Reader} the store as of every write
     * applied before it (the earlier writes of its own group included) and returns the ops to write
     * (none: nothing is written). So read-modify-writes of any keys join groups and share their WAL
     * writes, and those of one key see each other's results. The function runs on the thread that
     * leads the group, one at a time, while the group waits: keep it short. It must not write to this
     * store ({@link IllegalStateException}); when it throws, its write fails with that and changes
     * nothing, and the group goes on.
     *
     * <p>{@code key} is the key the function reads (it may read others): the caller's thread reads
     * its value before queueing, and the leader hands the function that value when the memtables
     * show that no write reached the key since ({@link ReadState#unchangedSince}), else reads it
     * again. What leaves the leader's thread is the read, which costs far more than a typical
     * function: concurrent read-modify-writes of different keys read in parallel.
     */
    public void update(byte[] key, Function<Reader, List<WalOp>> prepare, boolean sync) throws IOException {
        WriteRequest w = new WriteRequest(prepare, sync || config.syncWrites());
        // The sequence number first: every write up to it is in the state acquired after it.
        long seen = visibleSeq;
        ReadState s = versions.acquire();
        try {
            w.readValue = readForWrite(s, seen, key);
        } finally {
            s.release();
        }
        w.readKey = key;
        w.readSeq = seen;
        submit(w, false);
    }

    /**
     * Writes {@code ops} atomically without the WAL, for a caller that keeps its own log (a Kafka
     * changelog being restored): no WAL bytes, no fsync. They are durable only once the memtable that
     * holds them is compacted into tables, which {@link #sync()} and the next logged write make
     * happen first: a logged write never goes in while a write that skipped the WAL could still be
     * lost, so that whatever a crash loses is always the newest writes, logged or not.
     */
    public void writeUnlogged(List<WalOp> ops) throws IOException {
        submit(new WriteRequest(ops, false, false), false);
    }

    /**
     * Writes {@code ops} (puts and deletes only) as {@link #writeUnlogged} does, except that readers
     * do not see them until they are published, all at once: by {@link #publishDeferred()}, by any
     * write, sync, freeze or checkpoint that is not deferred (its turn publishes first), or when the
     * memtable holding them fills. They get their sequence numbers then, in the order they were
     * written, so a snapshot never sees a write appear after it was taken. Held back, a memtable's
     * worth of them is linked into its index in key order in one pass
     * ({@link Memtable#linkDeferred}): 1.7-2.4x cheaper than one insert at a time for random keys
     * (JMH {@code MemtableFillBenchmark}).
     */
    public void writeDeferred(List<WalOp> ops) throws IOException {
        for (WalOp op : ops) {
            if (op.type() == WalOp.Type.RANGE_DELETE) {
                throw new IllegalArgumentException("a deferred write takes puts and deletes, not range deletes");
            }
        }
        submit(WriteRequest.deferred(ops), false);
    }

    /** Makes every deferred write so far visible (see {@link #writeDeferred}): a turn in the queue. */
    public void publishDeferred() throws IOException {
        if (closed) {
            throw closedError.get();
        }
        submit(WriteRequest.turnOnly(), false);
    }

    /**
     * Under {@link #lock}, by the head of the queue (or the switch it makes): links the active
     * memtable's deferred writes with the next sequence numbers and makes them visible.
     */
    private void publishDeferred(Memtable active) throws IOException {
        int n = active.deferredCount();
        if (n == 0) {
            return;
        }
        insertLock.lock();
        try {
            if (closed) {
                throw closedError.get();
            }
            long first = lastSeq + 1;
            try {
                active.linkDeferred(first);
            } catch (RuntimeException | Error e) {
                // Part of them may be linked at seqs no reader may see yet: nothing later is safe.
                versions.fail(e);
                throw e;
            }
            lastSeq = first + n - 1;
            visibleSeq = lastSeq;
        } finally {
            insertLock.unlock();
        }
    }

    /**
     * Freezes the active memtable now if it holds anything, so that compaction writes all of it to
     * tables. It takes its turn in the queue, so no write is in flight during the switch.
     */
    public void freezeMemtable() throws IOException {
        MemtableRef frozen = freezeMemtable(false);
        if (frozen != null) {
            frozen.release();
        }
    }

    /**
     * Freezes the active memtable now (when it holds anything, or always with {@code evenIfEmpty}),
     * as {@link #freezeMemtable()}, and returns it retained (release it), or null when nothing was
     * frozen. Compaction of an empty memtable writes nothing new: it is a round in which partitions
     * can be compacted for reasons other than new data.
     */
    public MemtableRef freezeMemtable(boolean evenIfEmpty) throws IOException {
        WriteRequest w = WriteRequest.turnOnly(evenIfEmpty);
        submit(w, true);
        return w.frozen;
    }

    /** What {@link #atMoment} runs, told where the log of that moment ends. */
    @FunctionalInterface
    public interface Moment {
        /**
         * @param activeWal       the number of the active memtable's WAL
         * @param activeWalLength its length in bytes at this moment, at a record boundary: every
         *                        acknowledged logged write is in it or in an older live WAL
         * @param lastSequence    the sequence number of the newest acknowledged write
         */
        void at(long activeWal, long activeWalLength, long lastSequence) throws IOException;
    }

    /** Waits until the WALs memtable switches retired are synced and closed: they change no more. */
    public void awaitRetiredWals() throws IOException {
        flusher.awaitRetired();
    }

    /**
     * Runs {@code moment} at a moment when every write acknowledged before this call is applied and
     * no later one is: it takes a turn at the head of the write queue, first puts writes that skipped
     * the WAL into tables (as {@link #sync()} does), then flushes the active WAL's buffered records
     * to the file (no fsync) and runs {@code moment} with no group, memtable switch or re-insert in
     * flight. Writers queue meanwhile, so keep it short.
     */
    public void atMoment(Moment moment) throws IOException {
        if (closed) {
            throw closedError.get();
        }
        submit(WriteRequest.turnOnly(), false, true, moment);
    }

    private void runMoment(Moment moment) throws IOException {
        insertLock.lock();
        try {
            if (closed) {
                throw closedError.get();
            }
            WalWriter log = wal;
            log.flush();
            long number = FileNames.number(log.path().getFileName().toString(), FileNames.WAL).orElseThrow();
            // What the file holds, not what was added: a sync on another thread may add a mark
            // record meanwhile (it takes no turn), which the file may not hold yet.
            moment.at(number, log.bytesInFile(), lastSeq);
        } finally {
            insertLock.unlock();
        }
    }

    private void submit(WriteRequest w, boolean freeze) throws IOException {
        submit(w, freeze, false, null);
    }

    /**
     * With {@code persistOnly}, an empty request whose turn only persists unlogged writes, and then
     * runs {@code moment} if there is one.
     */
    private void submit(WriteRequest w, boolean freeze, boolean persistOnly, Moment moment) throws IOException {
        List<WriteRequest> group;
        long firstSeq;
        boolean syncGroup = false;
        WalWriter log;
        MemtableRef mem;
        // Refused before the lock: the function runs under insertLock, and a compaction putting
        // aborted versions back holds the lock while it waits for insertLock (reinsert), so a
        // function's write that waited for the lock first deadlocked the two.
        if (applying == Thread.currentThread()) {
            throw new IllegalStateException("a read-modify-write function must not write to the store it runs on");
        }
        lock.lock();
        try {
            checkWritable();
            requests.addLast(w);
            while (!w.done && requests.peekFirst() != w) {
                if (w.turn == null) {
                    w.turn = lock.newCondition();
                }
                w.turn.awaitUninterruptibly();
            }
            if (w.done) {
                rethrow(w);
                return;
            }
            try {
                checkWritable();
                if (!w.deferred) {
                    publishDeferred(versions.current().mem().memtable());
                }
                if (persistOnly) {
                    persistUnlogged();
                    if (moment != null) {
                        runMoment(moment);
                    }
                    leaveHead();
                    return;
                }
                if (!freeze && w.prepare == null && w.ops.isEmpty()) {
                    leaveHead();
                    return;
                }
                if (w.logged && !freeze) {
                    persistUnlogged();
                }
                w.frozen = makeRoom(w.bytes(), freeze, freeze && w.evenIfEmpty);
            } catch (RuntimeException | IOException | Error e) {
                leaveHead();
                throw e;
            }
            if (freeze) {
                leaveHead();
                return;
            }
            // The group takes what fits the memtable's room, so that a full memtable holds about
            // memtableBytes (one table's worth, see TableSink); the leader always goes. A
            // read-modify-write counts its key only: its value is not known before it runs.
            mem = versions.current().mem();
            group = this.group;
            long bytes;
            if (requests.size() == 1) {
                // Alone in the queue (one writer thread): a group of one.
                group.add(w);
                syncGroup = w.sync;
                bytes = w.bytes();
            } else {
                long room = Math.min(MAX_GROUP_BYTES, config.memtableBytes() - mem.memtable().dataBytes());
                bytes = 0;
                for (WriteRequest x : requests) {
                    long b = x.bytes();
                    // A group is all logged or all unlogged: a logged write must wait for the persist.
                    // A turn-only request does its own work when it leads: it never rides along.
                    if (!group.isEmpty() && (x.alone || bytes + b > room || x.logged != w.logged
                            || x.deferred != w.deferred)) {
                        break;
                    }
                    group.add(x);
                    syncGroup |= x.sync;
                    bytes += b;
                }
            }
            // Slowed by the whole group's bytes, not the leader's: the group may hold a write of
            // every writer thread. Only the head changes the memtable, so mem stays the one to fill.
            pace(mem.memtable().dataBytes(), bytes);
            firstSeq = lastSeq + 1;
            log = wal;
        } finally {
            lock.unlock();
        }
        // One group at a time: the next head forms its group only after this one leaves the queue,
        // so the sequence numbers from firstSeq on are this group's until then.
        long groupLastSeq = firstSeq - 1;
        Throwable error = null;
        try {
            long last = applyGroup(group, firstSeq, syncGroup, log, mem);
            if (last == Long.MIN_VALUE) {
                error = closedError.get();
            } else {
                groupLastSeq = last;
            }
        } catch (Throwable t) {
            // The WAL may now hold part of the group: later writes must not appear to succeed.
            error = t;
            versions.fail(t);
        }
        lock.lock();
        try {
            if (error == null) {
                lastSeq = groupLastSeq;
                visibleSeq = groupLastSeq;
            }
            for (int g = 0; g < group.size(); g++) {
                WriteRequest x = group.get(g);
                requests.removeFirst();
                x.done = true;
                if (error != null) {
                    x.error = error;
                }
                if (x != w) {
                    signal(x);
                }
            }
            group.clear();  // for the next head, which forms its group once this lock is let go
            if (!requests.isEmpty()) {
                signal(requests.peekFirst());
            }
        } finally {
            lock.unlock();
        }
        if (w.pokeFlusher) {
            flusher.poke();
        }
        rethrow(w);
    }

    /** Throws what failed {@code w}, if anything: its own function's exception as it is. */
    private static void rethrow(WriteRequest w) throws IOException {
        if (w.errorFromFunction) {
            WritePipeline.<RuntimeException>throwUnchecked(w.error);
        }
        rethrow(w.error);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void throwUnchecked(Throwable t) throws T {
        throw (T) t;
    }

    /**
     * Applies a group, holding {@link #insertLock}: each request in turn, a read-modify-write's
     * function first, its ops into the WAL (buffered) and the memtable with the next sequence
     * numbers; then one sync or write-out for the group. A function that throws fails its request
     * only. Returns the group's last sequence number, or {@link Long#MIN_VALUE} when the pipeline
     * closed first (nothing was written).
     */
    private long applyGroup(List<WriteRequest> group, long firstSeq, boolean sync, WalWriter log, MemtableRef mem)
            throws IOException {
        insertLock.lock();
        ReadState reading = null;
        try {
            if (closed) {
                // close() holds this lock while it closes the WAL: past it, nothing may be written.
                return Long.MIN_VALUE;
            }
            // The store may have failed since the head checked, while it waited in pace().
            versions.checkNotFailed();
            long seq = firstSeq;
            boolean logged = group.getFirst().logged;
            if (!logged && !mem.unlogged()) {
                mem.markUnlogged();
                // A bulk load: point lookups in this memtable search its tree instead.
                mem.memtable().stopPointIndex();
            }
            // Indexed: the iterator of a one-element list escaped compilation here, 34 bytes of
            // garbage per write (a JFR allocation profile of a single-writer load).
            for (int g = 0; g < group.size(); g++) {
                WriteRequest x = group.get(g);
                List<WalOp> ops = x.ops;
                if (x.prepare != null) {
                    if (reading == null) {
                        reading = versions.acquire();
                    }
                    ReadState state = reading;
                    long at = seq - 1;
                    applying = Thread.currentThread();
                    // An interrupt the function sets stays on this thread: it can only have caught an
                    // InterruptedException from an interrupt of this thread, which this restores (the
                    // WAL's I/O below ignores interrupts).
                    try {
                        ops = x.prepare.apply(key -> read(state, x, key, at));
                    } catch (Throwable e) {
                        // The caller's function failed (a checked exception too, thrown by a lambda
                        // that hides it): its request fails with it, the group and the store go on.
                        x.error = e;
                        x.errorFromFunction = true;
                        continue;
                    } finally {
                        applying = null;
                    }
                }
                if (ops == null || ops.isEmpty()) {
                    // Nothing to write (an empty batch, a function that changed nothing): an empty
                    // record would fail the WAL, and with it the store.
                    continue;
                }
                if (x.deferred) {
                    stageDeferred(mem.memtable(), ops);
                    continue;  // its seqs come when it is published
                }
                // The memtable copies the caller's arrays first, and the log is written from that
                // copy: both hold the same bytes even if a caller changes its arrays meanwhile
                // (the API does not copy them again).
                insert(mem.memtable(), seq, ops, true);
                if (logged) {
                    counters.walBytes.add(log.add(seq, ops, copies));
                }
                seq += ops.size();
            }
            if (seq == firstSeq || !logged) {
                return seq - 1;  // nothing for the WAL: unlogged writes, or read-modify-writes that changed nothing
            }
            if (sync) {
                flusher.awaitRetired();
                log.sync();
            } else if (config.walFlushMillis() == 0 || sparse()) {
                log.flush();
            } else {
                // Woken once the group has left the queue: a woken thread may take this one's core
                // on a busy machine, and the writers behind must not wait for that.
                group.getFirst().pokeFlusher = true;
            }
            return seq - 1;
        } finally {
            if (reading != null) {
                reading.release();
            }
            insertLock.unlock();
        }
    }

    /**
     * Under {@link #insertLock}, for a group just buffered in the WAL: whether it came at least
     * {@code walFlushMillis} after the previous one while the flusher sleeps with nothing to do, so
     * that the group writes itself out. Such a group would go out alone anyway (the buffer is
     * written within that time), and waking the flusher for it costs two thread wake-ups per write,
     * each of which can take a core from the writers on a busy machine; written here, it reaches the
     * file before the call returns. Dense writes keep sharing records and system calls.
     */
    private boolean sparse() {
        long now = System.nanoTime();
        boolean sparse = now - lastGroupNanos >= config.walFlushMillis() * 1_000_000L && flusher.idle();
        lastGroupNanos = now;
        return sparse;
    }

    /** What a read-modify-write's function reads of {@code key} at {@code seq}: read ahead when still valid. */
    private static byte[] read(ReadState state, WriteRequest x, byte[] key, long seq) {
        if (x.readKey != null && (key == x.readKey || Arrays.equals(key, x.readKey))
                && state.unchangedSince(key, x.readSeq, seq)) {
            return x.readValue;
        }
        return readForWrite(state, seq, key);
    }

    /**
     * A read that a write makes (a read-modify-write's value), as immune to interrupts as the write's
     * WAL I/O: a {@code FileChannel} read by an interrupted thread fails with InterruptedIOException,
     * which would fail the caller's write, or, read by a group's leader for another thread's write,
     * that other thread's. The interrupt status is cleared for the read, the read repeated if an
     * interrupt ends it, and the status set again after.
     */
    private static byte[] readForWrite(ReadState state, long seq, byte[] key) {
        boolean interrupted = Thread.interrupted();
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return state.get(seq, key);
                } catch (RuntimeException e) {
                    if (attempt >= 100 || !causedByInterrupt(e)) {
                        throw e;
                    }
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static boolean causedByInterrupt(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.io.InterruptedIOException) {
                return true;
            }
        }
        return false;
    }

    /** Adds {@code ops} to {@code mem} with seqs {@code seq, seq + 1, ...}. */
    private void insert(Memtable mem, long seq, List<WalOp> ops, boolean userWrites) {
        copies.reset(mem, ops.size());
        for (int i = 0; i < ops.size(); i++) {
            WalOp op = ops.get(i);
            switch (op.type()) {
                case PUT -> copies.nodes[i] = mem.add(seq, op.key(), op.value());
                case DELETE -> copies.nodes[i] = mem.delete(seq, op.key());
                case RANGE_DELETE -> mem.deleteRange(seq, op.key(), op.rangeEnd());
            }
            if (userWrites) {
                counters.userBytes.add(op.key().length + (op.value() == null ? 0 : op.value().length));
            }
            seq++;
        }
    }

    /** Adds deferred puts and deletes to {@code mem}, unseen until published. */
    private void stageDeferred(Memtable mem, List<WalOp> ops) {
        for (int i = 0; i < ops.size(); i++) {
            WalOp op = ops.get(i);
            if (op.type() == WalOp.Type.PUT) {
                mem.addDeferred(op.key(), op.value());
            } else {
                mem.deleteDeferred(op.key());
            }
            counters.userBytes.add(op.key().length + (op.value() == null ? 0 : op.value().length));
        }
    }

    /** Under {@link #lock}: the head leaves the queue without writing; the next one goes. */
    private void leaveHead() {
        requests.removeFirst();
        if (!requests.isEmpty()) {
            signal(requests.peekFirst());
        }
    }

    /** Under {@link #lock}: wakes {@code w}'s thread if it waits (one that does not yet sees the change when it checks). */
    private static void signal(WriteRequest w) {
        if (w.turn != null) {
            w.turn.signal();
        }
    }

    /**
     * Appends {@code records} to {@code log}, synced, and inserts their ops into {@code mem},
     * holding {@link #insertLock}: the path of re-inserted data. Returns false, having written
     * nothing, once the pipeline is closed.
     */
    private boolean append(List<Numbered> records, WalWriter log, Memtable mem) throws IOException {
        insertLock.lock();
        try {
            if (closed) {
                // close() holds this lock while it closes the WAL: past it, nothing may be written.
                return false;
            }
            for (Numbered r : records) {
                counters.walBytes.add(log.add(r.firstSeq(), r.ops()));
            }
            flusher.awaitRetired();
            log.sync();
            for (Numbered r : records) {
                insert(mem, r.firstSeq(), r.ops(), false);
            }
            return true;
        } finally {
            insertLock.unlock();
        }
    }

    private static void rethrow(Throwable t) throws IOException {
        if (t instanceof IOException e) {
            throw new IOException("write failed: " + e.getMessage(), e);
        }
        Closeables.rethrow(t);
    }

    private void checkWritable() throws IOException {
        if (closed) {
            throw closedError.get();
        }
        versions.checkWritable();
    }

    /**
     * Under {@link #lock}, by the queue's head: when any memtable holds writes that skipped the WAL,
     * freezes the active one (if it is one of them) and waits until compaction has put all of them
     * into tables, with the lock released so that others can queue. Then nothing written without the
     * WAL can be lost any more, and a logged write may follow it.
     */
    private void persistUnlogged() throws IOException {
        while (unloggedPending()) {
            if (!versions.current().mem().unlogged()) {
                // Only frozen memtables are left: wait until compaction has them in tables.
                awaitUnlocked(versions::awaitNoUnlogged);
            } else if (versions.canFreeze()) {
                switchMemtable();
            } else {
                awaitUnlocked(versions::awaitRoomToFreeze);
            }
        }
    }

    /** A wait on the version set, done with {@link #lock} released so that other writers can queue. */
    private void awaitUnlocked(Wait wait) throws IOException {
        lock.unlock();
        try {
            wait.await();
        } finally {
            lock.lock();
        }
    }

    @FunctionalInterface
    private interface Wait {
        void await() throws IOException;
    }

    /** Whether a memtable holds writes that skipped the WAL. */
    public boolean unloggedPending() {
        ReadState s = versions.current();
        if (s.mem().unlogged()) {
            return true;
        }
        // The array, not frozen(): this runs for every logged write, and a list per write is garbage.
        for (MemtableRef f : s.frozenArray()) {
            if (f.unlogged()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Under {@link #lock}, by the queue's head: makes sure the active memtable has room for
     * {@code incoming} more bytes, freezing it when not (or, with {@code force}, whenever it is not
     * empty, or always with {@code evenIfEmpty}); returns the memtable a forced freeze froze, retained,
     * else null. When every frozen slot is taken the writer waits (a stall), with the lock released so
     * that others can queue; before it comes to that, writers are slowed ({@link #pace}).
     */
    private MemtableRef makeRoom(long incoming, boolean force, boolean evenIfEmpty) throws IOException {
        for (;;) {
            checkWritable();
            ReadState s = versions.current();
            Memtable active = s.mem().memtable();
            long used = active.dataBytes();
            // A write larger than a whole memtable goes alone into an empty one. A memtable holding
            // many range deletes counts as full: every read checks them, until its compaction
            // applies them to the tables and they are gone.
            boolean manyRanges = active.rangeTombstones().length >= MAX_RANGE_DELETES;
            if (force ? active.isEmpty() && !evenIfEmpty
                    : !manyRanges && (used == 0 || used + incoming <= config.memtableBytes())) {
                return null;
            }
            if (!versions.canFreeze()) {
                // The full memtable's deferred writes are linked now, while the writer would only
                // wait, not after the stall, when the freeze that the compactor waits for (to take
                // this memtable in its next round) would wait for the link. Counted as a stall from
                // here, so that a round installed during the link still waits for the freeze.
                versions.stallStarts();
                try {
                    publishDeferred(active);
                    awaitUnlocked(versions::awaitRoomToFreeze);
                } finally {
                    versions.stallEnds();
                }
                continue;
            }
            s.mem().allToTables(force);
            if (!force) {
                switchMemtable();
                return null;
            }
            // A freeze on request hands the frozen memtable to its caller, retained.
            MemtableRef frozen = s.mem();
            frozen.retain();
            try {
                switchMemtable();
            } catch (IOException | RuntimeException | Error e) {
                frozen.release();
                throw e;
            }
            return frozen;
        }
    }

    /** Range deletes a memtable takes before it is frozen (reads check each one in turn). */
    static final int MAX_RANGE_DELETES = 64;

    /** The longest a single write group is slowed by {@link #pace}. */
    private static final long MAX_PACE_NANOS = 10_000_000;

    /**
     * Under {@link #lock}, by the queue's head once its group is formed: back-pressure before a
     * stall. While every frozen slot is taken (compaction is behind), a group of {@code incoming}
     * bytes waits so that writers use up the room left in the active memtable no faster than over
     * the time the compaction under way is expected to need still ({@link
     * VersionSet#roundSecondsLeft}): the fuller the memtable and the longer the round, the longer the
     * wait, at most {@link #MAX_PACE_NANOS} a group, so that writers slow down gradually instead of
     * running into a full stop. Waits are owed and made once they add up to {@link #MIN_PARK_NANOS};
     * a park that sleeps longer than asked is credited. The time is counted in
     * {@link Counters#slowdownNanos}.
     */
    private void pace(long used, long incoming) {
        if (incoming <= 0 || !versions.frozenFull()) {
            paceOwed = 0;  // compaction has caught up: nothing is owed any more
            return;
        }
        double seconds = versions.roundSecondsLeft();
        long room = config.memtableBytes() - used - incoming;
        if (seconds <= 0 || room <= 0) {
            // No estimate yet, or this group fills the memtable: the next one stalls anyway.
            return;
        }
        paceOwed += Math.min(MAX_PACE_NANOS, seconds * 1e9 * incoming / room);
        if (paceOwed < MIN_PARK_NANOS) {
            return;
        }
        long nanos = (long) Math.min(MAX_PACE_NANOS, paceOwed);
        lock.unlock();
        try {
            long start = System.nanoTime();
            LockSupport.parkNanos(this, nanos);
            long waited = System.nanoTime() - start;
            counters.slowdownNanos.add(waited);
            // A park sleeps tens of microseconds however short the wait asked for: what it slept
            // beyond the wait owed is credited to the next groups, so that a writer is not held
            // back far longer than owed (and room left unused when the round ends).
            paceOwed = Math.max(-MAX_PACE_NANOS, paceOwed - waited);
        } finally {
            lock.lock();
        }
    }

    /** The shortest wait {@link #pace} makes: less is owed until it adds up to this. */
    private static final long MIN_PARK_NANOS = 1_000;
    /**
     * Wait {@link #pace} owes and has not made yet, or (negative) has made beyond what was owed;
     * only the queue's head uses it, under {@link #lock}.
     */
    private double paceOwed;

    /**
     * Under {@link #lock}: a new WAL and memtable take the writes; the old memtable is frozen. Under
     * {@link #insertLock} too, so that a re-insert appending to the old WAL finishes first.
     */
    private void switchMemtable() throws IOException {
        // A memtable is frozen with all its writes visible: compaction and readers see it whole.
        publishDeferred(versions.current().mem().memtable());
        long number = versions.newFileNumber();
        // Its directory entry is made durable in the background (WalFlusher), before any sync
        // promises a write in it, and before a MANIFEST names it (the install syncs the directory).
        // Its records say whether they were written before the older WALs were synced, so that
        // recovery can tell a power cut during that sync from damage.
        WalWriter next = WalWriter.create(FileNames.wal(dir.path(), number), number,
                () -> flusher.syncedBefore(number), wal.bufferCapacity());
        insertLock.lock();
        try {
            WalWriter old = wal;
            try {
                old.flush();
            } catch (IOException e) {
                versions.fail(e);
                // The new WAL never gets a record: remove it, so that the old one, whose last record
                // the failed write may have torn, stays the newest (recovery and verify also accept
                // a torn WAL followed only by WALs without records, should the removal fail too).
                Closeables.closeAll(List.<AutoCloseable>of(next, () -> Files.deleteIfExists(next.path())), e);
                throw e;
            }
            // Its fsync covers a memtable's whole log: done in the background, and sync() waits for it.
            // Handed over before the new WAL takes a write, so that its first record sees it pending.
            flusher.retire(old);
            wal = next;
            MemtableRef fresh = VersionSet.newMemtable(number);
            fresh.startSeq(lastSeq + 1);
            fresh.memtable().expectFullAt(config.memtableBytes());
            versions.freeze(fresh);
            fresh.release();
        } finally {
            insertLock.unlock();
        }
    }

    /**
     * Forces every acknowledged write to disk: writes that skipped the WAL are first compacted into
     * tables (a turn in the queue), then the WAL is synced.
     */
    public void sync() throws IOException {
        if (closed) {
            throw closedError.get();
        }
        if (applying == Thread.currentThread()) {
            // Before the lock, as for writes (see submit): a compaction putting versions back holds
            // the lock while it waits for the insert lock, which the function's thread holds.
            throw new IllegalStateException("a read-modify-write function must not sync the store it runs on");
        }
        if (unloggedPending()) {
            // An empty logged write: its turn at the head persists what skipped the WAL.
            submit(WriteRequest.turnOnly(), false, true, null);
        }
        WalWriter log;
        lock.lock();
        try {
            log = wal;
        } finally {
            lock.unlock();
        }
        // WALs a memtable switch retired are synced in the background: their writes are older.
        flusher.awaitRetired();
        try {
            log.sync();
        } catch (IOException e) {
            lock.lock();
            try {
                if (closed) {
                    throw closedError.get();
                }
                // After a failed fsync the kernel may have dropped the dirty pages and a later fsync
                // can succeed without them: nothing written since the last good sync can be promised
                // durable, so this store takes no more writes (reopen recovers the WAL). So also when
                // a memtable switch retired this WAL meanwhile: its close syncing it again proves
                // nothing (a close that found it closed already reports that close's own failure).
                versions.fail(e);
                throw e;
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Puts the newest versions of aborted partitions' keys back into the active memtable, each with
     * its own sequence number, logged in the active WAL and synced (the WAL they came from is deleted
     * once the compaction installs). A version whose key a frozen memtable newer than
     * {@code compacted} (the newest of the memtables they come from) holds, or one of its range deletes covers, is
     * dropped instead: that memtable has a newer
     * version, which a reader, asking memtables newest first, must meet before this one, and which
     * replaces it in every state from now on (a snapshot that needs the old version pins the state
     * that holds it). A version put back shares the active memtable's and its WAL's lifetime, so a
     * recovery never replays it over a newer version already in tables.
     */
    public void reinsert(List<Kept> entries, MemtableRef compacted) throws IOException {
        if (entries.isEmpty()) {
            return;
        }
        WalWriter log;
        MemtableRef target;
        List<MemtableRef> newer;
        lock.lock();
        try {
            log = wal;
            ReadState s = versions.current();
            target = s.mem();
            newer = s.frozenNewerThan(compacted);
            // Taken before the lock goes: a memtable switch, which changes the active memtable and
            // closes its WAL under insertLock, waits for this append.
            insertLock.lock();
        } finally {
            lock.unlock();
        }
        try {
            List<Numbered> records = new ArrayList<>(entries.size());
            for (Kept e : entries) {
                if (!heldByAny(newer, e.op().key()) && !hiddenByAny(newer, e.op().key())) {
                    records.add(new Numbered(e.seq(), List.of(e.op())));
                }
            }
            if (!records.isEmpty() && !append(records, log, target.memtable())) {
                throw closedError.get();
            }
        } finally {
            insertLock.unlock();
        }
    }

    /**
     * Whether a range delete of one of {@code memtables} (all newer than any kept version) covers
     * {@code key}: put back, the version would outlive it, since that memtable's compaction drops
     * what the range hides only from tables and from itself.
     */
    private static boolean hiddenByAny(List<MemtableRef> memtables, byte[] key) {
        for (MemtableRef m : memtables) {
            for (dev.remixdb.memtable.RangeTombstone r : m.memtable().rangeTombstones()) {
                if (r.covers(key)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean heldByAny(List<MemtableRef> memtables, byte[] key) {
        for (MemtableRef m : memtables) {
            if (m.memtable().find(key, Long.MAX_VALUE) >= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops the pipeline: writers that reach the head of the queue from now on fail with the closed
     * error (a head stalled for room is woken by {@link VersionSet#close()}), a group being appended
     * finishes first, and the WAL is synced and closed.
     */
    public void close() throws IOException {
        closed = true;
        flusher.close();
        // A leader already appending finishes its group: wait for it. One that has not reached the
        // WAL yet finds the pipeline closed and fails having written nothing.
        insertLock.lock();
        try {
            wal.close();
        } finally {
            insertLock.unlock();
        }
    }

    /** The memtable entries the last {@link #insert} made, op by op, as the WAL reads them. */
    private static final class EntryCopies implements WalWriter.Copies {
        private Memtable mem;
        private long[] nodes = new long[16];

        void reset(Memtable m, int ops) {
            mem = m;
            if (nodes.length < ops) {
                nodes = new long[Math.max(ops, 2 * nodes.length)];
            }
            java.util.Arrays.fill(nodes, 0, ops, -1);
        }

        @Override
        public java.lang.foreign.MemorySegment segment(int i) {
            return nodes[i] < 0 ? null : mem.segment(nodes[i]);
        }

        @Override
        public long keyOffset(int i) {
            return mem.keyOffset(nodes[i]);
        }

        @Override
        public long valueOffset(int i) {
            return mem.valueOffset(nodes[i]);
        }
    }
}
