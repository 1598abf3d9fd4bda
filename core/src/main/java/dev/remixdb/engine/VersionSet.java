package dev.remixdb.engine;

import dev.remixdb.files.StoreDirectory;
import dev.remixdb.memtable.Memtable;
import dev.remixdb.version.Manifest;
import dev.remixdb.version.Partition;
import dev.remixdb.version.TableHandle;
import dev.remixdb.version.Version;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The store's current {@link ReadState} and how it changes (LevelDB's {@code VersionSet}): a full
 * memtable is frozen ({@link #freeze}; up to {@code maxFrozen} wait at once, more in the block
 * cache's room when the store allows it: {@link #canFreeze}), compaction takes the
 * oldest ones ({@link #awaitFrozen}) and installs the version that absorbed them ({@link #install}:
 * MANIFEST, then the new state, then obsolete files).
 * It also hands out file numbers, and holds the store's write failure: once the WAL or a
 * compaction failed, the state can no longer advance and writes are refused.
 *
 * <p>Concurrency: {@link #lock} guards the changes; readers take no lock, they retain the current
 * state ({@link #acquire()}). The write pipeline may call in while holding its own lock; nothing here
 * calls out to the pipeline, so the two locks are always taken in that order.
 */
public final class VersionSet {
    /** The most memtables that may wait frozen, whatever room the cache has. */
    public static final int MAX_FROZEN = 8;

    private final StoreDirectory dir;
    private final Counters counters;
    private final Supplier<? extends RuntimeException> closedError;
    private final AtomicLong nextFile;
    private final int maxFrozen;
    /** The block cache's unused bytes, where more memtables may wait frozen; null: none may. */
    private final LongSupplier cacheRoom;

    /** How long the last compaction of memtables took, in seconds; 0 before the first. */
    private volatile double lastRoundSeconds;
    /** When the compactor's round under way started ({@link System#nanoTime()}), if {@link #roundRunning}. */
    private volatile long roundStart;
    private volatile boolean roundRunning;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a compaction finishes, on failure and at close: stalled writers re-check. */
    private final Condition changed = lock.newCondition();
    /** Signalled when a memtable is frozen, on failure and at close: the compactor wakes up. */
    private final Condition frozenReady = lock.newCondition();
    /** Signalled when the last read state is freed. */
    private final Condition allFreed = lock.newCondition();

    private volatile ReadState current;
    /** Checkpoints holding the WAL files (guarded by lock); see {@link #holdWals()}. */
    private int walHolds;
    /** WALs below this number wait for the last hold to go before they are deleted (guarded by lock). */
    private long deferredWalDeletion;
    /** True from handing a state to the compactor until it has let go of it (guarded by lock). */
    private boolean compacting;
    /** Writers waiting in {@link #awaitRoomToFreeze()} or about to ({@link #stallStarts()}; guarded by lock). */
    private int stalledWriters;
    /**
     * Set by an install that freed a slot while writers stood stalled: a full memtable is about to
     * be frozen, and the compactor's next round should take it too (guarded by lock).
     */
    private boolean freezeDue;
    /** How long the compactor waits for a due freeze before it starts a round without it. */
    private static final long FREEZE_DUE_NANOS = 20_000_000;
    private volatile boolean closed;
    private volatile Throwable failure;
    /** Read states made and not yet freed. */
    private final AtomicInteger liveStates = new AtomicInteger();

    /**
     * Starts from {@code mem} and {@code version} (the callers keep their references).
     *
     * @param closedError what a call after close throws (the API's {@code ClosedException})
     */
    public VersionSet(StoreDirectory dir, long nextFileNumber, MemtableRef mem, Version version, int maxFrozen,
                      Counters counters, Supplier<? extends RuntimeException> closedError) {
        this(dir, nextFileNumber, mem, version, maxFrozen, null, counters, closedError);
    }

    /**
     * As above; {@code cacheRoom}, if not null, gives the bytes the block cache has not taken yet,
     * where memtables beyond {@code maxFrozen} may wait frozen (up to {@value #MAX_FROZEN} in all):
     * while their memory and the active memtable's fit in it. Its answer must never grow, so that no
     * stalled writer needs waking when it changes (a cache's memory only grows).
     */
    public VersionSet(StoreDirectory dir, long nextFileNumber, MemtableRef mem, Version version, int maxFrozen,
                      LongSupplier cacheRoom, Counters counters, Supplier<? extends RuntimeException> closedError) {
        if (maxFrozen < 1) {
            throw new IllegalArgumentException("at least one frozen memtable: " + maxFrozen);
        }
        this.cacheRoom = cacheRoom;
        this.dir = dir;
        this.counters = counters;
        this.closedError = closedError;
        this.nextFile = new AtomicLong(nextFileNumber);
        this.maxFrozen = maxFrozen;
        this.current = newState(mem, new MemtableRef[0], version);
    }

    private ReadState newState(MemtableRef mem, MemtableRef[] frozen, Version version) {
        liveStates.incrementAndGet();
        return new ReadState(mem, frozen, version, this::stateFreed);
    }

    private void stateFreed() {
        if (liveStates.decrementAndGet() == 0) {
            lock.lock();
            try {
                allFreed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** A number for a new file; numbers are never reused. */
    public long newFileNumber() {
        return nextFile.getAndIncrement();
    }

    /** The current state, retained: release it when done. */
    public ReadState acquire() {
        for (;;) {
            ReadState s = current;
            if (s.tryRetain()) {
                return s;
            }
            checkOpen();
        }
    }

    /**
     * The current state, not retained: only for the head of the write queue, which alone makes the
     * state change between memtables (compaction only replaces the frozen memtable and the version).
     */
    ReadState current() {
        return current;
    }

    // ------------------------------------------------------------------ lifecycle and failure

    /** Throws the closed error once {@link #close()} ran. */
    public void checkOpen() {
        if (closed) {
            throw closedError.get();
        }
    }

    /** Throws the closed error after close, or an {@link IOException} naming the failure after one. */
    public void checkWritable() throws IOException {
        checkOpen();
        checkNotFailed();
    }

    /** Throws when a write has failed (the store takes no more); unlike {@link #checkWritable}, open or not. */
    public void checkNotFailed() throws IOException {
        Throwable f = failure;
        if (f != null) {
            throw new IOException(dir + " takes no writes after a failure: " + f, f);
        }
    }

    /** The first write failure, or null. */
    public Throwable failure() {
        return failure;
    }

    /** A failure after which the state cannot advance: writes fail from now on with it as the cause; reads go on. */
    public void fail(Throwable t) {
        lock.lock();
        try {
            if (failure == null) {
                failure = t;
            }
            changed.signalAll();
            frozenReady.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Marks the set closed and wakes everything that waits on it. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
            frozenReady.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * After {@link #close()}: lets go of the current state and waits until every state is freed,
     * that is until the last reader that retained one has released it. After that no memtable,
     * table or REMIX is in use, and the cache and files under them can be closed.
     */
    public void releaseAndAwaitReaders() {
        current.release();
        lock.lock();
        try {
            while (liveStates.get() > 0) {
                allFreed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ memtable switches (write queue head)

    /**
     * Whether another memtable may be frozen now: fewer than {@code maxFrozen} wait, or (with the
     * cache's room) the memtables frozen beyond {@code maxFrozen} and the active one, which would
     * join them, fit in the room the block cache has not taken, {@value #MAX_FROZEN} frozen at most.
     */
    boolean canFreeze() {
        ReadState s = current;
        int n = s.frozenCount();
        if (n < maxFrozen) {
            return true;
        }
        if (cacheRoom == null || n >= hardLimit()) {
            return false;
        }
        MemtableRef[] frozen = s.frozenArray();  // newest first: the ones beyond maxFrozen
        long bytes = s.mem().memtable().memoryBytes();
        for (int i = 0; i < n - maxFrozen; i++) {
            bytes += frozen[i].memtable().memoryBytes();
        }
        return bytes <= cacheRoom.getAsLong();
    }

    /** The most memtables that may wait frozen whatever the cache's room: what {@link #freeze} enforces. */
    private int hardLimit() {
        return cacheRoom == null ? maxFrozen : Math.max(MAX_FROZEN, maxFrozen);
    }

    /** Whether no more memtables may be frozen now ({@link #canFreeze}): compaction is behind the writers. */
    boolean frozenFull() {
        return !canFreeze();
    }

    /**
     * A guess of how long until the compaction under way (or about to start) lets a frozen memtable
     * go, in seconds: what the last one took less the time this one has run, or as long again as this
     * one has run so far, whichever is more (from half the last one's time on, the latter: a round
     * that has run that long may well be a long one). A round can take far longer than the last one
     * (a split rewrites a whole partition), and a guess that stayed at the last one's time would let
     * writers run into a stall. 0 before the first compaction.
     */
    double roundSecondsLeft() {
        double last = lastRoundSeconds;
        if (!roundRunning) {
            return last;
        }
        double elapsed = (System.nanoTime() - roundStart) / 1e9;
        return Math.max(last - elapsed, elapsed);
    }

    /**
     * The compactor starts a round: compacting frozen memtables, or an idle merge that a memtable
     * frozen meanwhile waits for.
     */
    public void roundStarts() {
        roundStart = System.nanoTime();
        roundRunning = true;
    }

    /** The round {@link #roundStarts} announced has ended, installed or failed. */
    public void roundEnds() {
        roundRunning = false;
    }

    /**
     * Waits while every frozen slot is taken (a stall, counted), then returns; or throws when the
     * store closes or fails meanwhile.
     */
    void awaitRoomToFreeze() throws IOException {
        lock.lock();
        try {
            long start = System.nanoTime();
            stalledWriters++;
            try {
                while (!canFreeze()) {
                    checkWritable();
                    changed.awaitUninterruptibly();
                }
            } finally {
                stalledWriters--;
            }
            counters.stallNanos.add(System.nanoTime() - start);
            checkWritable();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The queue's head found every frozen slot taken and will wait in {@link #awaitRoomToFreeze()}
     * after some work of its own: counted as stalled from now, so that an install meanwhile still
     * expects its freeze. Each call is followed by one {@link #stallEnds()}.
     */
    void stallStarts() {
        lock.lock();
        try {
            stalledWriters++;
        } finally {
            lock.unlock();
        }
    }

    /** Ends a {@link #stallStarts()}. */
    void stallEnds() {
        lock.lock();
        try {
            stalledWriters--;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until no frozen memtable holds writes that skipped the WAL (they are in tables), or throws on close or failure. */
    void awaitNoUnlogged() throws IOException {
        lock.lock();
        try {
            for (;;) {
                checkWritable();
                boolean pending = false;
                for (MemtableRef f : current.frozen()) {
                    pending |= f.unlogged();
                }
                if (!pending) {
                    return;
                }
                changed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Freezes the active memtable: {@code fresh} takes the writes from now on, and the compactor
     * is woken for the old one. Only after the write queue's head found {@link #canFreeze()}.
     */
    void freeze(MemtableRef fresh) {
        lock.lock();
        try {
            ReadState s = current;
            // The head decided with canFreeze(); only the hard bound is checked again here. The
            // cache's room and the active memtable's memory may have grown since (a reader's miss,
            // a compaction's re-insert), and the WAL has already been switched: failing now would
            // fail the write for a limit that is only a target.
            if (s.frozenCount() >= hardLimit()) {
                throw new IllegalStateException("every frozen slot is taken: " + s);
            }
            MemtableRef[] old = s.frozenArray();
            MemtableRef[] frozen = new MemtableRef[old.length + 1];
            frozen[0] = s.mem();
            System.arraycopy(old, 0, frozen, 1, old.length);
            swap(newState(fresh, frozen, s.version()));
            freezeDue = false;
            frozenReady.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Under {@link #lock}: makes {@code next} current and drops the set's reference to the old state. */
    private void swap(ReadState next) {
        ReadState old = current;
        current = next;
        old.release();
    }

    // ------------------------------------------------------------------ compaction

    /**
     * Blocks until a frozen memtable waits for compaction and returns the current state, retained
     * (compact its oldest frozen memtables); null at close or failure.
     */
    public ReadState awaitFrozen() {
        return awaitWork(-1);
    }

    /**
     * {@link #awaitFrozen()}, waiting at most {@code timeoutNanos} (negative: no limit): after that
     * it returns the current state without a frozen memtable, retained and marked as compacting all
     * the same, so the compactor may do work of its own in it (an idle merge); null at close or failure.
     */
    public ReadState awaitWork(long timeoutNanos) {
        lock.lock();
        try {
            long left = timeoutNanos;
            while (!closed && failure == null && current.frozenCount() == 0 && (timeoutNanos < 0 || left > 0)) {
                if (timeoutNanos < 0) {
                    frozenReady.awaitUninterruptibly();
                } else {
                    try {
                        left = frozenReady.awaitNanos(left);
                    } catch (InterruptedException e) {
                        // Like awaitUninterruptibly: nobody interrupts the compactor on purpose, and
                        // it stops only through close or failure.
                    }
                }
            }
            // Writers stalled on the round just installed freeze their full memtable in a moment:
            // wait for it, so that this round takes it with the others waiting (one REMIX rebuild
            // for all of them) rather than leaving it for a round of its own.
            long dueBy = System.nanoTime() + FREEZE_DUE_NANOS;
            while (freezeDue && !closed && failure == null && current.frozenCount() > 0 && canFreeze()) {
                long wait = dueBy - System.nanoTime();
                if (wait <= 0) {
                    freezeDue = false;
                    break;
                }
                try {
                    frozenReady.awaitNanos(wait);
                } catch (InterruptedException e) {
                    // As above: only close or failure stops the compactor.
                }
            }
            if (closed || failure != null) {
                return null;
            }
            ReadState s = current;
            s.retain();
            compacting = true;
            return s;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The compactor is done with the state {@link #awaitFrozen()} gave it. Released before waiters
     * wake, so that files only the replaced version used are gone when {@link #awaitCompaction}
     * returns.
     */
    public void compactionDone(ReadState s) {
        try {
            s.release();
        } finally {
            lock.lock();
            try {
                compacting = false;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Makes {@code next} the current version, replacing the frozen memtables {@code compacted} it
     * absorbed (the oldest ones): writes the MANIFEST (crash-atomic), swaps the state, then lets go
     * of what the new version no longer uses and deletes the WALs that only those memtables needed.
     *
     * @param next         the new version; its creator reference passes to this set
     * @param replaced     partitions of the old version that {@code next} does not list
     * @param compacted    the frozen memtables the new version holds, newest first: the oldest ones
     * @param lastSequence the last sequence number handed out so far (recorded in the MANIFEST)
     * @param seconds      how long the compaction took (for the pace of writers)
     */
    public void install(Version next, List<MemtableRef> compacted, List<Partition> replaced, long lastSequence,
                        double seconds) throws IOException {
        dir.sync();
        long firstLiveWal;
        Manifest.Data data;
        lock.lock();
        try {
            List<MemtableRef> frozen = current.frozen();
            if (compacted.isEmpty() || compacted.size() > frozen.size()
                    || !frozen.subList(frozen.size() - compacted.size(), frozen.size()).equals(compacted)) {
                throw new IllegalStateException(compacted + " are not the oldest frozen memtables of " + current);
            }
            // The WALs still needed start with the next frozen memtable's (or the active one's). Memtable
            // switches meanwhile only add newer ones.
            firstLiveWal = current.newerThan(compacted.getFirst()).firstWal();
            data = new Manifest.Data(nextFile.get(), firstLiveWal, lastSequence, next.sequence(), Manifest.entries(next));
        } finally {
            lock.unlock();
        }
        writeManifest(data, next, replaced);
        boolean deleteWals;
        lock.lock();
        try {
            ReadState s = current;
            MemtableRef[] frozen = java.util.Arrays.copyOf(s.frozenArray(), s.frozenCount() - compacted.size());
            swap(newState(s.mem(), frozen, next));
            next.release();
            freezeDue = stalledWriters > 0;
            if (seconds > 0) {
                lastRoundSeconds = seconds;
            }
            deleteWals = walHolds == 0;
            if (!deleteWals) {
                deferredWalDeletion = Math.max(deferredWalDeletion, firstLiveWal);
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (deleteWals) {
            dir.deleteWalsBefore(firstLiveWal);
        }
    }

    /**
     * Makes {@code next} the current version without a memtable: a merge of partitions that the
     * compactor did on its own ({@link #awaitWork} returned no frozen memtable). The memtables and
     * the WALs stay as they are.
     *
     * @param next         the new version; its creator reference passes to this set
     * @param replaced     partitions of the old version that {@code next} does not list
     * @param lastSequence the last sequence number handed out so far (recorded in the MANIFEST)
     */
    public void installMerge(Version next, List<Partition> replaced, long lastSequence) throws IOException {
        dir.sync();
        Manifest.Data data;
        lock.lock();
        try {
            ReadState s = current;
            long firstLiveWal = s.frozenCount() > 0 ? s.oldestFrozen().firstWal() : s.mem().firstWal();
            data = new Manifest.Data(nextFile.get(), firstLiveWal, lastSequence, next.sequence(), Manifest.entries(next));
        } finally {
            lock.unlock();
        }
        writeManifest(data, next, replaced);
        lock.lock();
        try {
            ReadState s = current;
            swap(newState(s.mem(), java.util.Arrays.copyOf(s.frozenArray(), s.frozenCount()), next));
            next.release();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes the MANIFEST of {@code next} (releasing it if that fails) and marks what only the
     * replaced partitions use as obsolete, to be deleted after its last reader.
     */
    private void writeManifest(Manifest.Data data, Version next, List<Partition> replaced) throws IOException {
        try {
            counters.manifestBytes.add(Manifest.write(dir.path(), data));
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
    }

    /**
     * Keeps every WAL file there until {@link #releaseWals()}: installs meanwhile defer deleting
     * the WALs they made obsolete. A checkpoint holds them while it links or copies the WALs of the
     * state it acquired after this call, which an install could otherwise delete under it (unlike
     * tables and REMIX files, which live as long as a state that uses them).
     */
    public void holdWals() {
        lock.lock();
        try {
            walHolds++;
        } finally {
            lock.unlock();
        }
    }

    /** Ends a {@link #holdWals()}; the last one deletes what installs deferred. */
    public void releaseWals() throws IOException {
        long below = 0;
        lock.lock();
        try {
            if (walHolds <= 0) {
                throw new IllegalStateException("no WAL hold to release");
            }
            if (--walHolds == 0) {
                below = deferredWalDeletion;
                deferredWalDeletion = 0;
            }
        } finally {
            lock.unlock();
        }
        if (below > 0) {
            dir.deleteWalsBefore(below);
        }
    }

    /** The next file number {@link #newFileNumber()} would hand out (nothing is taken). */
    public long peekFileNumber() {
        return nextFile.get();
    }

    /**
     * Waits until no frozen memtable is left and the compactor has let go of the version it
     * compacted last (for tests and benchmarks); false on timeout.
     *
     * @throws IOException when the store failed (it then refuses writes)
     */
    public boolean awaitCompaction(long timeout, TimeUnit unit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        lock.lock();
        try {
            while ((current.frozenCount() > 0 || compacting) && failure == null) {
                checkOpen();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
            checkWritable();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A new memtable whose writes go to WAL {@code walNumber}. */
    static MemtableRef newMemtable(long walNumber) {
        return new MemtableRef(new Memtable(), walNumber);
    }

    @Override
    public String toString() {
        return "version set of " + dir;
    }
}
