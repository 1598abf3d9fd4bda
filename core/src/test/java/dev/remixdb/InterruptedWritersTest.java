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
}
