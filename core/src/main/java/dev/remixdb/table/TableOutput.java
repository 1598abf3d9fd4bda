package dev.remixdb.table;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Appends to a new file through a 256 KiB native buffer, so that 4 KiB blocks do not cost one system
 * call each. Write errors name the file and offset. For the thread that created it only.
 */
final class TableOutput implements AutoCloseable {
    private static final int BUFFER = 256 * 1024;

    private final Path path;
    private final FileChannel channel;
    private final Arena arena = Arena.ofConfined();  // one table writer's, so one thread's
    private final MemorySegment buffer = arena.allocate(BUFFER, 4096);
    private int buffered;
    /** Bytes written to the file so far. */
    private long flushed;

    TableOutput(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /** The file offset of the next byte written. */
    long position() {
        return flushed + buffered;
    }

    void write(MemorySegment src, long offset, long length) throws IOException {
        if (length > BUFFER - buffered) {
            flush();
            if (length >= BUFFER / 2) {
                writeDirect(src, offset, length);
                return;
            }
        }
        MemorySegment.copy(src, offset, buffer, buffered, length);
        buffered += (int) length;
    }

    /** Appends {@code n} zero bytes. */
    void pad(long n) throws IOException {
        while (n > 0) {
            if (buffered == BUFFER) {
                flush();
            }
            int k = (int) Math.min(n, BUFFER - buffered);
            buffer.asSlice(buffered, k).fill((byte) 0);
            buffered += k;
            n -= k;
        }
    }

    void flush() throws IOException {
        if (buffered > 0) {
            writeDirect(buffer, 0, buffered);
            buffered = 0;
        }
    }

    /** Flushes and forces the file's content and size to the device. */
    void force() throws IOException {
        flush();
        try {
            channel.force(true);
        } catch (IOException e) {
            throw new IOException(path + ": fsync failed: " + e.getMessage(), e);
        }
    }

    private void writeDirect(MemorySegment src, long offset, long length) throws IOException {
        for (long done = 0; done < length; ) {
            int n = (int) Math.min(length - done, 1 << 30);
            ByteBuffer b = src.asSlice(offset + done, n).asByteBuffer();
            while (b.hasRemaining()) {
                long at = flushed + b.position();
                try {
                    channel.write(b, at);
                } catch (IOException e) {
                    throw new IOException(path + ": write at offset " + at + " failed: " + e.getMessage(), e);
                }
            }
            flushed += n;
            done += n;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            if (arena.scope().isAlive()) {
                arena.close();
            }
        }
    }
}
