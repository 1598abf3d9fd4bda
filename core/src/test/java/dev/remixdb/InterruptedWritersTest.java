package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Interrupts of writers' threads (an executor's shutdownNow, a cancelled task, a function that
 * restores an interrupt): the writer whose thread led the group commit closed the WAL's file
 * channel with its interrupt, and the store took no more writes.
 */
class InterruptedWritersTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anInterruptedThreadWritesAndSyncsAndKeepsItsInterrupt() throws Exception {
        try (RemixDB db = RemixDB.open(dir, Options.builder().syncWrites(true).build())) {
            Thread.currentThread().interrupt();
            db.put(b("a"), b("1"));
            db.sync();
            assertTrue(Thread.interrupted(), "the caller's interrupt is kept");
            db.put(b("b"), b("2"));
            assertArrayEquals(b("1"), db.get(b("a")));
            assertArrayEquals(b("2"), db.get(b("b")));
        }
        try (RemixDB db = RemixDB.open(dir)) {
            assertArrayEquals(b("2"), db.get(b("b")));
        }
    }

    /** Writers interrupted at random while they write: none of it fails the store. */
    @Test
    void writersInterruptedAtRandomDoNotFailTheStore() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (RemixDB db = RemixDB.open(dir, Options.builder().walFlushMillis(0).memtableBytes(256 * 1024).build())) {
            Future<?>[] writers = new Future<?>[3];
            Thread[] threads = new Thread[3];
            CountDownLatch started = new CountDownLatch(3);
            for (int t = 0; t < 3; t++) {
                int id = t;
                writers[t] = pool.submit(() -> {
                    threads[id] = Thread.currentThread();
                    started.countDown();
                    for (int i = 0; i < 20_000; i++) {
                        db.put(b("w" + id + "-" + i), new byte[100]);
                        if (i % 1000 == 0) {
                            db.sync();
                        }
                        Thread.interrupted();
                    }
                    return null;
                });
            }
            started.await();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(writers[0].isDone() && writers[1].isDone() && writers[2].isDone()) && System.nanoTime() < end) {
                for (Thread t : threads) {
                    t.interrupt();
                }
                Thread.sleep(1);
            }
            for (Future<?> w : writers) {
                w.get(60, TimeUnit.SECONDS);
            }
            db.put(b("after"), b("x"));
            db.sync();
        } finally {
            pool.shutdownNow();
        }
        try (RemixDB db = RemixDB.open(dir)) {
            for (int t = 0; t < 3; t++) {
                assertArrayEquals(new byte[100], db.get(b("w" + t + "-19999")));
            }
        }
    }

    /**
     * A read-modify-write function that sets an interrupt on the thread leading the group (as the
     * usual handling of InterruptedException does) and fails: only its own call fails, not the
     * leader's write or the store, and the interrupt stays on that thread, for its caller.
     */
    @Test
    void aFunctionsInterruptGoesToItsOwnCaller() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (RemixDB db = RemixDB.open(dir, Options.builder().syncWrites(true).build())) {
            db.put(b("warm"), b("up"));
            CountDownLatch inFunction = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<?> head = pool.submit(() -> db.compute(b("c"), v -> {  // holds the head of the queue
                inFunction.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                return b("c");
            }));
            assertTrue(inFunction.await(10, TimeUnit.SECONDS));
            boolean[] putInterrupted = new boolean[1];
            Future<?> put = pool.submit(() -> {
                try {
                    db.put(b("b"), b("innocent"));
                } finally {
                    putInterrupted[0] = Thread.interrupted();
                }
                return null;
            });
            Thread.sleep(300);  // the put queued first: it leads the next group
            boolean[] computeInterrupted = new boolean[1];
            Future<?> compute = pool.submit(() -> {
                try {
                    return db.compute(b("a"), v -> {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("the function's own failure");
                    });
                } finally {
                    computeInterrupted[0] = Thread.interrupted();
                }
            });
            Thread.sleep(300);  // the compute joins the put's group
            release.countDown();
            head.get(10, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> compute.get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException, e.getCause().toString());
            try {
                put.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException failed) {
                fail("the put failed: " + failed.getCause());
            }
            assertTrue(putInterrupted[0] || computeInterrupted[0], "the interrupt was lost");
            db.put(b("after"), b("x"));
            assertArrayEquals(b("innocent"), db.get(b("b")));
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A read-modify-write reads the current value, from a table file when it is not cached: through
     * FileChannel, an interrupted thread's read failed with InterruptedIOException, and with it the
     * write (a plain put finished). The write path's reads ignore interrupts as its WAL I/O does.
     */
    @Test
    void anInterruptedThreadsReadModifyWriteReadsFromTablesAndKeepsItsInterrupt() throws Exception {
        Options o = Options.builder().ioEngine(IoEngine.FILE_CHANNEL).blockCacheBytes(0).build();
        try (RemixDB db = RemixDB.open(dir, o)) {
            db.put(b("k"), b("1"));
            db.put(b("m"), b("1"));
            db.compactMemtable();  // the values live in a table now, and no block stays cached
            try {
                Thread.currentThread().interrupt();
                assertArrayEquals(b("2"), db.compute(b("k"), old -> b("2")));
                assertTrue(Thread.currentThread().isInterrupted(), "the caller's interrupt is kept");
                assertArrayEquals(b("1"), db.asMap().put(b("m"), b("3")));
                assertTrue(Thread.interrupted(), "the caller's interrupt is kept");
            } finally {
                Thread.interrupted();
            }
            assertArrayEquals(b("2"), db.get(b("k")));
            assertArrayEquals(b("3"), db.get(b("m")));
        }
    }

    /**
     * The leader of a group runs the read-modify-writes of the threads behind it, and re-reads their
     * keys when a write reached them meanwhile: an interrupted leader's read failed another thread's
     * write, a thread nobody interrupted. Writers interrupted all the time lead groups here while
     * two threads that are never interrupted compute over keys that live in tables.
     */
    @Test
    void anInterruptedLeaderDoesNotFailAnotherThreadsReadModifyWrite() throws Exception {
        Options o = Options.builder().ioEngine(IoEngine.FILE_CHANNEL).memtableBytes(8 << 10).tableBytes(8 << 10)
                .maxFrozenMemtables(1).blockCacheBytes(0).build();
        int keys = 3000;
        try (RemixDB db = RemixDB.open(dir, o)) {
            for (int i = 0; i < keys; i++) {
                db.put(b(String.format("k%06d", i)), new byte[100]);
            }
            db.compactMemtable();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.Queue<Throwable> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
            Thread[] putters = new Thread[8];
            for (int p = 0; p < putters.length; p++) {
                int id = p;
                putters[p] = Thread.ofPlatform().start(() -> {
                    java.util.Random r = new java.util.Random(id);
                    while (!stop.get()) {
                        try {
                            Thread.currentThread().interrupt();
                            // New keys with large values: memtables switch all the time, so the
                            // leader often has to read a compute's key again.
                            db.put(b("p" + r.nextInt(100_000)), new byte[3000]);
                        } catch (Throwable t) {
                            failures.add(t);
                        }
                        Thread.interrupted();
                    }
                });
            }
            Thread[] computers = new Thread[2];
            for (int c = 0; c < computers.length; c++) {
                int id = c;
                computers[c] = Thread.ofPlatform().start(() -> {
                    java.util.Random r = new java.util.Random(100 + id);
                    while (!stop.get()) {
                        try {
                            db.compute(b(String.format("k%06d", r.nextInt(keys))),
                                    old -> old == null || old.length > 250 ? new byte[1] : new byte[old.length + 1]);
                        } catch (Throwable t) {
                            failures.add(t);
                        }
                    }
                });
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < end && failures.isEmpty()) {
                for (Thread t : putters) {
                    t.interrupt();
                }
                Thread.sleep(0, 200_000);
            }
            stop.set(true);
            for (Thread t : putters) {
                t.join();
            }
            for (Thread t : computers) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> "a write failed: " + failures.peek());
        }
    }
}
