package dev.remixdb.cache;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/** Fills a cache slot on a miss: reads (and checks, and decompresses) one block into {@code dst}. */
@FunctionalInterface
public interface BlockLoader {

    /** Fills all {@code dst.byteSize()} bytes of {@code dst}; on failure the slot is returned to the cache. */
    void load(MemorySegment dst) throws IOException;
}
