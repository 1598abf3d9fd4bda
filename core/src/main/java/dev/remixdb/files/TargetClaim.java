package dev.remixdb.files;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This process's claim on a directory that a checkpoint or a restore is building. Each builds in a
 * hidden sibling of the target, named after it, and renames that into place at the end; two calls
 * for one target at once would share and delete each other's partial directory and could publish a
 * mix of both. The second call is refused instead, as if the target already existed.
 */
public final class TargetClaim implements AutoCloseable {
    private static final Set<Path> CLAIMED = ConcurrentHashMap.newKeySet();
    private final Path path;

    private TargetClaim(Path path) {
        this.path = path;
    }

    /**
     * Claims {@code target} until {@link #close()}, by the real path of its parent (which must exist)
     * and its name: two paths to one directory through a symbolic link are one claim, as they would
     * share one partial directory.
     */
    public static TargetClaim claim(Path target) throws IOException {
        Path abs = target.toAbsolutePath().normalize();
        Path p = abs.getParent().toRealPath().resolve(abs.getFileName());
        if (!CLAIMED.add(p)) {
            throw new FileAlreadyExistsException(p.toString(), null,
                    "another checkpoint or restore is building this directory now");
        }
        return new TargetClaim(p);
    }

    @Override
    public void close() {
        CLAIMED.remove(path);
    }
}
