package dev.remixdb.io;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One read of a batch: {@code dst.byteSize()} bytes of {@code file} starting at {@code offset}.
 * {@code dst} may be a native or a heap segment; a native one spares implementations a copy.
 */
public record BlockRead(BlockFile file, long offset, MemorySegment dst) {
    public BlockRead {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(dst, "dst");
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset + " in " + file.path());
        }
    }
}
