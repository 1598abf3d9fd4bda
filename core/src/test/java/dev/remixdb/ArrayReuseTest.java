package dev.remixdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code put} and {@code delete} read the caller's arrays during the call and keep nothing: a caller
 * may reuse them at once, and one that changes them from another thread during the call changes
 * only what that write stores (the same in the memtable and in the WAL), never the index or other
 * keys.
 */
class ArrayReuseTest {
    @TempDir
    Path dir;

    private static NavigableMap<byte[], byte[]> contents(RemixDB db) {
        NavigableMap<byte[], byte[]> seen = new TreeMap<>(Arrays::compareUnsigned);
        try (Cursor c = db.cursor()) {
            byte[] previous = null;
            for (c.seekToFirst(); c.isValid(); c.next()) {
                byte[] k = c.key();
                assertTrue(previous == null || Arrays.compareUnsigned(previous, k) < 0, "the cursor goes up");
                seen.put(k, c.value());
                previous = k;
            }
        }
        return seen;
    }

    @Test
    void aCallerMayReuseItsArraysOnceAWriteReturns() throws Exception {
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        byte[] key = new byte[12];
        byte[] value = new byte[40];
        Random r = new Random(5);
        try (RemixDB db = RemixDB.open(dir, Options.builder().memtableBytes(256 << 10).build())) {
            for (int i = 0; i < 20_000; i++) {
                r.nextBytes(key);
                key[0] = (byte) (i % 5);
                r.nextBytes(value);
                if (i % 7 == 6) {
                    db.delete(key);
                    model.remove(key);
                } else {
                    db.put(key, value);
                    model.put(key.clone(), value.clone());
                }
            }
            assertEquals(model.keySet().size(), contents(db).size());
        }
        try (RemixDB db = RemixDB.open(dir, Options.builder().memtableBytes(256 << 10).build())) {
            NavigableMap<byte[], byte[]> seen = contents(db);
            assertEquals(model.size(), seen.size());
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                assertArrayEquals(e.getValue(), seen.get(e.getKey()));
            }
        }
    }

    @Test
    void arraysChangedDuringWritesLeaveTheStoreOrderedAndTheLogEqualToMemory() throws Exception {
        byte[] key = new byte[8];
        byte[] value = new byte[64];
        AtomicBoolean stop = new AtomicBoolean();
        NavigableMap<byte[], byte[]> before;
        // Large enough that everything stays in the memtable: after reopen it comes from the WAL.
        Options options = Options.builder().memtableBytes(64 << 20).build();
        try (RemixDB db = RemixDB.open(dir, options)) {
            CountDownLatch running = new CountDownLatch(1);
            Thread mutator = Thread.ofPlatform().start(() -> {
                Random r = new Random(9);
                while (!stop.get()) {
                    key[r.nextInt(key.length)] = (byte) r.nextInt(4);
                    value[r.nextInt(value.length)] = (byte) r.nextInt();
                    running.countDown();
                }
            });
            try {
                running.await();
                // On 2 busy cores the mutator may get little time beside the writes: write on (in
                // rounds, within what the memtable holds) until its changes made many keys.
                int puts = 0;
                do {
                    for (int i = 0; i < 50_000; i++, puts++) {
                        db.put(key, value);
                        if (i % 10 == 0) {
                            db.delete(key);
                        }
                    }
                } while (puts < 250_000 && contents(db).size() <= 10);
            } finally {
                stop.set(true);
                mutator.join();
            }
            before = contents(db);
            assertTrue(before.size() > 10, "the mutations made many keys: " + before.size());
            for (Map.Entry<byte[], byte[]> e : before.entrySet()) {
                assertArrayEquals(e.getValue(), db.get(e.getKey()), "a point read finds what the cursor shows");
            }
            assertEquals(0, db.stats().tables(), "still all in memory");
        }
        try (RemixDB db = RemixDB.open(dir, options)) {
            NavigableMap<byte[], byte[]> after = contents(db);
            assertEquals(before.size(), after.size(), "the WAL replays what the memtable held");
            for (Map.Entry<byte[], byte[]> e : before.entrySet()) {
                assertArrayEquals(e.getValue(), after.get(e.getKey()));
            }
        }
    }
}
