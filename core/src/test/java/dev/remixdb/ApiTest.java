package dev.remixdb;

import dev.remixdb.compaction.RemixDbPolicy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of the public API as a user meets it: argument checks that change nothing, the size
 * limits exactly at and one past the edge, empty keys and values, use after close, the directory
 * lock, {@link Stats}, {@link Options} validation and cursor snapshot isolation.
 */
class ApiTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Every key of the model through get and one full scan, and nothing else. */
    private static void assertContents(RemixDB db, NavigableMap<byte[], byte[]> model, String where) {
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getValue(), db.get(e.getKey()), where + ": get " + new String(e.getKey(), StandardCharsets.UTF_8));
        }
        try (Cursor c = db.cursor()) {
            assertScan(c, model, where);
        }
    }

    private static void assertScan(Cursor c, NavigableMap<byte[], byte[]> model, String where) {
        c.seekToFirst();
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertTrue(c.isValid(), where + ": scan ended before " + new String(e.getKey(), StandardCharsets.UTF_8));
            assertArrayEquals(e.getKey(), c.key(), where + ": scan key");
            assertArrayEquals(e.getValue(), c.value(), where + ": scan value of " + new String(e.getKey(), StandardCharsets.UTF_8));
            c.next();
        }
        assertFalse(c.isValid(), where + ": scan has keys the model does not");
    }

    private static NavigableMap<byte[], byte[]> newModel() {
        return new TreeMap<>(Arrays::compareUnsigned);
    }

    // ------------------------------------------------------------------ argument checks

    @Test
    void nullArgumentsAreRejectedAndChangeNothing() throws Exception {
        NavigableMap<byte[], byte[]> model = newModel();
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            db.put(b("a"), b("1"));
            model.put(b("a"), b("1"));
            long userBytes = db.stats().userBytesWritten();

            assertIae(() -> db.put(null, b("x")), "key");
            assertIae(() -> db.put(b("a"), null), "value");
            assertIae(() -> db.put(null, null), "key");
            assertIae(() -> db.delete(null), "key");
            assertIae(() -> db.get(null), "key");
            try (Cursor c = db.cursor()) {
                assertIae(() -> c.seek(null), "key");
                c.seekToFirst();
                assertArrayEquals(b("a"), c.key(), "the cursor still works after a rejected seek");
            }
            assertIae(() -> RemixDB.open(null), "dir");
            assertIae(() -> RemixDB.open(dir, null), "options");

            assertEquals(userBytes, db.stats().userBytesWritten(), "rejected writes counted no bytes");
            assertContents(db, model, "after rejected calls");
        }
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            assertContents(db, model, "after reopen: nothing rejected reached the WAL");
        }
    }

    private static void assertIae(Executable call, String mentions) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertNotNull(e.getMessage());
        assertTrue(e.getMessage().contains(mentions), "message names '" + mentions + "': " + e.getMessage());
    }

    @Test
    void keyLimitIsExactlyMaxKeyBytes() throws Exception {
        assertEquals(65536, Options.MAX_KEY_BYTES);
        byte[] biggest = new byte[Options.MAX_KEY_BYTES];
        new Random(1).nextBytes(biggest);
        byte[] tooBig = Arrays.copyOf(biggest, Options.MAX_KEY_BYTES + 1);
        NavigableMap<byte[], byte[]> model = newModel();
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            db.put(biggest, b("v"));
            model.put(biggest, b("v"));
            assertIae(() -> db.put(tooBig, b("v")), "65537");
            assertIae(() -> db.delete(tooBig), "65537");
            assertIae(() -> db.get(tooBig), "65537");
            assertContents(db, model, "memtable");
            db.compactMemtable();
            assertTrue(db.stats().tables() > 0, "the biggest key went into a table");
            assertContents(db, model, "after compaction");
        }
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            assertContents(db, model, "after reopen");
            db.delete(biggest);
            assertNull(db.get(biggest), "deleted");
        }
    }

    @Test
    void valueLimitIsExactlyMaxValueBytes() throws Exception {
        assertEquals(64 << 20, Options.MAX_VALUE_BYTES);
        byte[] biggest = new byte[Options.MAX_VALUE_BYTES];
        new Random(2).nextBytes(biggest);
        NavigableMap<byte[], byte[]> model = newModel();
        // Default memtable size: the value alone fills a tiny one, which is fine, but this is the common setup.
        Options options = Options.builder().blockCacheBytes(1 << 20).build();
        try (RemixDB db = RemixDB.open(dir, options)) {
            db.put(b("big"), biggest);
            db.put(b("small"), b("s"));
            model.put(b("big"), biggest);
            model.put(b("small"), b("s"));
            byte[] tooBig = new byte[Options.MAX_VALUE_BYTES + 1];
            assertIae(() -> db.put(b("big"), tooBig), "67108865");
            assertIae(() -> db.put(b("other"), tooBig), "67108865");
            assertContents(db, model, "memtable");
        }
        try (RemixDB db = RemixDB.open(dir, options)) {
            assertContents(db, model, "after reopen (WAL replay)");
            db.compactMemtable();
            assertTrue(db.stats().tables() > 0, "compaction wrote a table");
            assertContents(db, model, "after compaction");
        }
        try (RemixDB db = RemixDB.open(dir, options)) {
            assertContents(db, model, "after reopen (from the table)");
        }
    }

    @Test
    void emptyKeyAndEmptyValueAreOrdinary() throws Exception {
        NavigableMap<byte[], byte[]> model = newModel();
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            assertNull(db.get(new byte[0]), "absent before it is written");
            db.put(new byte[0], new byte[0]);
            db.put(b("k"), new byte[0]);
            db.put(b("l"), b("x"));
            model.put(new byte[0], new byte[0]);
            model.put(b("k"), new byte[0]);
            model.put(b("l"), b("x"));
            byte[] v = db.get(new byte[0]);
            assertNotNull(v, "an empty value is not an absent key");
            assertEquals(0, v.length);
            assertArrayEquals(new byte[0], db.get(b("k")));
            assertNull(db.get(b("m")), "absent");
            assertContents(db, model, "memtable");
            try (Cursor c = db.cursor()) {
                c.seek(new byte[0]);
                assertArrayEquals(new byte[0], c.key(), "the empty key sorts first");
            }
            db.compactMemtable();
            assertContents(db, model, "tables");
        }
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            assertContents(db, model, "after reopen");
            db.delete(new byte[0]);
            model.remove(new byte[0]);
            assertNull(db.get(new byte[0]), "deleted empty key over a table");
            assertContents(db, model, "after delete");
            db.compactMemtable();
            assertContents(db, model, "after delete and compaction");
        }
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            assertContents(db, model, "after second reopen");
        }
    }

    // ------------------------------------------------------------------ lifecycle

    @Test
    void useAfterCloseThrowsClosedException() throws Exception {
        RemixDB db = RemixDB.open(dir, ModelTest.tiny());
        db.put(b("a"), b("1"));
        Cursor open = db.cursor();
        open.seekToFirst();
        assertTrue(open.isValid());
        db.close();

        assertClosed(() -> db.put(b("a"), b("2")));
        assertClosed(() -> db.delete(b("a")));
        assertClosed(() -> db.get(b("a")));
        assertClosed(db::cursor);
        assertClosed(db::stats);
        assertClosed(db::sync);
        assertClosed(db::compactMemtable);

        // The cursor left open was closed by db.close().
        assertClosed(open::isValid);
        assertClosed(open::key);
        assertClosed(open::value);
        assertClosed(open::next);
        assertClosed(open::seekToFirst);
        assertClosed(() -> open.seek(b("a")));
        assertDoesNotThrow(open::close, "closing a cursor twice is allowed");

        assertDoesNotThrow(db::close, "close is idempotent");
        assertDoesNotThrow(db::close, "close is idempotent");

        try (RemixDB again = RemixDB.open(dir, ModelTest.tiny())) {
            assertArrayEquals(b("1"), again.get(b("a")), "the write before close survived");
        }
    }

    private static void assertClosed(Executable call) {
        ClosedException e = assertThrows(ClosedException.class, call);
        assertInstanceOf(IllegalStateException.class, e);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void secondOpenOfTheSameDirectoryFailsClearly() throws Exception {
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            db.put(b("a"), b("1"));
            IOException e = assertThrows(IOException.class, () -> RemixDB.open(dir, ModelTest.tiny()));
            assertTrue(e.getMessage().contains(dir.toString()), "names the directory: " + e.getMessage());
            assertTrue(e.getMessage().contains("already open"), "says why: " + e.getMessage());
            // The failed open released what it took and did not disturb the open store.
            db.put(b("b"), b("2"));
            assertArrayEquals(b("1"), db.get(b("a")));
            assertArrayEquals(b("2"), db.get(b("b")));
        }
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            assertArrayEquals(b("1"), db.get(b("a")));
            assertArrayEquals(b("2"), db.get(b("b")));
        }
    }

    @Test
    void reopenSeesEveryWriteThroughManyCompactions() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = newModel();
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            for (int i = 0; i < 3000; i++) {
                byte[] key = ModelTest.key(rnd.nextInt(1000), rnd);
                if (rnd.nextInt(5) == 0) {
                    db.delete(key);
                    model.remove(key);
                } else {
                    byte[] value = new byte[rnd.nextInt(60)];
                    rnd.nextBytes(value);
                    db.put(key, value);
                    model.put(key, value);
                }
            }
            assertContents(db, model, "seed " + seed + " before close");
        }
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            assertContents(db, model, "seed " + seed + " after reopen");
        }
    }

    // ------------------------------------------------------------------ stats

    @Test
    void statsArePlausible() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        String where = "seed " + seed;
        NavigableMap<byte[], byte[]> model = newModel();
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            Stats empty = db.stats();
            assertEquals(0, empty.keys(), where);
            assertEquals(0, empty.tables(), where);
            assertEquals(0, empty.userBytesWritten(), where);
            assertEquals(0.0, empty.writeAmplification(), where);
            assertTrue(empty.partitions() >= 1, where + ": " + empty);

            long userBytes = 0;
            long puts = 0;
            for (int i = 0; i < 2000; i++) {
                byte[] key = ModelTest.key(rnd.nextInt(800), rnd);
                if (rnd.nextInt(6) == 0) {
                    db.delete(key);
                    model.remove(key);
                    userBytes += key.length;  // Stats: "key and value bytes of every put and delete"
                } else {
                    byte[] value = new byte[rnd.nextInt(50)];
                    rnd.nextBytes(value);
                    db.put(key, value);
                    model.put(key, value);
                    userBytes += key.length + value.length;
                    puts++;
                }
            }
            db.compactMemtable();
            Stats s = db.stats();
            assertEquals(userBytes, s.userBytesWritten(), where + ": " + s);
            assertTrue(s.tables() > 0, where + ": tables after compaction: " + s);
            assertTrue(s.partitions() >= 1, where + ": " + s);
            assertTrue(s.keys() >= model.size(), where + ": keys counts at least the live keys: " + s);
            assertTrue(s.keys() <= 2000, where + ": keys counts at most every version written: " + s);
            assertTrue(s.diskBytes() > 0, where + ": " + s);
            assertTrue(s.offHeapBytes() > 0, where + ": " + s);
            assertTrue(s.offHeapBytes() >= s.blockCacheBytes(), where + ": the cache is part of off-heap memory: " + s);
            assertTrue(s.blockCacheBytes() <= 256 * 1024 + 64 * 1024, where + ": the cache respects its budget: " + s);
            assertTrue(s.walBytesWritten() >= userBytes, where + ": every user byte went through the WAL: " + s);
            assertTrue(s.tableBytesWritten() > 0, where + ": " + s);
            Stats.Compactions c = s.compactions();
            assertTrue(c.minor() + c.major() + c.split() > 0, where + ": compactions ran: " + c);
            assertTrue(s.writeAmplification() >= 1.0, where + ": " + s.writeAmplification());
            assertTrue(s.stallNanos() >= 0, where);
            assertTrue(puts > 0);
            ApiTest.assertContents(db, model, where);
        }
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            Stats s = db.stats();
            assertEquals(0, s.userBytesWritten(), where + ": counters count since open: " + s);
            assertTrue(s.keys() >= model.size(), where + ": " + s);
            assertTrue(s.tables() > 0 && s.diskBytes() > 0, where + ": " + s);
        }
    }

    @Test
    void statsCountTombstonesAndEstimateLiveKeys() throws Exception {
        try (RemixDB db = RemixDB.open(dir, Options.builder().build())) {
            for (int i = 0; i < 100; i++) {
                db.put(("k" + i).getBytes(StandardCharsets.UTF_8), new byte[] {1});
            }
            for (int i = 0; i < 60; i++) {
                db.delete(("k" + i).getBytes(StandardCharsets.UTF_8));
            }
            WriteBatch deferred = new WriteBatch();
            for (int i = 100; i < 110; i++) {
                deferred.put(("k" + i).getBytes(StandardCharsets.UTF_8), new byte[] {2});
            }
            deferred.delete("k99".getBytes(StandardCharsets.UTF_8));
            db.writeDeferred(deferred);
            db.publishDeferred();
            Stats s = db.stats();
            assertEquals(171, s.keys(), s.toString());
            assertEquals(61, s.tombstones(), s.toString());
            assertEquals(49, s.estimatedLiveKeys(), s.toString());
            assertEquals(49, db.statsBean().getEstimatedLiveKeys());
            assertEquals(61, db.statsBean().getTombstones());
            db.compactMemtable();
            s = db.stats();
            // Into an empty partition a compaction keeps no tombstone and one version per key.
            assertEquals(49, s.keys(), s.toString());
            assertEquals(0, s.tombstones(), s.toString());
            assertEquals(49, s.estimatedLiveKeys(), s.toString());
        }
    }

    @Test
    void theLiveKeyEstimateSurvivesPutAndDeleteChurnIntoTables() throws Exception {
        try (RemixDB db = RemixDB.open(dir, Options.builder().build())) {
            for (int i = 0; i < 1000; i++) {
                db.put(("live-" + i).getBytes(StandardCharsets.UTF_8), new byte[] {1});
            }
            db.compactMemtable();
            for (int round = 0; round < 4; round++) {
                // Each put and its delete meet in one memtable; a tombstone alone reaches the tables.
                for (int i = 0; i < 400; i++) {
                    byte[] k = ("churn-" + round + "-" + i).getBytes(StandardCharsets.UTF_8);
                    db.put(k, new byte[] {2});
                    db.delete(k);
                }
                assertEquals(1000, db.stats().estimatedLiveKeys(), "round " + round + " in the memtable: " + db.stats());
                db.compactMemtable();
                assertEquals(1000, db.stats().estimatedLiveKeys(), "round " + round + " in tables: " + db.stats());
            }
        }
    }

    /** Overwrites of a key in one memtable count it once (a Kafka store rewrites its offsets every commit). */
    @Test
    void overwritesDoNotInflateTheLiveKeyEstimate() throws Exception {
        try (RemixDB db = RemixDB.open(dir, Options.builder().build())) {
            for (int i = 0; i < 100; i++) {
                db.put(("old-" + i).getBytes(StandardCharsets.UTF_8), new byte[] {1});
            }
            db.compactMemtable();
            for (int round = 0; round < 500; round++) {
                for (int i = 0; i < 10; i++) {
                    db.put(("hot-" + i).getBytes(StandardCharsets.UTF_8), new byte[] {(byte) round});
                }
            }
            assertEquals(110, db.stats().estimatedLiveKeys(), db.stats().toString());
            // A key of the tables deleted and put again in the memtable is there once; deleted twice, gone.
            db.delete("old-0".getBytes(StandardCharsets.UTF_8));
            db.put("old-0".getBytes(StandardCharsets.UTF_8), new byte[] {2});
            db.delete("old-1".getBytes(StandardCharsets.UTF_8));
            db.delete("old-1".getBytes(StandardCharsets.UTF_8));
            // Put, delete and put again here: once.
            db.put("new".getBytes(StandardCharsets.UTF_8), new byte[] {3});
            db.delete("new".getBytes(StandardCharsets.UTF_8));
            db.put("new".getBytes(StandardCharsets.UTF_8), new byte[] {3});
            assertEquals(110, db.stats().estimatedLiveKeys(), db.stats().toString());
        }
    }

    @Test
    void everyStatsFigureHasItsMXBeanGetter() throws Exception {
        java.util.Set<String> getters = new java.util.HashSet<>();
        for (java.lang.reflect.Method m : StatsMXBean.class.getMethods()) {
            getters.add(m.getName());
        }
        for (java.lang.reflect.RecordComponent c : Stats.class.getRecordComponents()) {
            String name = c.getName();
            if (name.equals("compactions")) {
                continue;  // one getter per kind, checked below
            }
            name = name.replace("Nanos", "Millis");
            String getter = "get" + Character.toUpperCase(name.charAt(0)) + name.substring(1);
            assertTrue(getters.contains(getter), "Stats." + c.getName() + " has no " + getter + " in StatsMXBean");
        }
        for (java.lang.reflect.RecordComponent c : Stats.Compactions.class.getRecordComponents()) {
            assertTrue(getters.stream().anyMatch(g -> g.toLowerCase(java.util.Locale.ROOT)
                            .contains(c.getName().toLowerCase(java.util.Locale.ROOT))),
                    "Stats.Compactions." + c.getName() + " has no getter in StatsMXBean");
        }
        try (RemixDB db = RemixDB.open(dir, Options.builder().build())) {
            db.put(new byte[] {1}, new byte[] {2});
            StatsMXBean bean = db.statsBean();
            for (java.lang.reflect.Method m : StatsMXBean.class.getMethods()) {
                assertDoesNotThrow(() -> m.invoke(bean), m.getName());
            }
        }
    }

    // ------------------------------------------------------------------ options

    @Test
    void optionsBuilderRejectsBadValuesNamingThem() {
        assertIae(() -> Options.builder().memtableBytes(4095), "4095");
        assertIae(() -> Options.builder().memtableBytes(-1), "-1");
        assertIae(() -> Options.builder().blockCacheBytes(-5), "-5");
        assertIae(() -> Options.builder().compactionThreads(0), "0");
        assertIae(() -> Options.builder().compactionThreads(65), "65");
        assertIae(() -> Options.builder().tableBytes(4000), "4000");
        // Sizes past what the store can use: a memtable that never freezes, a table past its format's limit.
        assertIae(() -> Options.builder().memtableBytes(Long.MAX_VALUE), "memtableBytes");
        assertIae(() -> Options.builder().memtableBytes((16L << 30) + 1), "memtableBytes");
        assertIae(() -> Options.builder().tableBytes((1L << 30) + 1), "tableBytes");
        assertIae(() -> Options.builder().blockCacheBytes(Long.MAX_VALUE), "blockCacheBytes");
        Options top = Options.builder().memtableBytes(16L << 30).tableBytes(1L << 30).blockCacheBytes(1L << 40).build();
        assertEquals(1L << 30, top.tableBytes());
        assertIae(() -> Options.builder().abortFraction(-0.25), "-0.25");
        assertIae(() -> Options.builder().abortFraction(0.75), "0.75");
        assertIae(() -> Options.builder().abortFraction(Double.NaN), "NaN");
        assertIae(() -> Options.builder().compression(null), "compression");
        assertIae(() -> Options.builder().compactionPolicy(null), "compactionPolicy");

        // The edges themselves are accepted.
        Options edge = Options.builder().memtableBytes(4096).blockCacheBytes(0).compactionThreads(1)
                .compactionThreads(64).tableBytes(4096).abortFraction(0).abortFraction(0.5)
                .compactionPolicy(RemixDbPolicy.defaults()).syncWrites(true).build();
        assertEquals(4096, edge.memtableBytes());
        assertEquals(0, edge.blockCacheBytes());
        assertEquals(64, edge.compactionThreads());
        assertEquals(0.5, edge.abortFraction());
        assertTrue(edge.syncWrites());
        Options d = Options.defaults();
        assertEquals(64L << 20, d.memtableBytes());
        assertEquals(256L << 20, d.blockCacheBytes());
        assertFalse(d.syncWrites());
    }

    /** The smallest settings the builder accepts make a working store (no block cache at all, one thread). */
    @Test
    void edgeOptionsMakeAWorkingStore() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        Options edge = Options.builder().memtableBytes(4096).blockCacheBytes(0).compactionThreads(1)
                .tableBytes(4096).abortFraction(0.5).build();
        NavigableMap<byte[], byte[]> model = newModel();
        for (int session = 0; session < 2; session++) {
            try (RemixDB db = RemixDB.open(dir, edge)) {
                assertContents(db, model, "seed " + seed + " session " + session + " after open");
                for (int i = 0; i < 800; i++) {
                    byte[] key = ModelTest.key(rnd.nextInt(500), rnd);
                    if (rnd.nextInt(5) == 0) {
                        db.delete(key);
                        model.remove(key);
                    } else {
                        byte[] value = new byte[rnd.nextInt(10) == 0 ? 5000 : rnd.nextInt(50)];
                        rnd.nextBytes(value);
                        db.put(key, value);
                        model.put(key, value);
                    }
                }
                db.compactMemtable();
                // BlockCache: with no budget it keeps only the slots of the most blocks pinned at once (a few per cursor).
                assertTrue(db.stats().blockCacheBytes() <= 64 * 4096, "seed " + seed + ": cache memory without a budget: "
                        + db.stats().blockCacheBytes());
                assertContents(db, model, "seed " + seed + " session " + session);
            }
        }
    }

    // ------------------------------------------------------------------ snapshot isolation

    @Test
    void cursorSeesItsSnapshotThroughWritesAndCompactions() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = newModel();
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            for (int i = 0; i < 1500; i++) {
                byte[] key = ModelTest.key(rnd.nextInt(600), rnd);
                byte[] value = new byte[rnd.nextInt(40)];
                rnd.nextBytes(value);
                db.put(key, value);
                model.put(key, value);
            }
            db.compactMemtable();
            // Some of the snapshot in the memtable, some in tables.
            for (int i = 0; i < 200; i++) {
                byte[] key = ModelTest.key(rnd.nextInt(600), rnd);
                byte[] value = new byte[rnd.nextInt(40)];
                rnd.nextBytes(value);
                db.put(key, value);
                model.put(key, value);
            }
            NavigableMap<byte[], byte[]> snapshot = new TreeMap<>(model);
            try (Cursor c = db.cursor()) {
                // Writes after the cursor was made: overwrite, delete, add new keys.
                for (int i = 0; i < 200; i++) {
                    byte[] key = ModelTest.key(rnd.nextInt(700), rnd);
                    if (rnd.nextInt(3) == 0) {
                        db.delete(key);
                        model.remove(key);
                    } else {
                        byte[] value = new byte[rnd.nextInt(40)];
                        rnd.nextBytes(value);
                        db.put(key, value);
                        model.put(key, value);
                    }
                }
                assertScan(c, snapshot, "seed " + seed + ": after writes");
                db.compactMemtable();
                assertScan(c, snapshot, "seed " + seed + ": after compactMemtable");
                // Enough writes to switch memtables and compact several times while the cursor is open.
                for (int i = 0; i < 3000; i++) {
                    byte[] key = ModelTest.key(rnd.nextInt(700), rnd);
                    if (rnd.nextInt(4) == 0) {
                        db.delete(key);
                        model.remove(key);
                    } else {
                        byte[] value = new byte[rnd.nextInt(40)];
                        rnd.nextBytes(value);
                        db.put(key, value);
                        model.put(key, value);
                    }
                }
                db.compactMemtable();
                assertTrue(db.stats().compactions().minor() + db.stats().compactions().major()
                        + db.stats().compactions().split() > 2, "compactions ran while the cursor was open");
                assertScan(c, snapshot, "seed " + seed + ": after many compactions");
                for (Map.Entry<byte[], byte[]> e : snapshot.entrySet()) {
                    c.seek(e.getKey());
                    assertTrue(c.isValid());
                    assertArrayEquals(e.getKey(), c.key(), "seed " + seed + ": seek");
                    assertArrayEquals(e.getValue(), c.value(), "seed " + seed + ": seek value");
                }
            }
            assertContents(db, model, "seed " + seed + ": a new cursor sees the new state");
        }
    }
}
