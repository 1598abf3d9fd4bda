package dev.remixdb.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads blocks of immutable files, a batch at a time. The batch form lets an asynchronous
 * implementation (io_uring) submit many reads with one system call; {@link FileChannelBlockReader}
 * is the portable, synchronous one. Implementations are safe for concurrent use.
 */
public interface BlockReader extends AutoCloseable {

    /** Opens {@code path} read-only. */
    BlockFile open(Path path) throws IOException;

    /**
     * Starts the reads of {@code batch}. The future completes when every read has filled its
     * destination, or fails with an {@link IOException} naming the file and offset of the first
     * failed read ({@link java.io.EOFException} when the file ends before the read does). Other reads
     * of a failed batch may or may not have been done.
     */
    CompletableFuture<Void> read(List<BlockRead> batch);

    /** Reads {@code dst.byteSize()} bytes of {@code file} at {@code offset} and waits for them. */
    default void readFully(BlockFile file, long offset, MemorySegment dst) throws IOException {
        try {
            read(List.of(new BlockRead(file, offset, dst))).join();
        } catch (CompletionException e) {
            throw unwrap(e);
        }
    }

    /** The engine's name for logs and stats: "io_uring" or "filechannel". */
    default String name() {
        return getClass().getSimpleName();
    }

    /** Whether the reads of a batch run in parallel (else one after another on the caller's thread). */
    default boolean parallel() {
        return false;
    }

    /**
     * Whether the calling thread is this reader's own I/O thread (io_uring's), where reads complete:
     * a wait there for one of this reader's reads would wait for itself. Futures of this reader run
     * their dependent stages there, user code included.
     */
    default boolean onOwnThread() {
        return false;
    }

    /** Closes the reader: later {@link #open} and {@link #read} calls fail; open files stay usable until closed. */
    @Override
    void close();

    /** The {@link IOException} inside a failed future's {@link CompletionException}. */
    static IOException unwrap(CompletionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IOException io) {
            return io;
        }
        if (cause instanceof UncheckedIOException io) {
            return io.getCause();
        }
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new IOException(cause);
    }
}
