package dev.remixdb.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite on {@link IoUringBlockReader}. Where io_uring cannot run (another OS, a
 * kernel or container that forbids it, native access off) every test is reported as skipped with
 * the reason, never passed silently.
 */
class IoUringBlockReaderTest extends BlockReaderConformance {
    @BeforeAll
    static void ringAvailable() {
        String why = IoUringBlockReader.unavailableReason();
        assumeTrue(why == null, () -> "io_uring reader not tested here: " + why);
    }

    @Override
    BlockReader newReader() throws IOException {
        return new IoUringBlockReader(false);
    }

    @Test
    void aBlockingReadInACallbackOnTheRingThreadWorks() throws Exception {
        Path p = Files.write(dir.resolve("small"), new byte[] {1, 2, 3, 4});
        try (BlockReader r = newReader(); BlockFile f = r.open(p)) {
            MemorySegment dst = MemorySegment.ofArray(new byte[2]);
            Throwable t = null;
            for (int attempt = 0; attempt < 1000 && t == null; attempt++) {
                // A callback runs on the ring thread only when the read was not done when it was attached.
                CompletableFuture<Throwable> inCallback = r.read(List.of(new BlockRead(f, 0, dst))).handle((v, e) -> {
                    if (!Thread.currentThread().getName().startsWith("remixdb-io_uring")) {
                        return null;
                    }
                    try {
                        MemorySegment mine = MemorySegment.ofArray(new byte[2]);
                        r.readFully(f, 2, mine);
                        return mine.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 1) == 4 ? new Done() : new AssertionError("wrong bytes");
                    } catch (Throwable x) {
                        return x;
                    }
                });
                t = inCallback.get(10, TimeUnit.SECONDS);
            }
            if (!(t instanceof Done)) {
                throw new AssertionError("no callback ran on the ring thread, or it failed", t);
            }
            r.readFully(f, 2, dst);
            assertArrayEquals(new byte[] {3, 4}, dst.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    /** Marks a callback that ran on the ring thread and read what it should. */
    private static final class Done extends Throwable {}

    @Test
    void directReadsOfAlignedBlocks() throws Exception {
        byte[] data = new byte[64 * 1024];
        new java.util.Random(3).nextBytes(data);
        Path p = Files.write(dir.resolve("direct"), data);
        try (BlockReader r = new IoUringBlockReader(true); BlockFile f = r.open(p);
                var arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(8192, 4096);
            try {
                r.readFully(f, 16384, dst);
            } catch (IOException e) {
                assumeTrue(false, () -> "O_DIRECT not supported by this file system: " + e.getMessage());
            }
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 16384, 16384 + 8192),
                    dst.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void aFailedBatchCompletesAfterAllItsReads() throws Exception {
        Path p = Files.write(dir.resolve("short"), new byte[100]);
        try (BlockReader r = newReader(); BlockFile f = r.open(p)) {
            CompletableFuture<Void> future = r.read(List.of(new BlockRead(f, 90, MemorySegment.ofArray(new byte[20])),
                    new BlockRead(f, 0, MemorySegment.ofArray(new byte[50]))));
            assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        }
    }
}
