package dev.remixdb.version;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Something shared by readers and freed by whoever drops the last reference: a table, a partition's
 * REMIX, a version. The creator holds the first reference.
 */
public abstract class RefCounted {
    private final AtomicInteger refs = new AtomicInteger(1);

    /** Adds a reference; the object must still be referenced by the caller or its owner. */
    public final void retain() {
        if (refs.getAndIncrement() <= 0) {
            throw new IllegalStateException(this + " was already freed");
        }
    }

    /** Adds a reference unless the object is already freed (for lock-free readers racing a swap). */
    public final boolean tryRetain() {
        for (int n = refs.get(); n > 0; n = refs.get()) {
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Drops a reference; the last one frees the object. */
    public final void release() {
        int n = refs.decrementAndGet();
        if (n == 0) {
            free();
        } else if (n < 0) {
            throw new IllegalStateException(this + " released more often than retained");
        }
    }

    /** Current reference count (for tests and assertions). */
    public final int refCount() {
        return refs.get();
    }

    /**
     * Releases every one of {@code all}, even when some fail; the first failure is thrown with the
     * others suppressed.
     */
    public static void releaseAll(Iterable<? extends RefCounted> all, RuntimeException earlier) {
        RuntimeException failure = earlier;
        for (RefCounted r : all) {
            try {
                r.release();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Frees what the object holds; called once, by the last {@link #release()}. */
    protected abstract void free();
}
