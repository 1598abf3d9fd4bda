package dev.remixdb.engine;

import dev.remixdb.files.StoreDirectory;
import dev.remixdb.wal.WalWriter;

import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The WAL's background work, on two daemon threads, so that writers never wait for it:
 * <ul>
 *   <li>the flush thread writes what the current WAL has buffered once its oldest byte is
 *       {@code interval} old (when buffering is on), so that a write that was not synced still
 *       reaches the operating system within that time, while a busy store packs many writes into
 *       each record and system call;</li>
 *   <li>the retire thread syncs and closes the WALs a memtable switch retired ({@link #retire}),
 *       then syncs the directory (the new WAL's entry): that fsync covers a whole memtable's log and
 *       can take a long time (on ext4 a directory fsync commits the journal, which writes out that
 *       log too), which neither the writer that switched memtables nor the flush thread must spend:
 *       writes buffered meanwhile would wait for it (36-124 ms after a switch, measured, and over
 *       200 ms under load, when one thread did both). {@link #awaitRetired()} lets a sync wait for it.</li>
 * </ul>
 * Each thread parks while it has nothing to do; the write path wakes them ({@link #poke()},
 * {@link #retire}).
 */
final class WalFlusher implements AutoCloseable {
    private final Supplier<WalWriter> current;
    private final StoreDirectory dir;
    private final long intervalNanos;
    private final Consumer<IOException> onFailure;
    private final Thread thread;
    private final Thread retirer;
    private final ConcurrentLinkedQueue<WalWriter> retired = new ConcurrentLinkedQueue<>();
    private final Object retiredDone = new Object();
    /** The first failure to close a retired WAL (written under retiredDone). */
    private volatile IOException retireFailure;
    private volatile boolean parked;
    private volatile boolean stopped;

    /**
     * @param current        the WAL that takes writes now
     * @param intervalNanos  how long a write may stay buffered; 0 when the write path writes at once
     * @param onFailure      told when a write or a sync fails (the store then stops taking writes)
     */
    WalFlusher(Supplier<WalWriter> current, StoreDirectory dir, long intervalNanos, Consumer<IOException> onFailure,
               String name) {
        this.current = current;
        this.dir = dir;
        this.intervalNanos = intervalNanos;
        this.onFailure = onFailure;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::loop);
        this.retirer = Thread.ofPlatform().daemon().name(name + "-retire").unstarted(this::retireLoop);
    }

    void start() {
        thread.start();
        retirer.start();
    }

    /** Something was buffered: wakes the thread if it parked for want of work. Cheap when it did not. */
    void poke() {
        if (parked) {
            parked = false;
            LockSupport.unpark(thread);
        }
    }

    /** Whether the flush thread sleeps for want of work (nothing was buffered when it last looked). */
    boolean idle() {
        return parked;
    }

    /**
     * Hands over a WAL a memtable switch replaced, written out already: synced and closed here, and
     * the directory synced after it (for the entry of the WAL that replaced it).
     */
    void retire(WalWriter wal) {
        retired.add(wal);
        LockSupport.unpark(retirer);
        // The flush thread too: it may be about to park on the WAL this one replaced.
        LockSupport.unpark(thread);
    }

    /**
     * Whether every retired WAL numbered below {@code number} is synced and closed, and the directory
     * synced after it: a record written to WAL {@code number} before then may reach the disk before
     * such an older WAL's last bytes. Retired WALs are queued and closed oldest first, and leave the
     * queue after the directory sync. Stays false after a failed sync.
     */
    boolean syncedBefore(long number) {
        WalWriter oldest = retired.peek();
        return retireFailure == null && (oldest == null || oldest.fileNumber() >= number);
    }

    /**
     * Waits until every retired WAL is synced and closed.
     *
     * @throws IOException when one could not be: what it held is not known to be durable
     */
    void awaitRetired() throws IOException {
        // Not interruptible, as the WAL's own I/O is not: the wait is a group commit's (for every
        // writer in it), and it is bounded by an fsync. An interrupt is kept for the caller.
        boolean interrupted = false;
        synchronized (retiredDone) {
            while (!retired.isEmpty() && retirer.isAlive()) {
                try {
                    retiredDone.wait(100);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (retireFailure != null) {
                throw new IOException("an older WAL could not be synced: " + retireFailure.getMessage(), retireFailure);
            }
        }
        if (!retirer.isAlive()) {
            closeRetired();  // the thread stopped: finish here
        }
    }

    private void loop() {
        while (!stopped) {
            WalWriter wal = current.get();
            if (intervalNanos == 0 || wal.bufferedBytes() == 0) {
                // Announce the park, then look again: a writer that buffers after this sees 'parked'
                // (both are volatile), and one that did before is seen here. The current WAL is read
                // again: a memtable switch meanwhile may have buffered its first write in a new one.
                parked = true;
                if ((intervalNanos == 0 || current.get().bufferedBytes() == 0) && !stopped) {
                    LockSupport.park(this);
                }
                parked = false;
                continue;
            }
            long wait = wal.bufferedSinceNanos() + intervalNanos - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
                continue;
            }
            try {
                // A WAL a memtable switch closed meanwhile was flushed by its close: this does nothing.
                wal.flush();
            } catch (IOException e) {
                onFailure.accept(e);
                return;
            }
        }
    }

    private void retireLoop() {
        while (!stopped) {
            if (!closeRetired() && retired.isEmpty() && !stopped) {
                // retire() adds, then unparks: a WAL added after the look above leaves a permit.
                LockSupport.park(this);
            }
        }
    }

    /**
     * Syncs and closes the retired WALs, then syncs the directory; true when there were some.
     * Serialized: each is closed once.
     */
    private synchronized boolean closeRetired() {
        boolean any = false;
        for (WalWriter w = retired.peek(); w != null; w = retired.peek()) {
            any = true;
            try {
                w.close();
                dir.sync();
            } catch (IOException e) {
                synchronized (retiredDone) {
                    if (retireFailure == null) {
                        retireFailure = e;
                    }
                }
                onFailure.accept(e);
            }
            retired.poll();
            synchronized (retiredDone) {
                retiredDone.notifyAll();
            }
        }
        return any;
    }

    /** Stops the threads after the retired WALs are closed (what is buffered stays for the WAL's close). */
    @Override
    public void close() {
        stopped = true;
        boolean interrupted = false;
        for (Thread t : new Thread[] {thread, retirer}) {
            LockSupport.unpark(t);
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        closeRetired();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
