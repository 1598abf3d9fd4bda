package dev.remixdb.io;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link BlockReader} over positional {@link FileChannel} reads: portable and synchronous (a
 * batch is read in order on the calling thread, and the returned future is already complete).
 *
 * <p>A {@link FileChannel} is closed for every thread when one thread is interrupted during a read
 * on it (JDK-4470470 "interruptible channels"). One table file serves many threads, so one
 * interrupted reader must not break the others: the file reopens its channel, the interrupted read
 * fails with an {@link InterruptedIOException}, and reads that the close aborted are retried.
 */
public final class FileChannelBlockReader implements BlockReader {
    /** Largest piece read with one {@link ByteBuffer} (a ByteBuffer is int-indexed). */
    private static final int MAX_PIECE = 1 << 30;
    private static final int MAX_REOPENS = 3;

    private volatile boolean closed;

    @Override
    public String name() {
        return "filechannel";
    }

    @Override
    public boolean parallel() {
        return false;
    }

    @Override
    public BlockFile open(Path path) throws IOException {
        checkOpen();
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new ChannelFile(path, channel, channel.size());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public CompletableFuture<Void> read(List<BlockRead> batch) {
        try {
            for (BlockRead r : batch) {
                readFully(r.file(), r.offset(), r.dst());
            }
            return CompletableFuture.completedFuture(null);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Reads synchronously without a future. */
    @Override
    public void readFully(BlockFile file, long offset, MemorySegment dst) throws IOException {
        checkOpen();
        if (!(file instanceof ChannelFile f)) {
            throw new IllegalArgumentException("not a file of this reader: " + file);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset + " in " + f.path);
        }
        long length = dst.byteSize();
        for (long done = 0; done < length; ) {
            int piece = (int) Math.min(length - done, MAX_PIECE);
            ByteBuffer buf = (piece == length ? dst : dst.asSlice(done, piece)).asByteBuffer();
            while (buf.hasRemaining()) {
                long at = offset + done + buf.position();
                if (readOnce(f, buf, at) < 0) {
                    throw new EOFException(f.path + ": end of file at offset " + at + " while reading " + length
                            + " bytes at offset " + offset + " (file size " + f.size + ")");
                }
            }
            done += piece;
        }
    }

    private static int readOnce(ChannelFile f, ByteBuffer buf, long at) throws IOException {
        for (int attempt = 0; ; attempt++) {
            FileChannel ch = f.channel();
            try {
                return ch.read(buf, at);
            } catch (ClosedByInterruptException e) {
                f.reopen(ch);
                InterruptedIOException x = new InterruptedIOException(f.path + ": read at offset " + at + " interrupted");
                x.initCause(e);
                throw x;
            } catch (ClosedChannelException e) {
                // Another thread's interrupt (AsynchronousCloseException) or an earlier one closed it.
                if (f.closed || attempt >= MAX_REOPENS) {
                    throw new IOException(f.path + ": read at offset " + at + " failed: file is closed", e);
                }
                f.reopen(ch);
            } catch (IOException e) {
                throw new IOException(f.path + ": read at offset " + at + " failed: " + e.getMessage(), e);
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("block reader is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
    }

    /** A file with a channel that can be reopened after an interrupt closed it. */
    private static final class ChannelFile implements BlockFile {
        private final Path path;
        private final long size;
        private volatile FileChannel channel;
        private volatile boolean closed;

        ChannelFile(Path path, FileChannel channel, long size) {
            this.path = path;
            this.channel = channel;
            this.size = size;
        }

        FileChannel channel() throws IOException {
            if (closed) {
                throw new IOException(path + " is closed");
            }
            return channel;
        }

        /** Replaces {@code failed} by a new channel, unless another thread already did or the file was closed. */
        synchronized void reopen(FileChannel failed) throws IOException {
            if (!closed && channel == failed) {
                channel = FileChannel.open(path, StandardOpenOption.READ);
            }
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public synchronized void close() throws IOException {
            if (!closed) {
                closed = true;
                channel.close();
            }
        }

        @Override
        public String toString() {
            return "BlockFile[" + path + "]";
        }
    }
}
