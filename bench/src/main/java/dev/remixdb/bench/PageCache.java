package dev.remixdb.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The kernel's page cache, for benchmarks that must read from the disk. */
public final class PageCache {
    private PageCache() {}

    /** Writes dirty pages back, then drops the clean ones ({@code drop_caches}; needs root). */
    public static void drop() throws IOException {
        try {
            new ProcessBuilder("sync").inheritIO().start().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while syncing", e);
        }
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "1");
    }
}
