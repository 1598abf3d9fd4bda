package dev.remixdb;

import dev.remixdb.compaction.RemixDbPolicy;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several full memtables waiting for compaction at once, with compactions that keep small
 * partitions' data in memory (aborts): the versions kept back must never hide newer ones, neither
 * while the store runs (a newer frozen memtable may hold a newer version of a kept key) nor after a
 * reopen (a kept version logged again must not come back over a newer one already in tables).
 * Random puts and deletes over 1,500 keys against a model, read by get and by scans while
 * the store runs, then after a reopen.
 */
class FrozenMemtablesTest {
    private static final int KEYS = 1500;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void keptVersionsNeverHideNewerOnes(int maxFrozen) throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        String where = "seed " + seed + ", " + maxFrozen + " frozen";
        Options options = Options.builder().memtableBytes(16 * 1024).tableBytes(16 * 1024).blockCacheBytes(256 * 1024)
                .maxFrozenMemtables(maxFrozen).abortFraction(0.4)
                // A compaction slower than the writer, so that newer memtables wait frozen while an
                // older one is compacted and its kept versions go back.
                .compactionPolicy(new BackPressureTest.SlowPolicy(
                        RemixDbPolicy.builder().maxTables(4).abortBelowFraction(0.6).build(), 2,
                        new java.util.concurrent.CountDownLatch(0)))
                .build();
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        try (RemixDB db = RemixDB.open(dir, options)) {
            for (int i = 0; i < 12_000; i++) {
                byte[] key = String.format("key-%04d", rnd.nextInt(KEYS)).getBytes(StandardCharsets.UTF_8);
                if (rnd.nextInt(6) == 0) {
                    db.delete(key);
                    model.remove(key);
                } else {
                    byte[] value = (i + "-" + "v".repeat(rnd.nextInt(80))).getBytes(StandardCharsets.UTF_8);
                    db.put(key, value);
                    model.put(key, value);
                }
                if (i % 1500 == 1499) {
                    check(db, model, where + " at op " + i);
                }
            }
            check(db, model, where + " at the end");
        }
        try (RemixDB db = RemixDB.open(dir, options)) {
            check(db, model, where + " after reopen");
            db.compactMemtable();
            check(db, model, where + " after reopen and compaction");
        }
    }

    private static void check(RemixDB db, TreeMap<byte[], byte[]> model, String where) {
        for (int k = 0; k < KEYS; k++) {
            byte[] key = String.format("key-%04d", k).getBytes(StandardCharsets.UTF_8);
            byte[] expected = model.get(key);
            byte[] actual = db.get(key);
            assertArrayEquals(expected, actual, where + ": get " + new String(key, StandardCharsets.UTF_8));
        }
        try (Cursor c = db.cursor()) {
            c.seekToFirst();
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                assertTrue(c.isValid(), where + ": scan ends early");
                assertArrayEquals(e.getKey(), c.key(), where + ": scan key");
                assertArrayEquals(e.getValue(), c.value(), where + ": scan value");
                c.next();
            }
            assertFalse(c.isValid(), where + ": scan goes past the model");
        }
        assertEquals(0, db.stats().openCursors());
    }
}
