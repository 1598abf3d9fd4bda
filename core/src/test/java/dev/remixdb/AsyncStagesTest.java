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
        String why = dev.remixdb.io.IoUringBlockReader.unavailableReason();
        assumeTrue(why == null, () -> "io_uring not available here: " + why);
        Options build = Options.builder().memtableBytes(256 * 1024).tableBytes(64 * 1024).build();
        try (RemixDB db = RemixDB.open(dir, build)) {
            for (int i = 0; i < KEYS; i++) {
                db.put(key(i), value(i));
            }
            db.compactMemtable();
        }
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
