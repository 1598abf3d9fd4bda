package dev.remixdb.engine;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store directories this JVM holds, by real path. The OS lock on a store's LOCK file belongs
 * to the process (POSIX record locks): a second channel on the same file, opened only to find the
 * lock taken, releases the first channel's lock when it closes. So a second open in the same JVM
 * (or a verify of an open store) must be refused here, before it opens any channel on LOCK.
 */
public final class StoreLocks {
    private static final Set<String> HELD = ConcurrentHashMap.newKeySet();

    private StoreLocks() {}

    /**
     * Claims {@code dir} (which must exist) for this JVM.
     *
     * @throws IOException when it is already claimed, by an open store or a running verify
     */
    public static String claim(Path dir) throws IOException {
        String key = dir.toRealPath().toString();
        if (!HELD.add(key)) {
            throw new IOException("the store at " + dir + " is already open in this process (or being verified)");
        }
        return key;
    }

    /** Gives back a claim returned by {@link #claim}. */
    public static void release(String key) {
        HELD.remove(key);
    }
}
