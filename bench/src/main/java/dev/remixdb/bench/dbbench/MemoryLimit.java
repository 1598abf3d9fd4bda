package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.UsageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A cgroup v1 memory cgroup for one child JVM ({@code db --memory-limit}): its limit covers the
 * child's heap, native memory and the page cache it fills, so a store larger than the limit is read
 * from the disk, as on a machine that small. The child enters it before Java starts (a shell writes
 * its own pid to {@code cgroup.procs}, then execs the JVM), and the group is removed when the child
 * is gone. Needs root and {@value #ROOT}.
 */
final class MemoryLimit implements AutoCloseable {
    static final String ROOT = "/sys/fs/cgroup/memory";

    private final Path dir;

    private MemoryLimit(Path dir) {
        this.dir = dir;
    }

    /** "3g", "512m", "1073741824" as bytes. */
    static long parseBytes(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (!t.matches("[1-9][0-9]*[kmgt]?")) {
            throw new UsageException("--memory-limit must be a size like 3g or 512m: " + s);
        }
        char unit = t.charAt(t.length() - 1);
        int shift = switch (unit) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            case 't' -> 40;
            default -> 0;
        };
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        return Long.parseLong(digits) << shift;
    }

    /** A new group with {@code bytes} as its limit, named after the store and this process. */
    static MemoryLimit create(String store, long bytes) throws IOException {
        Path root = Path.of(ROOT);
        if (!Files.isDirectory(root) || !Files.isWritable(root)) {
            throw new IOException("--memory-limit needs the cgroup v1 memory controller at " + ROOT
                    + ", writable (run as root)");
        }
        Path dir = root.resolve("remixdb-bench-" + ProcessHandle.current().pid() + "-" + store);
        if (!Files.isDirectory(dir)) {
            Files.createDirectory(dir);
        }
        MemoryLimit limit = new MemoryLimit(dir);
        try {
            Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(bytes));
            // Pages another process (the previous child) left cached would be read outside the limit.
            dev.remixdb.bench.PageCache.drop();
        } catch (IOException e) {
            limit.close();
            throw new IOException("could not set the memory limit in " + dir + ": " + e.getMessage(), e);
        }
        return limit;
    }

    /** The command prefix that moves the shell into the group and then runs the rest of the command line. */
    List<String> enterThenExec() {
        return List.of("/bin/sh", "-c", "echo $$ > \"$0\" && exec \"$@\"", dir.resolve("cgroup.procs").toString());
    }

    /** The group's peak usage so far (memory.max_usage_in_bytes), or -1. */
    long peakBytes() {
        try {
            return Long.parseLong(Files.readString(dir.resolve("memory.max_usage_in_bytes")).trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Removes the group (empty once the child has exited). */
    @Override
    public void close() throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                if (attempt >= 20) {
                    throw new IOException("could not remove the cgroup " + dir + ": " + e.getMessage(), e);
                }
                try {
                    Thread.sleep(100);  // the child's exit may not be accounted yet
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted removing " + dir, ie);
                }
            }
        }
    }
}
