package dev.remixdb.ycsb;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Stores shared by the client threads of one YCSB run, one per directory, reference-counted.
 *
 * <p>YCSB makes one {@code DB} object per client thread and calls {@code init} and {@code cleanup}
 * on each; an embedded store can only be opened once per directory, so the first {@code init}
 * opens it, later ones share it, and the {@code cleanup} that drops the last reference closes it.
 * Opening happens under this object's lock on purpose: the other threads have to wait for the
 * store anyway, and must not open it a second time.
 *
 * @param <T> the store type
 */
final class SharedStores<T extends AutoCloseable> {

    /** Opens a store in a directory. */
    @FunctionalInterface
    interface Opener<T> {
        T open(Path dir) throws Exception;
    }

    private static final class Entry<T> {
        final T store;
        int users;

        Entry(T store) {
            this.store = store;
        }
    }

    private final Map<Path, Entry<T>> open = new HashMap<>();

    /** The store in {@code dir}, opened by {@code opener} if no one holds it; one more reference. */
    synchronized T acquire(Path dir, Opener<T> opener) throws Exception {
        Path key = normalize(dir);
        Entry<T> e = open.get(key);
        if (e == null) {
            e = new Entry<>(opener.open(key));
            open.put(key, e);
        }
        e.users++;
        return e.store;
    }

    /** Drops one reference to the store in {@code dir}; the last one closes it. */
    synchronized void release(Path dir) throws Exception {
        release(dir, store -> { });
    }

    /** As {@link #release(Path)}; the last reference first hands the store to {@code beforeClose}. */
    synchronized void release(Path dir, Consumer<T> beforeClose) throws Exception {
        Path key = normalize(dir);
        Entry<T> e = open.get(key);
        if (e == null) {
            throw new IllegalStateException("no open store in " + key + " to release");
        }
        if (--e.users == 0) {
            open.remove(key); // removed first: a failing close must not leave a closed store shared
            try {
                beforeClose.accept(e.store);
            } finally {
                e.store.close();
            }
        }
    }

    /** References held on the store in {@code dir}; 0 when it is closed. */
    synchronized int users(Path dir) {
        Entry<T> e = open.get(normalize(dir));
        return e == null ? 0 : e.users;
    }

    private static Path normalize(Path dir) {
        return dir.toAbsolutePath().normalize();
    }
}
