package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A user's stages of {@link RemixDB#getAsync} that run on the store's io_uring thread and call back
 * into the store: blocking reads, a nested {@code getAsync(..).join()} and a scan (with read-ahead,
 * which batches its reads through the ring) complete instead of waiting for their own thread, and
 * {@code close()} there is refused, leaving the store whole. Also: the lookup's key is copied.
 */
// A stage that waits for its own thread hangs the test, and the store's close() after it: the
// timeout turns that into a failure (on a thread of its own, since the test's thread never returns).
@Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AsyncStagesTest {
    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static final int KEYS = 20_000;

    /** A store whose tables hold every key and whose cache holds four blocks: lookups read the disk. */
    private RemixDB open() throws Exception {
        return open(false);
    }

    private RemixDB open(boolean jmx) throws Exception {
        fill();
        return reopen(jmx);
    }

    private void fill() throws Exception {
        String why = dev.remixdb.io.IoUringBlockReader.unavailableReason();
        assumeTrue(why == null, () -> "io_uring not available here: " + why);
        Options build = Options.builder().memtableBytes(256 * 1024).tableBytes(64 * 1024).build();
        try (RemixDB db = RemixDB.open(dir, build)) {
            for (int i = 0; i < KEYS; i++) {
                db.put(key(i), value(i));
            }
            db.compactMemtable();
        }
    }

    private RemixDB reopen(boolean jmx) throws Exception {
        return RemixDB.open(dir, Options.builder().blockCacheBytes(16 * 1024).ioEngine(IoEngine.IO_URING).jmx(jmx)
                .build());
    }

    /**
     * Runs {@code stage} as a dependent stage of lookups until one ran on the io_uring thread, and
     * returns what that one gave; fails when the stage does not finish within a minute (the hang).
     */
    private static <T> T onRingThread(RemixDB db, Function<byte[], T> stage) throws Exception {
        for (int attempt = 0; attempt < 200; attempt++) {
            int i = (attempt * 7919) % KEYS;
            boolean[] onRing = new boolean[1];
            CompletableFuture<T> f = db.getAsync(key(i)).thenApply(v -> {
                onRing[0] = Thread.currentThread().getName().contains("io_uring");
                return stage.apply(v);
            });
            T result = f.get(60, TimeUnit.SECONDS);
            if (onRing[0]) {
                return result;
            }
        }
        throw new AssertionError("no lookup completed on the io_uring thread in 200 tries");
    }

    @Test
    void blockingReadsInAStageOnTheIoThreadComplete() throws Exception {
        try (RemixDB db = open()) {
            List<byte[]> got = onRingThread(db, v -> db.multiGet(List.of(key(11), key(17_000), key(KEYS + 5))));
            assertArrayEquals(value(11), got.get(0));
            assertArrayEquals(value(17_000), got.get(1));
            assertEquals(null, got.get(2));
            byte[] nested = onRingThread(db, v -> db.getAsync(key(12_345)).join());
            assertArrayEquals(value(12_345), nested);
            assertArrayEquals(value(3), onRingThread(db, v -> db.get(key(3))));
            // The store still serves other threads afterwards.
            assertArrayEquals(value(99), db.getAsync(key(99)).get(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void aScanWithReadAheadInAStageOnTheIoThreadCompletes() throws Exception {
        String before = System.getProperty("remixdb.scanReadAhead");
        System.setProperty("remixdb.scanReadAhead", "always");
        try (RemixDB db = open()) {
            Integer n = onRingThread(db, v -> {
                AtomicInteger seen = new AtomicInteger();
                db.scan(key(5_000), null, 200, (k, val) -> seen.incrementAndGet() < 1_000_000);
                return seen.get();
            });
            assertEquals(200, n);
        } finally {
            if (before == null) {
                System.clearProperty("remixdb.scanReadAhead");
            } else {
                System.setProperty("remixdb.scanReadAhead", before);
            }
        }
    }

    @Test
    void closeInAStageOnTheIoThreadIsRefusedAndTheStoreStaysWhole() throws Exception {
        RemixDB db = open(true);
        javax.management.ObjectName bean = new javax.management.ObjectName("dev.remixdb:type=RemixDB,path="
                + javax.management.ObjectName.quote(dir.toAbsolutePath().toString()));
        javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
        assertTrue(server.isRegistered(bean), "registered at open: " + bean);
        IllegalStateException e = onRingThread(db, v -> {
            if (!Thread.currentThread().getName().contains("io_uring")) {
                // The lookup completed before the stage was attached, so it runs here, where a
                // close would succeed: only the I/O thread's attempt counts.
                return null;
            }
            try {
                db.close();
                return null;
            } catch (IllegalStateException refused) {
                return refused;
            } catch (java.io.IOException io) {
                throw new java.io.UncheckedIOException(io);
            }
        });
        assertTrue(e != null && e.getMessage().contains("I/O thread"), String.valueOf(e));
        assertTrue(server.isRegistered(bean), "the refused close left the MBean registered");
        List<CompletableFuture<byte[]>> more = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            more.add(db.getAsync(key(i * 37)));
        }
        for (int i = 0; i < 100; i++) {
            assertArrayEquals(value(i * 37), more.get(i).get(60, TimeUnit.SECONDS));
        }
        db.close();
        assertThrows(ClosedException.class, () -> db.get(key(1)));
        assertFalse(server.isRegistered(bean), "the close unregistered the MBean");
    }

    /**
     * A value larger than a cache slot (4 KiB) is in a block the batch cannot cache: it was read
     * on the caller's thread (or, in a batch with other misses, on the io_uring thread, stalling every
     * other lookup). It is read on a virtual thread of its own.
     */
    @Test
    void aValueLargerThanACacheSlotIsReadOffTheCallersAndTheIoThread() throws Exception {
        fill();
        byte[] big = new byte[20_000];
        java.util.Arrays.fill(big, (byte) 7);
        try (RemixDB db = reopen(false)) {
            db.put(key(KEYS), big);
            db.compactMemtable();
        }
        try (RemixDB db = reopen(false)) {
            // On the caller's thread the read would be done before getAsync returns. Off it, the
            // lookup's thread may still finish first now and then (a stage attached after that runs
            // on the caller): so many lookups, of which most must be under way at their return,
            // and none may complete on the io_uring thread.
            int doneAtReturn = 0;
            for (int i = 0; i < 20; i++) {
                int other = 15_000 + i;
                // Every other one in a batch with a key whose block the batch reads through the ring.
                CompletableFuture<List<byte[]>> f = i % 2 == 0 ? db.multiGetAsync(List.of(key(KEYS)))
                        : db.multiGetAsync(List.of(key(KEYS), key(other)));
                if (f.isDone()) {
                    doneAtReturn++;
                }
                Thread[] ranOn = new Thread[1];
                List<byte[]> got = f.thenApply(v -> {
                    ranOn[0] = Thread.currentThread();
                    return v;
                }).get(60, TimeUnit.SECONDS);
                assertArrayEquals(big, got.get(0));
                if (got.size() > 1) {
                    assertArrayEquals(value(other), got.get(1));
                }
                assertFalse(ranOn[0].getName().contains("io_uring"), "completed on " + ranOn[0]);
            }
            assertTrue(doneAtReturn < 10, doneAtReturn + " of 20 lookups were done when they returned");
        }
    }

    /**
     * Damage met by a lookup made in a stage on the io_uring thread is the public
     * {@link CorruptionException}, as everywhere else (it was the internal REMIX one).
     */
    @Test
    void damageMetInAStageOnTheIoThreadIsACorruptionException() throws Exception {
        fill();
        List<Path> tables;
        try (var files = java.nio.file.Files.list(dir)) {
            tables = files.filter(p -> p.toString().endsWith(".tbl")).sorted().toList();
        }
        Path victim = tables.get(tables.size() / 2);
        byte[] bytes = java.nio.file.Files.readAllBytes(victim);
        bytes[200] ^= 0x5a;  // in the table's first data block
        java.nio.file.Files.write(victim, bytes);
        try (RemixDB db = reopen(false)) {
            int bad = -1;
            for (int i = 0; i < KEYS && bad < 0; i++) {
                try {
                    db.get(key(i));
                } catch (CorruptionException e) {
                    bad = i;
                }
            }
            assertTrue(bad >= 0, "no key reads the damaged block");
            byte[] badKey = key(bad);
            Function<byte[], Throwable> viaMultiGet = v -> {
                try {
                    db.multiGet(List.of(badKey));
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            };
            Function<byte[], Throwable> viaGetAsync = v -> db.getAsync(badKey).handle((x, t) ->
                    t instanceof java.util.concurrent.CompletionException c ? c.getCause() : t).join();
            for (Function<byte[], Throwable> lookup : List.of(viaMultiGet, viaGetAsync)) {
                Throwable seen = null;
                for (int n = 0; n < 200 && seen == null; n++) {
                    int good = (bad + 1000 + 37 * n) % KEYS;  // another block: the outer lookup succeeds
                    boolean[] onRing = new boolean[1];
                    Throwable t = db.getAsync(key(good)).thenApply(v -> {
                        onRing[0] = Thread.currentThread().getName().contains("io_uring");
                        return lookup.apply(v);
                    }).get(60, TimeUnit.SECONDS);
                    if (onRing[0]) {
                        seen = t;
                        assertTrue(t instanceof CorruptionException, "on the io_uring thread: " + t);
                    }
                }
                assertTrue(seen != null, "no lookup completed on the io_uring thread");
            }
        }
    }

    @Test
    void theKeyOfALookupIsCopiedAtTheCall() throws Exception {
        try (RemixDB db = open()) {
            for (int t = 0; t < 200; t++) {
                byte[] k = key(t);
                CompletableFuture<byte[]> one = db.getAsync(k);
                byte[] other = key(t + 1000);
                System.arraycopy(other, 0, k, 0, k.length);  // the caller reuses its array at once
                List<byte[]> keys = new ArrayList<>(List.of(key(t + 2000)));
                CompletableFuture<List<byte[]>> many = db.multiGetAsync(keys);
                System.arraycopy(key(t + 3000), 0, keys.get(0), 0, k.length);
                assertArrayEquals(value(t), one.get(60, TimeUnit.SECONDS), "getAsync of key " + t);
                assertArrayEquals(value(t + 2000), many.get(60, TimeUnit.SECONDS).getFirst(), "multiGetAsync");
            }
        }
    }
}
