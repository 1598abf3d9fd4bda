package dev.remixdb;

import dev.remixdb.compaction.RemixDbPolicy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A platform thread reuses one write request for its puts and deletes (no garbage per write). What
 * that must not change: a write made from inside a read-modify-write function that runs on another
 * writer's thread (the group's leader, whose own request is in flight) is refused, and that
 * writer's writes all land; the store keeps no reference to a caller's arrays once a write has
 * returned (a build that kept the last op in the reusable request fails here); virtual threads,
 * which get no reusable request, write as before.
 */
class WriteRequestReuseTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A deadlock would hang the build at the close below (it joins the compactor): fail instead. */
    @Test
    @Timeout(300)
    void aFunctionRunOnAnotherWritersThreadCannotTakeItsRequest() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (RemixDB db = RemixDB.open(dir, Options.builder().memtableBytes(1 << 20).build())) {
            AtomicBoolean stop = new AtomicBoolean();
            Thread[] writerThread = new Thread[1];
            AtomicInteger writes = new AtomicInteger();
            Future<?> writer = pool.submit(() -> {
                writerThread[0] = Thread.currentThread();
                int i = 0;
                while (!stop.get()) {
                    db.put(b("w" + (i % 1000)), b("value " + i));
                    i++;
                    writes.set(i);
                }
                return null;
            });
            AtomicInteger onWriterThread = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            Future<?> computer = pool.submit(() -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (onWriterThread.get() < 20 && System.nanoTime() < deadline) {
                    try {
                        db.compute(b("c"), old -> {
                            if (Thread.currentThread() == writerThread[0]) {
                                onWriterThread.incrementAndGet();
                            }
                            try {
                                db.put(b("x"), b("from a function"));
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                            return b("never");
                        });
                        unexpected.add(new AssertionError("a function's write was not refused"));
                    } catch (IllegalStateException refused) {
                        if (!refused.getMessage().contains("must not write")) {
                            unexpected.add(refused);
                        }
                    }
                }
                return null;
            });
            computer.get(90, TimeUnit.SECONDS);
            stop.set(true);
            writer.get(30, TimeUnit.SECONDS);
            assertTrue(unexpected.isEmpty(), () -> unexpected.peek().toString());
            assertTrue(onWriterThread.get() >= 20,
                    "functions run on the writer's thread (the leader): " + onWriterThread.get());
            int n = writes.get();
            for (int i = Math.max(0, n - 1000); i < n; i++) {
                assertArrayEquals(b("value " + i), db.get(b("w" + (i % 1000))), "write " + i);
            }
            assertNull(db.get(b("x")));
            assertNull(db.get(b("c")));
            db.put(b("after"), b("fine"));
            assertArrayEquals(b("fine"), db.get(b("after")));
        } finally {
            pool.shutdownNow();
        }
        try (RemixDB db = RemixDB.open(dir)) {
            assertNull(db.get(b("x")));
            assertArrayEquals(b("fine"), db.get(b("after")));
        }
    }

    /**
     * A function's write is refused before it waits for anything. It used to be refused only once it
     * held the write queue's lock, while the function runs under the memtable's insert lock; a
     * compaction that puts aborted partitions' versions back takes the queue's lock and then waits
     * for the insert lock, so the two waited for each other for good (seen once as a hang of
     * {@link #aFunctionRunOnAnotherWritersThreadCannotTakeItsRequest} on a loaded machine). Tiny
     * memtables, many partitions and a policy that aborts whatever it can make those put-backs
     * constant here.
     */
    @Test
    @Timeout(120)
    void aFunctionsRefusedWriteNeverWaitsForACompactionPuttingVersionsBack() throws Exception {
        Options options = Options.builder().memtableBytes(32 * 1024).tableBytes(8 * 1024).blockCacheBytes(1 << 20)
                .abortFraction(0.5).compactionPolicy(RemixDbPolicy.builder().maxTables(4).abortBelowFraction(1.0).build())
                .build();
        RemixDB db = RemixDB.open(dir, options);
        byte[] value = new byte[40];
        for (int i = 0; i < 20_000; i++) {
            db.put(b(String.format("k%05d", (i * 7919) % 4000)), value);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong refused = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // Most writes in a few partitions: the others get little new data and are aborted, their
        // versions put back into the active memtable.
        Thread writer = Thread.ofPlatform().daemon().start(() -> {
            Random rnd = new Random(1);
            try {
                while (!stop.get()) {
                    int k = rnd.nextInt(10) < 8 ? rnd.nextInt(200) : rnd.nextInt(4000);
                    db.put(b(String.format("k%05d", k)), value);
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        Thread computer = Thread.ofPlatform().daemon().start(() -> {
            Random rnd = new Random(2);
            try {
                while (!stop.get()) {
                    db.compute(b(String.format("k%05d", rnd.nextInt(4000))), old -> {
                        // A while under the insert lock first: a put-back that begins meanwhile takes
                        // the queue's lock and waits, which is when the write below used to wait for good.
                        java.util.concurrent.locks.LockSupport.parkNanos(200_000);
                        try {
                            db.put(b("from a function"), b("never"));
                            failure.compareAndSet(null, new AssertionError("a function's write was not refused"));
                        } catch (IllegalStateException e) {
                            refused.incrementAndGet();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        return old;
                    });
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
        // Five seconds: before the fix, the deadlock came after 80 to 300 refused writes (4 runs of 4).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long aborts = 0;
        while (failure.get() == null && System.nanoTime() < deadline) {
            Thread.sleep(100);
            long[] deadlocked = ManagementFactory.getThreadMXBean().findDeadlockedThreads();
            if (deadlocked != null) {
                // The store cannot be closed (close would wait for the deadlocked compactor): left to the JVM.
                stop.set(true);
                fail("deadlock after " + refused.get() + " refused writes: " + Arrays.toString(
                        ManagementFactory.getThreadMXBean().getThreadInfo(deadlocked, true, true)));
            }
            aborts = db.stats().compactions().abort();
        }
        stop.set(true);
        writer.join(30_000);
        computer.join(30_000);
        try {
            assertNull(failure.get());
            assertTrue(aborts >= 20 && refused.get() >= 50, "aborted partitions put back " + aborts
                    + " times while " + refused.get() + " writes were refused: " + db.stats().compactions());
            assertNull(db.get(b("from a function")));
        } finally {
            db.close();
        }
    }

    @Test
    void aWriteKeepsNoReferenceToTheCallersArrays() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            byte[] key = b("big");
            byte[] value = new byte[1 << 20];
            value[12345] = 7;
            WeakReference<byte[]> valueRef = new WeakReference<>(value);
            WeakReference<byte[]> keyRef = new WeakReference<>(key);
            db.put(key, value);
            key = null;
            value = null;
            for (int i = 0; i < 100 && (valueRef.get() != null || keyRef.get() != null); i++) {
                System.gc();
                Thread.sleep(10);
            }
            // assertTrue, not assertNull: a failure must not print a megabyte of zeros.
            assertTrue(valueRef.get() == null, "the value array is still referenced after put returned");
            assertTrue(keyRef.get() == null, "the key array is still referenced after put returned");
            assertEquals(7, db.get(b("big"))[12345]);
        }
    }

    @Test
    void virtualThreadsWriteAndDelete() throws Exception {
        try (RemixDB db = RemixDB.open(dir, Options.builder().memtableBytes(256 << 10).build());
             ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> tasks = new ArrayList<>();
            for (int t = 0; t < 2000; t++) {
                int id = t;
                tasks.add(virtual.submit(() -> {
                    db.put(b("v" + id), b("value " + id));
                    if (id % 3 == 0) {
                        db.delete(b("v" + id));
                    }
                    return null;
                }));
            }
            for (Future<?> f : tasks) {
                f.get(60, TimeUnit.SECONDS);
            }
            for (int t = 0; t < 2000; t++) {
                byte[] got = db.get(b("v" + t));
                if (t % 3 == 0) {
                    assertNull(got, "v" + t);
                } else {
                    assertArrayEquals(b("value " + t), got, "v" + t);
                }
            }
        }
    }
}
