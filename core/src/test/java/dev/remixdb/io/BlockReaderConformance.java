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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link BlockReader} must do, run against each implementation (one subclass each):
 * batches, short and past-end reads, many reads in flight, closed files and readers, I/O errors
 * naming the file and offset, interrupts, and a close with reads in flight that leaves no
 * descriptor behind.
 */
abstract class BlockReaderConformance {
    @TempDir
    Path dir;

    /** A new reader of the implementation under test. */
    abstract BlockReader newReader() throws IOException;

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
        try (BlockReader r = newReader(); BlockFile f = r.open(p); Arena arena = Arena.ofConfined()) {
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
        try (BlockReader r = newReader(); BlockFile f = r.open(p)) {
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
        BlockReader r = newReader();
        BlockFile f = r.open(p);
        f.close();
        f.close();
        IOException e = assertThrows(IOException.class, () -> r.readFully(f, 0, MemorySegment.ofArray(new byte[10])));
        assertTrue(e.getMessage().contains(p.toString()), e.getMessage());
        r.close();
        assertThrows(IllegalStateException.class, () -> r.open(p));
    }

    @Test
    void manyReadsInFlightEachLandWhereAsked() throws Exception {
        Path p = file(1 << 20);
        byte[] all = Files.readAllBytes(p);
        Random random = new Random(7);
        try (BlockReader r = newReader(); BlockFile f = r.open(p); Arena arena = Arena.ofShared()) {
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            List<long[]> asked = new ArrayList<>();
            List<MemorySegment> dsts = new ArrayList<>();
            for (int batch = 0; batch < 40; batch++) {
                List<BlockRead> reads = new ArrayList<>();
                for (int i = 0; i < 50; i++) {  // 2,000 reads, more than a ring holds at once
                    int length = 1 + random.nextInt(9000);
                    long offset = random.nextInt(all.length - length);
                    MemorySegment dst = i % 5 == 0 ? MemorySegment.ofArray(new byte[length]) : arena.allocate(length);
                    reads.add(new BlockRead(f, offset, dst));
                    asked.add(new long[] {offset, length});
                    dsts.add(dst);
                }
                futures.add(r.read(reads));
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            for (int i = 0; i < dsts.size(); i++) {
                int from = (int) asked.get(i)[0];
                assertArrayEquals(Arrays.copyOfRange(all, from, from + (int) asked.get(i)[1]), bytes(dsts.get(i)), "read " + i);
            }
        }
    }

    @Test
    void readsFromManyThreadsAtOnce() throws Exception {
        Path p = file(300_000);
        byte[] all = Files.readAllBytes(p);
        try (BlockReader r = newReader(); BlockFile f = r.open(p)) {
            List<Thread> threads = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                threads.add(Thread.ofPlatform().start(() -> {
                    Random random = new Random(seed);
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment dst = arena.allocate(4096);
                        for (int i = 0; i < 2000; i++) {
                            int offset = random.nextInt(all.length - 4096);
                            r.readFully(f, offset, dst);
                            if (!Arrays.equals(bytes(dst), Arrays.copyOfRange(all, offset, offset + 4096))) {
                                throw new AssertionError("wrong bytes at " + offset);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }

    @Test
    void emptyBatchAndZeroLengthRead() throws Exception {
        Path p = file(10);
        try (BlockReader r = newReader(); BlockFile f = r.open(p)) {
            r.read(List.of()).get();
            r.readFully(f, 10, MemorySegment.ofArray(new byte[0]));
        }
    }

    @Test
    void anIoErrorNamesTheFileAndOffset() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("a-directory"));
        try (BlockReader r = newReader()) {
            BlockFile f;
            try {
                f = r.open(sub);
            } catch (IOException e) {
                assertTrue(e.getMessage().contains(sub.toString()), e.getMessage());
                return;  // refused at open: named too
            }
            try (f) {
                IOException e = assertThrows(IOException.class, () -> r.readFully(f, 4096, MemorySegment.ofArray(new byte[10])));
                assertTrue(e.getMessage().contains(sub.toString()) && e.getMessage().contains("offset 4096"), e.getMessage());
            }
            IOException missing = assertThrows(IOException.class, () -> r.open(dir.resolve("missing")));
            assertTrue(missing.getMessage().contains("missing"), missing.getMessage());
        }
    }

    @Test
    void closeWithReadsInFlightEndsEveryReadAndLeavesNoDescriptor() throws Exception {
        Path p = file(1 << 20);
        long before = openDescriptors();
        for (int round = 0; round < 5; round++) {
            BlockReader r = newReader();
            BlockFile f = r.open(p);
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            try (Arena arena = Arena.ofShared()) {
                for (int i = 0; i < 20; i++) {
                    List<BlockRead> reads = new ArrayList<>();
                    for (int j = 0; j < 64; j++) {
                        reads.add(new BlockRead(f, (long) (i * 64 + j) * 512, arena.allocate(4096)));
                    }
                    futures.add(r.read(reads));
                }
                f.close();  // the descriptor stays until the reads in flight are done
                r.close();
                for (CompletableFuture<Void> future : futures) {
                    assertTrue(future.isDone(), "close returned with a read not ended");
                }
            }
            assertThrows(IllegalStateException.class, () -> r.open(p));
            assertTrue(r.read(List.of(new BlockRead(f, 0, MemorySegment.ofArray(new byte[1])))).isCompletedExceptionally());
        }
        assertTrue(openDescriptors() <= before + 2, "descriptors before " + before + ", after " + openDescriptors());
    }

    private static long openDescriptors() throws IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (java.nio.file.NoSuchFileException e) {
            return 0;  // not Linux: nothing to count
        }
    }

    @Test
    void anInterruptFailsOneReadButNotTheFile() throws IOException {
        Path p = file(5000);
        byte[] all = Files.readAllBytes(p);
        try (BlockReader r = newReader(); BlockFile f = r.open(p)) {
            MemorySegment dst = MemorySegment.ofArray(new byte[100]);
            Thread.currentThread().interrupt();
            try {
                try {
                    r.readFully(f, 10, dst);  // a reader may finish the read and keep the interrupt ...
                    assertTrue(Thread.currentThread().isInterrupted(), "the interrupt was swallowed");
                    assertArrayEquals(Arrays.copyOfRange(all, 10, 110), bytes(dst));
                } catch (InterruptedIOException e) {  // ... or fail it, naming where
                    assertTrue(e.getMessage().contains("offset 10"), e.getMessage());
                }
            } finally {
                Thread.interrupted();
            }
            r.readFully(f, 200, dst);
            assertArrayEquals(Arrays.copyOfRange(all, 200, 300), bytes(dst));
        }
    }
}
