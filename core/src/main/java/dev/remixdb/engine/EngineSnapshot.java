package dev.remixdb.engine;

import dev.remixdb.ClosedException;
import dev.remixdb.Cursor;
import dev.remixdb.Snapshot;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link Snapshot}: a retained {@link View} and the sequence number visible when it was taken.
 * Later writes land in the same memtable with larger sequence numbers and are filtered out; later
 * compactions install new views and leave this one's memtables and tables alone until it lets go.
 *
 * <p>The reference to the view lives in a {@link Pin}, which the engine tracks (to release at
 * close) and a {@link Cleaner} releases if the snapshot is dropped unclosed, counting a leak. The
 * pin never refers back to the snapshot, or the snapshot could never become unreachable.
 */
final class EngineSnapshot implements Snapshot {
    private static final Cleaner CLEANER = Cleaner.create(
            Thread.ofPlatform().daemon().name("remixdb-snapshot-cleaner").factory());

    private final Engine engine;
    private final Pin pin;
    private final Cleaner.Cleanable cleanable;

    /** Takes over the caller's reference to {@code view}. */
    EngineSnapshot(Engine engine, View view, long seq) {
        this.engine = engine;
        this.pin = new Pin(engine, view, seq);
        engine.snapshots.add(pin);
        this.cleanable = CLEANER.register(this, pin);
    }

    /** What a snapshot holds, released exactly once: by close, by the store's close, or as a leak. */
    static final class Pin implements Runnable {
        private final Engine engine;
        final View view;
        final long seq;
        private final AtomicBoolean released = new AtomicBoolean();

        Pin(Engine engine, View view, long seq) {
            this.engine = engine;
            this.view = view;
            this.seq = seq;
        }

        /** By the cleaner: the snapshot was garbage-collected without close. */
        @Override
        public void run() {
            release(true);
        }

        void release(boolean leaked) {
            if (released.compareAndSet(false, true)) {
                engine.snapshots.remove(this);
                if (leaked) {
                    engine.counters.leakedSnapshots.increment();
                }
                view.release();
            }
        }

        boolean isReleased() {
            return released.get();
        }
    }

    @Override
    public byte[] get(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        View v = retainView();
        try {
            return Engine.get(v, pin.seq, key);
        } finally {
            v.release();
            Reference.reachabilityFence(this);
        }
    }

    @Override
    public Cursor cursor() {
        return cursor(null, null);
    }

    @Override
    public Cursor cursor(byte[] lower, byte[] upper) {
        View v = retainView();
        try {
            return engine.cursor(v, pin.seq, lower, upper);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The view, retained for one call: a close meanwhile cannot free what the call reads. */
    private View retainView() {
        engine.checkOpen();
        if (pin.isReleased() || !pin.view.tryRetain()) {
            throw new ClosedException("snapshot at sequence " + pin.seq + " of " + engine);
        }
        return pin.view;
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
        return "snapshot at sequence " + pin.seq + " of " + engine + (pin.isReleased() ? " (closed)" : "");
    }
}
