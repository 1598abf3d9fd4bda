package dev.remixdb.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This JVM's claim on a directory: a store open on it, a backup being made or removed in it, or a
 * checkpoint or restore building it. Keyed by real path, so that two names of one directory through
 * a symbolic link are one claim.
 *
 * <p>Why besides the OS locks: a lock on a file belongs to the process (POSIX record locks), and a
 * second channel on the same file, opened only to find the lock taken, releases the first
 * channel's lock when it closes; so a second taker in this JVM is turned away here, before it
 * opens anything. A directory being built (a checkpoint's or restore's target) has no lock file
 * yet, and two builders would share and delete each other's partial directory.
 */
public final class DirectoryClaim implements AutoCloseable {
    private static final Set<Path> CLAIMED = ConcurrentHashMap.newKeySet();
    private final Path key;

    private DirectoryClaim(Path key) {
        this.key = key;
    }

    /**
     * Claims {@code dir} until {@link #close()}, or returns null when this JVM holds it already.
     * {@code dir} need not exist, but its parent must.
     */
    public static DirectoryClaim tryClaim(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        Path key = Files.exists(abs) ? abs.toRealPath() : abs.getParent().toRealPath().resolve(abs.getFileName());
        return CLAIMED.add(key) ? new DirectoryClaim(key) : null;
    }

    /** Releases the claim. Idempotent. */
    @Override
    public void close() {
        CLAIMED.remove(key);
    }
}
