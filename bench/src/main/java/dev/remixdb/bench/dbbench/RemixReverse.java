package dev.remixdb.bench.dbbench;

import dev.remixdb.Cursor;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Reverse scans on RemixDB (the {@code seekprevN} phases): seek to the last key {@code <= k}, then
 * copy N entries going backwards.
 *
 * <p>TODO(reverse cursor): {@code Cursor.seekForPrev(byte[])} and {@code Cursor.prev()} are being
 * added to core and are not in the remixdb-core jar this module builds against yet. Until then the
 * two methods are looked up at run time: with the current jar {@link #available()} is false and the
 * {@code seekprevN} phases are skipped for RemixDB (RocksDB still runs them), and they are left out
 * of {@code --phases all}. Once core has them: replace the two handles by direct calls
 * {@code c.seekForPrev(key)} / {@code c.prev()}, make {@link #available()} return true (or drop it
 * with {@link Store#supportsReverse()}), and add {@code seekprev50} to {@link PhaseSpec#ALL}.
 */
final class RemixReverse {
    private static final MethodHandle SEEK_FOR_PREV = find("seekForPrev", MethodType.methodType(void.class, byte[].class));
    private static final MethodHandle PREV = find("prev", MethodType.methodType(void.class));

    private RemixReverse() {}

    /** Whether the RemixDB on the class path has a reverse cursor. */
    static boolean available() {
        return SEEK_FOR_PREV != null && PREV != null;
    }

    /** Positions {@code c} at the last key {@code <= key} and hands up to n entries, descending. */
    static int scan(Cursor c, byte[] key, int n, Store.Sink sink) {
        if (!available()) {
            throw new UnsupportedOperationException(
                    "this RemixDB has no Cursor.seekForPrev(byte[]) / Cursor.prev(): reverse scans need a newer core");
        }
        try {
            SEEK_FOR_PREV.invokeExact(c, key);
            int done = 0;
            while (done < n && c.isValid()) {
                sink.accept(c.key(), c.value());
                done++;
                if (done < n) {
                    PREV.invokeExact(c);
                }
            }
            return done;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static MethodHandle find(String name, MethodType type) {
        try {
            return MethodHandles.publicLookup().findVirtual(Cursor.class, name, type);
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
