package dev.remixdb.engine;

import dev.remixdb.files.FileNames;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.memtable.Memtable;
import dev.remixdb.util.Closeables;
import dev.remixdb.wal.WalOp;
import dev.remixdb.wal.WalWriter;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The write path: a queue of writers, group commit into the WAL, then the active memtable; memtable
 * switches when it is full (with a new WAL); and the re-insertion of data an aborted compaction
 * keeps in memory, through the same append path.
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
    private final ReentrantLock insertLock = new ReentrantLock();
    /** The thread running a read-modify-write function at the head of the queue, or null. */
    private Thread preparing;
    private long lastSeq;
    private volatile long visibleSeq;
    private WalWriter wal;
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
        submit(new WriteRequest(ops, sync || config.syncWrites(), lock.newCondition()), false);
    }

    /**
     * A read-modify-write: {@code prepare} runs once, when this write reaches the head of the
     * queue, and returns the ops to write (none: nothing is written). Until they are applied no other
     * write happens, so what {@code prepare} reads is current. Other writers wait while it runs; it
     * must not write to this store itself ({@link IllegalStateException}).
     */
    public void update(Supplier<List<WalOp>> prepare, boolean sync) throws IOException {
        submit(new WriteRequest(prepare, sync || config.syncWrites(), lock.newCondition()), false);
    }

    /**
     * Freezes the active memtable now if it holds anything, so that compaction writes all of it to
     * tables. It takes its turn in the queue, so no write is in flight during the switch.
     */
    public void freezeMemtable() throws IOException {
        submit(new WriteRequest(List.of(), false, lock.newCondition()), true);
    }

    private void submit(WriteRequest w, boolean freeze) throws IOException {
        List<WriteRequest> group;
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
            requests.addLast(w);
            while (!w.done && requests.peekFirst() != w) {
                w.turn.awaitUninterruptibly();
            }
            if (w.done) {
                rethrow(w.error);
                return;
            }
            try {
                checkWritable();
                if (w.prepare != null) {
                    w.ops = prepareAtHead(w);
                }
                if (!freeze && w.ops.isEmpty()) {
                    leaveHead();
                    return;
                }
                makeRoom(w.bytes(), freeze);
            } catch (RuntimeException | IOException | Error e) {
                leaveHead();
                throw e;
            }
            if (freeze) {
                leaveHead();
                return;
            }
            // The group takes what fits the memtable's room, so that a full memtable never holds
            // more than memtableBytes (one table's worth, see TableSink); the leader always goes.
            // It stops at a read-modify-write: that one must read what this group writes.
            mem = versions.current().mem();
            group = new ArrayList<>();
            long room = Math.min(MAX_GROUP_BYTES, config.memtableBytes() - mem.memtable().dataBytes());
            long bytes = 0;
            for (WriteRequest x : requests) {
                long b = x.bytes();
                if (!group.isEmpty() && (bytes + b > room || x.prepare != null)) {
                    break;
                }
                group.add(x);
                syncGroup |= x.sync;
                bytes += b;
            }
            firstSeq = lastSeq + 1;
            for (WriteRequest x : group) {
                lastSeq += x.ops.size();
            }
            groupLastSeq = lastSeq;
            log = wal;
        } finally {
            lock.unlock();
        }
        List<Numbered> records = new ArrayList<>(group.size());
        long seq = firstSeq;
        for (WriteRequest x : group) {
            records.add(new Numbered(seq, x.ops));
            seq += x.ops.size();
        }
        Throwable error = null;
        try {
            if (!append(records, syncGroup, true, log, mem.memtable())) {
                error = closedError.get();
            }
        } catch (Throwable t) {
            // The WAL may now hold part of the group: later writes must not appear to succeed.
            error = t;
            versions.fail(t);
        }
        lock.lock();
        try {
            if (error == null) {
                visibleSeq = groupLastSeq;
            }
            for (WriteRequest x : group) {
                requests.removeFirst();
                x.done = true;
                x.error = error;
                if (x != w) {
                    x.turn.signal();
                }
            }
            if (!requests.isEmpty()) {
                requests.peekFirst().turn.signal();
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
    private List<WalOp> prepareAtHead(WriteRequest w) throws IOException {
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
        requests.removeFirst();
        if (!requests.isEmpty()) {
            requests.peekFirst().turn.signal();
        }
    }

    /**
     * Appends {@code records} to {@code log} (then syncs it, when asked) and inserts their ops into
     * {@code mem}, holding {@link #insertLock}: the one path by which data enters a memtable after
     * recovery. Returns false, having written nothing, once the pipeline is closed.
     */
    private boolean append(List<Numbered> records, boolean sync, boolean userWrites, WalWriter log, Memtable mem)
            throws IOException {
        insertLock.lock();
        try {
            if (closed) {
                // close() holds this lock while it closes the WAL: past it, nothing may be written.
                return false;
            }
            for (Numbered r : records) {
                counters.walBytes.add(log.append(r.firstSeq(), r.ops()));
            }
            if (sync) {
                log.sync();
            }
            for (Numbered r : records) {
                long seq = r.firstSeq();
                for (WalOp op : r.ops()) {
                    if (op.delete()) {
                        mem.delete(seq, op.key());
                    } else {
                        mem.add(seq, op.key(), op.value());
                    }
                    if (userWrites) {
                        counters.userBytes.add(op.key().length + (op.value() == null ? 0 : op.value().length));
                    }
                    seq++;
                }
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
     * Under {@link #lock}, by the queue's head: makes sure the active memtable has room for
     * {@code incoming} more bytes, freezing it when not (or, with {@code force}, whenever it is not
     * empty). While the previously frozen memtable is still being compacted, the writer waits (a
     * stall), with the lock released so that others can queue.
     */
    private void makeRoom(long incoming, boolean force) throws IOException {
        for (;;) {
            checkWritable();
            ReadState s = versions.current();
            Memtable active = s.mem().memtable();
            long used = active.dataBytes();
            // A write larger than a whole memtable goes alone into an empty one.
            if (force ? active.entryCount() == 0 : used == 0 || used + incoming <= config.memtableBytes()) {
                return;
            }
            if (s.imm() != null) {
                lock.unlock();
                try {
                    versions.awaitNoFrozen();
                } finally {
                    lock.lock();
                }
                continue;
            }
            s.mem().allToTables(force);
            switchMemtable();
            return;
        }
    }

    /** Under {@link #lock}: a new WAL and memtable take the writes; the old memtable is frozen. */
    private void switchMemtable() throws IOException {
        long number = versions.newFileNumber();
        WalWriter next = WalWriter.create(FileNames.wal(dir.path(), number), number);
        dir.sync();
        WalWriter old = wal;
        wal = next;
        try {
            old.close();
        } catch (IOException e) {
            versions.fail(e);
            throw e;
        }
        MemtableRef fresh = VersionSet.newMemtable(number);
        versions.freeze(fresh);
        fresh.release();
    }

    /** Forces every acknowledged write to disk. */
    public void sync() throws IOException {
        if (closed) {
            throw closedError.get();
        }
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
                if (closed) {
                    throw closedError.get();
                }
                // A WAL switched out meanwhile was synced when it was closed: nothing is lost.
                if (log == wal) {
                    // After a failed fsync the kernel may have dropped the dirty pages and a later
                    // fsync can succeed without them: nothing written since the last good sync can be
                    // promised durable, so this store takes no more writes (reopen recovers the WAL).
                    versions.fail(e);
                    throw e;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Puts the newest versions of aborted partitions' keys back into the active memtable, each with
     * its own sequence number, logged in its WAL and synced (the WAL they came from is deleted once
     * the compaction installs). Called by compaction, while one memtable is frozen, so no switch can
     * happen meanwhile.
     */
    public void reinsert(List<Kept> entries) throws IOException {
        if (entries.isEmpty()) {
            return;
        }
        WalWriter log;
        MemtableRef mem;
        lock.lock();
        try {
            log = wal;
            mem = versions.current().mem();
        } finally {
            lock.unlock();
        }
        List<Numbered> records = new ArrayList<>(entries.size());
        for (Kept e : entries) {
            records.add(new Numbered(e.seq(), List.of(e.op())));
        }
        if (!append(records, true, false, log, mem.memtable())) {
            throw closedError.get();
        }
    }

    /**
     * Stops the pipeline: writers that reach the head of the queue from now on fail with the closed
     * error (a head stalled for room is woken by {@link VersionSet#close()}), a group being appended
     * finishes first, and the WAL is synced and closed.
     */
    public void close() throws IOException {
        closed = true;
        // A leader already appending finishes its group: wait for it. One that has not reached the
        // WAL yet finds the pipeline closed and fails having written nothing.
        insertLock.lock();
        try {
            wal.close();
        } finally {
            insertLock.unlock();
        }
    }
}
