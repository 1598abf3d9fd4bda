package dev.remixdb;

import dev.remixdb.compaction.RemixDbPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Options#frozenInCacheRoom()}: with compaction held at a gate, a writer stops once as many
 * memtables wait frozen as the limit allows. That is {@code maxFrozenMemtables} without the option
 * or once the block cache has taken its budget, as many as the cache's room holds before that, and
 * 8 at most. Every write is there afterwards, and after a reopen.
 */
class FrozenInCacheRoomTest {
    /** A memtable reserves memory in 2 MiB chunks: here one or two such chunks (one may be prepared ahead) and its point index. */
    private static final long MEMTABLE = 1 << 20;
    /** Room for more than six such memtables: the limit of 8 applies. */
    private static final long LARGE_CACHE = 32L << 20;
    /** Room for two or three, until reads have made the cache take its budget. */
    private static final long SMALL_CACHE = 8L << 20;
    /** Puts of one memtable's worth (100-byte values, 11-byte keys). */
    private static final int PER_MEMTABLE = (int) (MEMTABLE / 111);

    @TempDir
    Path dir;

    private static byte[] key(int i) {
        return String.format("key-%07d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static Options options(long cache, boolean inCacheRoom, BackPressureTest.SlowPolicy policy) {
        return Options.builder().memtableBytes(MEMTABLE).tableBytes(MEMTABLE).blockCacheBytes(cache)
                .maxFrozenMemtables(2).frozenInCacheRoom(inCacheRoom).compactionPolicy(policy).build();
    }

    private static BackPressureTest.SlowPolicy policy() {
        return new BackPressureTest.SlowPolicy(RemixDbPolicy.defaults(), 0, new CountDownLatch(0));
    }

    /**
     * Writes keys {@code from} to {@code to} on another thread while compaction waits at a closed
     * gate; returns the frozen memtables counted once the writer stands still, then opens the gate
     * and waits for the writer to finish.
     */
    private static int frozenWhenTheWriterStops(RemixDB db, BackPressureTest.SlowPolicy policy, int from, int to)
            throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        policy.gate(gate);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger written = new AtomicInteger(from);
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (int i = from; i < to; i++) {
                    db.put(key(i), BackPressureTest.value(i));
                    written.incrementAndGet();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        try {
            long deadline = System.nanoTime() + 120_000_000_000L;
            for (;;) {
                assertTrue(writer.isAlive(), "the writer finished without stopping: raise the key count");
                assertTrue(System.nanoTime() < deadline, "the writer never stopped");
                if (stalled(writer)) {
                    int before = written.get();
                    int frozen = db.stats().frozenMemtables();
                    Thread.sleep(100);
                    if (stalled(writer) && written.get() == before && db.stats().frozenMemtables() == frozen) {
                        return frozen;
                    }
                }
                Thread.sleep(5);
            }
        } finally {
            gate.countDown();
            writer.join(120_000);
            assertNull(failure.get());
        }
    }

    /** Keys 0 to {@code to - 1} with their values and nothing else, by one scan; a sample by get. */
    /** Whether the writer waits for room to freeze a memtable (not for the WAL or for memory). */
    private static boolean stalled(Thread writer) {
        if (writer.getState() != Thread.State.WAITING) {
            return false;
        }
        for (StackTraceElement e : writer.getStackTrace()) {
            if (e.getMethodName().equals("awaitRoomToFreeze")) {
                return true;
            }
        }
        return false;
    }

    private static void assertAll(RemixDB db, int to) {
        try (Cursor c = db.cursor()) {
            c.seekToFirst();
            for (int i = 0; i < to; i++) {
                assertTrue(c.isValid(), "the scan ends before key " + i);
                assertArrayEquals(key(i), c.key());
                assertArrayEquals(BackPressureTest.value(i), c.value(), "key " + i);
                c.next();
            }
            assertTrue(!c.isValid(), "the scan goes past key " + (to - 1));
        }
        for (int i = 0; i < to; i += 97) {
            assertArrayEquals(BackPressureTest.value(i), db.get(key(i)), "key " + i);
        }
    }

    @Test
    @Timeout(300)
    void anEmptyCacheLetsUpToEightWait() throws Exception {
        BackPressureTest.SlowPolicy policy = policy();
        int n = 12 * PER_MEMTABLE;
        try (RemixDB db = RemixDB.open(dir, options(LARGE_CACHE, true, policy))) {
            assertEquals(8, frozenWhenTheWriterStops(db, policy, 0, n), "2 + the cache's room, 8 at most");
            assertAll(db, n);
        }
        try (RemixDB db = RemixDB.open(dir, options(LARGE_CACHE, true, policy()))) {
            assertAll(db, n);
        }
    }

    @Test
    @Timeout(300)
    void withoutTheOptionTheLimitStays() throws Exception {
        BackPressureTest.SlowPolicy policy = policy();
        int n = 6 * PER_MEMTABLE;
        try (RemixDB db = RemixDB.open(dir, options(LARGE_CACHE, false, policy))) {
            assertEquals(2, frozenWhenTheWriterStops(db, policy, 0, n));
            assertAll(db, n);
        }
    }

    @Test
    @Timeout(300)
    void theRoomShrinksAsTheCacheGrows() throws Exception {
        BackPressureTest.SlowPolicy policy = policy();
        int n = 6 * PER_MEMTABLE;
        try (RemixDB db = RemixDB.open(dir, options(SMALL_CACHE, true, policy))) {
            int empty = frozenWhenTheWriterStops(db, policy, 0, n);
            assertTrue(empty > 2 && empty < 8, "an empty 8 MiB cache holds a few 2 MiB memtables: " + empty);
            // More data than the cache holds, then read: the cache takes its whole budget.
            int filled = n + 10 * PER_MEMTABLE;
            for (int i = n; i < filled; i++) {
                db.put(key(i), BackPressureTest.value(i));
            }
            db.compactMemtable();
            assertAll(db, filled);
            assertTrue(db.stats().blockCacheBytes() >= SMALL_CACHE, db.stats().toString());
            assertEquals(2, frozenWhenTheWriterStops(db, policy, filled, filled + n), "no room left: maxFrozenMemtables");
            assertAll(db, filled + n);
        }
        try (RemixDB db = RemixDB.open(dir, options(SMALL_CACHE, true, policy()))) {
            assertAll(db, 2 * n + 10 * PER_MEMTABLE);
        }
    }
}
