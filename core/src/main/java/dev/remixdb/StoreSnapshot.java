package dev.remixdb;

import dev.remixdb.engine.ReadState;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Snapshot}: a retained {@link ReadState} and the sequence number visible when it was taken.
 * Later writes land in the same memtable with larger sequence numbers and are filtered out; later
 * compactions install new states and leave this one's memtables and tables alone until it lets go.
 *
 * <p>The reference to the state lives in a {@link Pin}, which the store tracks (to release at
 * close) and a {@link Cleaner} releases if the snapshot is dropped unclosed, counting a leak. The
 * pin never refers back to the snapshot, or the snapshot could never become unreachable.
 */
final class StoreSnapshot implements Snapshot {
    private static final Cleaner CLEANER = Cleaner.create(
            Thread.ofPlatform().daemon().name("remixdb-snapshot-cleaner").factory());

    private final Store store;
    private final Pin pin;
    private final Cleaner.Cleanable cleanable;

    /** Takes over the caller's reference to {@code state}. */
    StoreSnapshot(Store store, ReadState state, long seq) {
        this.store = store;
        this.pin = new Pin(store, state, seq);
        store.snapshots().add(pin);
        this.cleanable = CLEANER.register(this, pin);
    }

    /** What a snapshot holds, released exactly once: by close, by the store's close, or as a leak. */
    static final class Pin implements Runnable {
        private final Store store;
        final ReadState state;
        final long seq;
        private final AtomicBoolean released = new AtomicBoolean();

        Pin(Store store, ReadState state, long seq) {
            this.store = store;
            this.state = state;
            this.seq = seq;
        }

        /** By the cleaner: the snapshot was garbage-collected without close. */
        @Override
        public void run() {
            release(true);
        }

        void release(boolean leaked) {
            if (released.compareAndSet(false, true)) {
                store.snapshots().remove(this);
                if (leaked) {
                    store.counters().leakedSnapshots.increment();
                }
                state.release();
            }
        }

        boolean isReleased() {
            return released.get();
        }
    }

    @Override
    public byte[] get(byte[] key) {
        // As RemixDB.get: a null or oversized key is bad input, not an absent key.
        dev.remixdb.util.Limits.checkKey(key);
        ReadState s = retainState();
        try {
            return s.get(pin.seq, key);
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        } finally {
            s.release();
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public Cursor cursor() {
        return cursor(null, null);
    }

    @Override
    public Cursor cursor(byte[] lower, byte[] upper) {
        ReadState s = retainState();
        try {
            return store.cursor(s, pin.seq, lower, upper);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public int scan(byte[] from, byte[] to, int limit, EntryVisitor visitor) {
        return StoreCursor.scan(limit, visitor, () -> cursor(from, to));
    }

    /** The state, retained for one call: a close meanwhile cannot free what the call reads. */
    private ReadState retainState() {
        store.checkOpen();
        if (pin.isReleased() || !pin.state.tryRetain()) {
            throw new ClosedException("snapshot at sequence " + pin.seq + " of " + store);
        }
        return pin.state;
    }

    @Override
    public long sequence() {
        return pin.seq;
    }

    @Override
    public void close() {
        pin.release(false);
        cleanable.clean();
    }

    @Override
    public String toString() {
        return "snapshot at sequence " + pin.seq + " of " + store + (pin.isReleased() ? " (closed)" : "");
    }
}
