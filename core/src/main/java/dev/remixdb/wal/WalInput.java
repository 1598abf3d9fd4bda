package dev.remixdb.wal;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A read window over a file for replay: positional reads into one native buffer from a confined
 * arena, refilled as the reader moves on. The buffer holds 1 MiB, or the largest record asked for,
 * so a WAL of any size is read with bounded memory and few system calls.
 */
final class WalInput implements AutoCloseable {
    private static final int MIN_CAPACITY = 1 << 20;

    private final Path path;
    private final FileChannel channel;
    private final long size;
    private Arena arena;
    private MemorySegment buffer;
    private MemorySegment readOnly;
    /** The buffer holds file bytes [start, start + length). */
    private long start;
    private long length;

    WalInput(Path path, FileChannel channel, long size) {
        this.path = path;
        this.channel = channel;
        this.size = size;
    }

    long size() {
        return size;
    }

    /**
     * Makes file bytes [pos, pos + n) available (they must lie within the file) and returns the
     * buffer that holds them, read-only, at {@link #offset(long) offset(pos)}. Valid until the next call.
     */
    MemorySegment load(long pos, long n) throws IOException {
        if (buffer != null && pos >= start && pos + n <= start + length) {
            return readOnly;
        }
        if (buffer == null || buffer.byteSize() < n) {
            if (arena != null) {
                arena.close();
            }
            arena = Arena.ofConfined();
            buffer = arena.allocate(Math.max(n, MIN_CAPACITY), 8);
            readOnly = buffer.asReadOnly();
        }
        long want = Math.min(buffer.byteSize(), size - pos);
        ByteBuffer bytes = buffer.asSlice(0, want).asByteBuffer();
        start = pos;
        length = 0;  // the window is invalid until the read completes
        while (bytes.hasRemaining()) {
            if (channel.read(bytes, pos + bytes.position()) < 0) {
                throw new EOFException(path + ": file ended at offset " + (pos + bytes.position())
                        + " while reading up to " + (pos + want) + "; was it truncated during replay?");
            }
        }
        length = want;
        return readOnly;
    }

    /** Where file offset {@code pos} is in the buffer last returned by {@link #load}. */
    long offset(long pos) {
        return pos - start;
    }

    /** Whether every byte from {@code pos} to the end of the file is zero. */
    boolean zeroFrom(long pos) throws IOException {
        for (long p = pos; p < size; ) {
            long n = Math.min(MIN_CAPACITY, size - p);
            MemorySegment seg = load(p, n);
            long at = offset(p);
            long i = 0;
            for (; i + 8 <= n; i += 8) {
                if (seg.get(ValueLayout.JAVA_LONG_UNALIGNED, at + i) != 0) {
                    return false;
                }
            }
            for (; i < n; i++) {
                if (seg.get(ValueLayout.JAVA_BYTE, at + i) != 0) {
                    return false;
                }
            }
            p += n;
        }
        return true;
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }
}
