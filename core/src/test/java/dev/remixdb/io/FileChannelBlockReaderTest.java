package dev.remixdb.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileChannelBlockReader}: batches, short reads, closed files, interrupts. */
class FileChannelBlockReaderTest {
    @TempDir
    Path dir;

    private Path file(int size) throws IOException {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        return Files.write(dir.resolve("f" + size), b);
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void batchReadFillsEveryDestination() throws Exception {
        Path p = file(20_000);
        byte[] all = Files.readAllBytes(p);
        try (BlockReader r = new FileChannelBlockReader(); BlockFile f = r.open(p); Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(4096);
            MemorySegment b = arena.allocate(100);
            MemorySegment heap = MemorySegment.ofArray(new byte[777]);
            r.read(List.of(new BlockRead(f, 0, a), new BlockRead(f, 19_900, b), new BlockRead(f, 5000, heap))).get();
            assertArrayEquals(Arrays.copyOfRange(all, 0, 4096), bytes(a));
            assertArrayEquals(Arrays.copyOfRange(all, 19_900, 20_000), bytes(b));
            assertArrayEquals(Arrays.copyOfRange(all, 5000, 5777), bytes(heap));
            assertTrue(f.size() == 20_000 && f.path().equals(p));
        }
    }

    @Test
    void shortReadIsAnEofNamingFileAndOffset() throws Exception {
        Path p = file(1000);
        try (BlockReader r = new FileChannelBlockReader(); BlockFile f = r.open(p)) {
            MemorySegment dst = MemorySegment.ofArray(new byte[100]);
            EOFException e = assertThrows(EOFException.class, () -> r.readFully(f, 950, dst));
            assertTrue(e.getMessage().contains(p.toString()) && e.getMessage().contains("offset 950"), e.getMessage());
            CompletableFuture<Void> future = r.read(List.of(new BlockRead(f, 0, dst), new BlockRead(f, 990, dst)));
            ExecutionException x = assertThrows(ExecutionException.class, future::get);
            assertInstanceOf(EOFException.class, x.getCause());
            assertThrows(EOFException.class, () -> new BlockReader() {  // the default readFully unwraps too
                @Override
                public BlockFile open(Path path) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public CompletableFuture<Void> read(List<BlockRead> batch) {
                    return r.read(batch);
                }

                @Override
                public void close() {
                }
            }.readFully(f, 999, dst));
        }
    }

    @Test
    void closedFileAndReader() throws IOException {
        Path p = file(100);
        BlockReader r = new FileChannelBlockReader();
        BlockFile f = r.open(p);
        f.close();
        f.close();
        IOException e = assertThrows(IOException.class, () -> r.readFully(f, 0, MemorySegment.ofArray(new byte[10])));
        assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
        r.close();
        assertThrows(IllegalStateException.class, () -> r.open(p));
    }

    @Test
    void anInterruptFailsOneReadButNotTheFile() throws IOException {
        Path p = file(5000);
        byte[] all = Files.readAllBytes(p);
        try (BlockReader r = new FileChannelBlockReader(); BlockFile f = r.open(p)) {
            MemorySegment dst = MemorySegment.ofArray(new byte[100]);
            Thread.currentThread().interrupt();
            try {
                InterruptedIOException e = assertThrows(InterruptedIOException.class, () -> r.readFully(f, 10, dst));
                assertTrue(e.getMessage().contains("offset 10"), e.getMessage());
            } finally {
                Thread.interrupted();
            }
            r.readFully(f, 200, dst);
            assertArrayEquals(Arrays.copyOfRange(all, 200, 300), bytes(dst));
        }
    }
}
