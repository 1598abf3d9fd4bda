package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Read-modify-write: {@code compute}, {@code merge}, {@code putIfAbsent}, {@code compareAndSet}. */
class ComputeTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] plus(byte[] a, byte[] b) {
        return ByteBuffer.allocate(8).putLong(ByteBuffer.wrap(a).getLong() + ByteBuffer.wrap(b).getLong()).array();
    }

    private static byte[] num(long n) {
        return ByteBuffer.allocate(8).putLong(n).array();
    }

    /** Concurrent merges and plain puts on other keys: not one increment lost, and each function ran once. */
    @Test
    void concurrentMergesLoseNoIncrement() throws Exception {
        Options small = Options.builder().memtableBytes(16 * 1024).tableBytes(8 * 1024).build();
        int threads = 4;
        int each = 2000;
        AtomicInteger calls = new AtomicInteger();
        try (RemixDB db = RemixDB.open(dir, small)) {
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < each; i++) {
                            db.merge(b("counter"), num(1), (a, x) -> {
                                calls.incrementAndGet();
                                return plus(a, x);
                            });
                            db.put(b("other" + id + ":" + i), b("filler-" + i));
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }));
            }
            for (Thread t : ts) {
                t.join();
            }
            assertArrayEquals(num((long) threads * each), db.get(b("counter")));
            assertEquals(threads * each - 1, calls.get(), "the first merge finds no value and calls nothing");
        }
        try (RemixDB db = RemixDB.open(dir, small)) {
            assertArrayEquals(num((long) threads * each), db.get(b("counter")), "after reopen");
        }
    }

    /**
     * Computes on each thread's own keys and on one shared key, from many threads at once: every
     * function runs exactly once, no update is lost on either, and they share group commits (the
     * store holds every result after a reopen).
     */
    @Test
    void concurrentComputesOnDistinctAndSharedKeys() throws Exception {
        Options small = Options.builder().memtableBytes(32 * 1024).tableBytes(16 * 1024).build();
        int threads = 6;
        int each = 1500;
        AtomicInteger[] ownCalls = new AtomicInteger[threads];
        AtomicInteger sharedCalls = new AtomicInteger();
        try (RemixDB db = RemixDB.open(dir, small)) {
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                ownCalls[t] = new AtomicInteger();
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < each; i++) {
                            db.compute(b("own-" + id + "-" + (i % 10)), old -> {
                                ownCalls[id].incrementAndGet();
                                return plus(old == null ? num(0) : old, num(1));
                            });
                            db.compute(b("shared"), old -> {
                                sharedCalls.incrementAndGet();
                                return plus(old == null ? num(0) : old, num(1));
                            });
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }));
            }
            for (Thread t : ts) {
                t.join();
            }
            for (int t = 0; t < threads; t++) {
                assertEquals(each, ownCalls[t].get(), "each function of thread " + t + " ran once");
                for (int k = 0; k < 10; k++) {
                    assertArrayEquals(num(each / 10), db.get(b("own-" + t + "-" + k)), "thread " + t + " key " + k);
                }
            }
            assertEquals(threads * each, sharedCalls.get(), "each shared function ran once");
            assertArrayEquals(num((long) threads * each), db.get(b("shared")));
        }
        try (RemixDB db = RemixDB.open(dir, small)) {
            assertArrayEquals(num((long) threads * each), db.get(b("shared")), "after reopen");
        }
    }

    /**
     * A compute reads its key before it queues. A write queued ahead of it but applied after that
     * read (here: while a blocked function holds the head of the queue) must reach the function:
     * a put, a delete, a range delete, and a compute of the same key, each with a memtable switch
     * or not in between.
     */
    @Test
    void aWriteAppliedAfterTheReadAheadReachesTheFunction() throws Exception {
        for (String ahead : List.of("put", "delete", "deleteRange", "compute")) {
            for (boolean freeze : new boolean[] {false, true}) {
                Path d = dir.resolve(ahead + "-" + freeze);
                try (RemixDB db = RemixDB.open(d)) {
                    db.put(b("k"), b("old"));
                    if (freeze) {
                        db.compactMemtable();  // the read ahead then comes from a table
                    }
                    CountDownLatch release = new CountDownLatch(1);
                    Thread head = holdQueue(db, release);
                    Thread first = Thread.ofPlatform().start(() -> call(() -> {
                        switch (ahead) {
                            case "put" -> db.put(b("k"), b("new"));
                            case "delete" -> db.delete(b("k"));
                            case "deleteRange" -> db.deleteRange(b("j"), b("l"));
                            default -> db.compute(b("k"), old -> b("new"));
                        }
                        return null;
                    }));
                    awaitParked(first);
                    byte[][] seen = new byte[1][];
                    AtomicInteger calls = new AtomicInteger();
                    Thread second = Thread.ofPlatform().start(() -> call(() -> db.compute(b("k"), old -> {
                        calls.incrementAndGet();
                        seen[0] = old;
                        return old == null ? b("fresh") : plus8(old);
                    })));
                    awaitParked(second);  // it has read "old" ahead and waits in the queue
                    release.countDown();
                    head.join();
                    first.join();
                    second.join();
                    String what = ahead + (freeze ? " over a table" : "");
                    assertEquals(1, calls.get(), what);
                    byte[] expected = ahead.equals("put") || ahead.equals("compute") ? b("new") : null;
                    assertArrayEquals(expected, seen[0], what + ": the function saw the write queued before it");
                    assertArrayEquals(expected == null ? b("fresh") : b("new+"), db.get(b("k")), what);
                }
            }
        }
    }

    /**
     * As above, with the memtable that took the write queued ahead compacted into a table before
     * the compute's turn (a write that skipped the WAL makes the compute's turn do that first): the
     * memtables then hold no newer version, and the read ahead must still not be used.
     */
    @Test
    void aWriteCompactedAwayAfterTheReadAheadReachesTheFunction() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(b("k"), b("old"));
            CountDownLatch release = new CountDownLatch(1);
            Thread head = holdQueue(db, release);
            Thread put = Thread.ofPlatform().start(() -> call(() -> {
                db.put(b("k"), b("new"));
                return null;
            }));
            awaitParked(put);
            Thread unlogged = Thread.ofPlatform().start(() -> call(() -> {
                db.writeUnlogged(new WriteBatch().put(b("u"), b("u")));
                return null;
            }));
            awaitParked(unlogged);
            byte[][] seen = new byte[1][];
            Thread second = Thread.ofPlatform().start(() -> call(() -> db.compute(b("k"), old -> {
                seen[0] = old;
                return plus8(old);
            })));
            awaitParked(second);  // it has read "old" ahead
            long compactions = db.stats().compactions().minor();
            release.countDown();
            for (Thread t : List.of(head, put, unlogged, second)) {
                t.join();
            }
            assertTrue(db.stats().compactions().minor() > compactions, "the put's memtable went to a table first");
            assertArrayEquals(b("new"), seen[0]);
            assertArrayEquals(b("new+"), db.get(b("k")));
        }
    }

    private static byte[] plus8(byte[] old) {
        return (new String(old, StandardCharsets.UTF_8) + "+").getBytes(StandardCharsets.UTF_8);
    }

    @FunctionalInterface
    private interface Call {
        Object run() throws Exception;
    }

    private static void call(Call c) {
        try {
            c.run();
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * Starts a compute whose function waits for {@code release}, and returns once it runs: until
     * then it holds the head of the write queue, and writes started meanwhile queue behind it.
     */
    private static Thread holdQueue(RemixDB db, CountDownLatch release) {
        CountDownLatch running = new CountDownLatch(1);
        Thread head = Thread.ofPlatform().start(() -> call(() -> db.compute(b("head"), old -> {
            running.countDown();
            await(release);
            return b("h");
        })));
        await(running);
        return head;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    /** Waits until {@code t} waits for its turn in the write queue. */
    private static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (t.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(Thread.State.WAITING, t.getState(), "the writer never queued");
    }

    @Test
    void computeSetsDeletesAndKeeps() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            assertArrayEquals(b("1"), db.compute(b("k"), old -> old == null ? b("1") : null));
            assertNull(db.compute(b("k"), old -> null), "null deletes");
            assertNull(db.get(b("k")));
            assertNull(db.compute(b("absent"), old -> null), "null on an absent key changes nothing");
            long before = db.stats().userBytesWritten();
            db.put(b("same"), b("v"));
            long afterPut = db.stats().userBytesWritten();
            assertTrue(afterPut > before);
            db.compute(b("same"), old -> old);
            assertEquals(afterPut, db.stats().userBytesWritten(), "returning the given array writes nothing");
        }
    }

    @Test
    void putIfAbsentAndCompareAndSet() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            assertNull(db.putIfAbsent(b("k"), b("first")));
            assertArrayEquals(b("first"), db.putIfAbsent(b("k"), b("second")));
            assertArrayEquals(b("first"), db.get(b("k")));
            assertFalse(db.compareAndSet(b("k"), b("wrong"), b("x")));
            assertTrue(db.compareAndSet(b("k"), b("first"), b("third")));
            assertArrayEquals(b("third"), db.get(b("k")));
            assertTrue(db.compareAndSet(b("k"), b("third"), null), "null update deletes");
            assertNull(db.get(b("k")));
            assertFalse(db.compareAndSet(b("k"), b("third"), b("x")));
            assertTrue(db.compareAndSet(b("k"), null, b("new")), "null expected means absent");
            assertArrayEquals(b("new"), db.get(b("k")));
        }
    }

    @Test
    void aFailingFunctionChangesNothingAndOthersGoOn() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(b("k"), b("v"));
            assertThrows(ArithmeticException.class, () -> db.compute(b("k"), old -> {
                throw new ArithmeticException("boom");
            }));
            assertArrayEquals(b("v"), db.get(b("k")));
            IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                    () -> db.compute(b("k"), old -> new byte[Options.MAX_VALUE_BYTES + 1]));
            assertTrue(big.getMessage().contains("value"), big.getMessage());
            assertArrayEquals(b("v"), db.get(b("k")));
            db.put(b("k2"), b("still writable"));
            assertArrayEquals(b("still writable"), db.get(b("k2")));
        }
    }

    @Test
    void aFunctionMayReadButNotWriteTheStore() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(b("a"), b("from a"));
            assertArrayEquals(b("from a"), db.compute(b("b"), old -> db.get(b("a"))));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> db.compute(b("c"), old -> {
                try {
                    db.put(b("d"), b("x"));
                } catch (java.io.IOException io) {
                    throw new RuntimeException(io);
                }
                return b("c");
            }));
            assertTrue(e.getMessage().contains("must not write"), e.getMessage());
            assertNull(db.get(b("c")));
            assertNull(db.get(b("d")));
            db.put(b("e"), b("fine"));
        }
    }

    /**
     * A sync() from inside a function is refused, as a write is, before it takes the write queue's
     * lock: a compaction putting aborted versions back holds that lock while it waits for the insert
     * lock the function's thread holds, and the two deadlocked (found by a review, about 5 s of
     * constant put-backs).
     */
    @Test
    void aFunctionCannotSyncTheStore() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(b("a"), b("1"));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> db.compute(b("a"), old -> {
                try {
                    db.sync();
                } catch (java.io.IOException io) {
                    throw new java.io.UncheckedIOException(io);
                }
                return b("2");
            }));
            assertTrue(e.getMessage().contains("must not sync"), e.getMessage());
            assertArrayEquals(b("1"), db.get(b("a")));
            db.put(b("b"), b("fine"));
            db.sync();
        }
    }

    /** A close() from inside a function used to wait forever for the write group the function runs in. */
    @Test
    void aFunctionCannotCloseTheStore() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(b("a"), b("1"));
            java.util.concurrent.CompletableFuture<Throwable> outcome = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    db.compute(b("a"), old -> {
                        try {
                            db.close();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        return b("2");
                    });
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Throwable t = outcome.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(t instanceof IllegalStateException && t.getMessage().contains("must not close"), String.valueOf(t));
            assertArrayEquals(b("1"), db.get(b("a")));
            db.put(b("b"), b("still open"));
            assertArrayEquals(b("still open"), db.get(b("b")));
        }
    }

    @Test
    void badArgumentsAndClosedStore() throws Exception {
        RemixDB db = RemixDB.open(dir);
        assertThrows(IllegalArgumentException.class, () -> db.compute(null, old -> old));
        assertThrows(IllegalArgumentException.class, () -> db.compute(b("k"), null));
        assertThrows(IllegalArgumentException.class, () -> db.merge(b("k"), null, (a, x) -> a));
        assertThrows(IllegalArgumentException.class, () -> db.putIfAbsent(b("k"), null));
        db.close();
        assertThrows(ClosedException.class, () -> db.compute(b("k"), old -> b("v")));
        assertThrows(ClosedException.class, () -> db.compareAndSet(b("k"), null, b("v")));
    }
}
