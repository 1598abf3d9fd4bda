package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RemixDB#deleteRange}: against a model with random ranges over data in every place a
 * version can be (active and frozen memtables, tables), with snapshots taken before and after,
 * cursors both ways, reopen (the WAL replays it) and compaction (which drops what it hides); write
 * batches mixing it with puts; open bounds; bad input; map views' {@code clear()}.
 */
class DeleteRangeTest {
    @TempDir
    Path dir;

    private static Options small() {
        return Options.builder().memtableBytes(32 * 1024).tableBytes(8 * 1024).blockCacheBytes(1 << 20).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String key(int n) {
        return String.format("k%05d", n);
    }

    private static TreeMap<String, String> contents(Cursor c, boolean backwards) {
        TreeMap<String, String> out = new TreeMap<>();
        if (backwards) {
            for (c.seekToLast(); c.isValid(); c.prev()) {
                out.put(new String(c.key(), StandardCharsets.UTF_8), new String(c.value(), StandardCharsets.UTF_8));
            }
        } else {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                out.put(new String(c.key(), StandardCharsets.UTF_8), new String(c.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static void check(RemixDB db, NavigableMap<String, String> model, Random r, String where) {
        try (Cursor c = db.cursor()) {
            assertEquals(model, contents(c, false), where + " forwards");
            assertEquals(model, contents(c, true), where + " backwards");
        }
        for (int i = 0; i < 300; i++) {
            String k = key(r.nextInt(5000));
            byte[] v = db.get(b(k));
            assertEquals(model.get(k), v == null ? null : new String(v, StandardCharsets.UTF_8), where + " get " + k);
            try (Cursor c = db.cursor()) {
                c.seek(b(k));
                Map.Entry<String, String> want = model.ceilingEntry(k);
                assertEquals(want == null ? null : want.getKey(),
                        c.isValid() ? new String(c.key(), StandardCharsets.UTF_8) : null, where + " seek " + k);
            }
        }
    }

    @Test
    void randomRangesAgainstTheModel() throws Exception {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        TreeMap<String, String> model = new TreeMap<>();
        for (int round = 0; round < 4; round++) {
            try (RemixDB db = RemixDB.open(dir, small())) {
                check(db, model, r, "seed " + seed + " round " + round + " open");
                Snapshot snap = null;
                TreeMap<String, String> snapModel = null;
                for (int i = 0; i < 6000; i++) {
                    int op = r.nextInt(100);
                    String k = key(r.nextInt(5000));
                    if (op < 70) {
                        String v = "v" + round + "-" + i;
                        db.put(b(k), b(v));
                        model.put(k, v);
                    } else if (op < 80) {
                        db.delete(b(k));
                        model.remove(k);
                    } else if (op < 82) {
                        int a = r.nextInt(5000);
                        int w = 1 + r.nextInt(r.nextInt(10) == 0 ? 2000 : 100);
                        String from = r.nextInt(30) == 0 ? null : key(a);
                        String to = r.nextInt(30) == 0 ? null : key(Math.min(a + w, 5001));
                        if (from != null && to != null && from.compareTo(to) >= 0) {
                            continue;
                        }
                        db.deleteRange(from == null ? null : b(from), to == null ? null : b(to));
                        (from == null ? (to == null ? model : model.headMap(to, false))
                                : to == null ? model.tailMap(from, true) : model.subMap(from, true, to, false)).clear();
                    } else if (op < 83) {
                        // A batch: a put the range covers (gone), the range, a put inside it (kept).
                        int a = r.nextInt(4900);
                        WriteBatch wb = new WriteBatch().put(b(key(a + 1)), b("early"))
                                .deleteRange(b(key(a)), b(key(a + 50))).put(b(key(a + 2)), b("late"));
                        db.write(wb);
                        model.subMap(key(a), true, key(a + 50), false).clear();
                        model.put(key(a + 2), "late");
                    } else if (op == 83 && snap == null) {
                        snap = db.snapshot();
                        snapModel = new TreeMap<>(model);
                    } else if (op == 84) {
                        db.compactMemtable();
                    }
                }
                check(db, model, r, "seed " + seed + " round " + round);
                if (snap != null) {
                    try (Snapshot s = snap; Cursor c = s.cursor()) {
                        assertEquals(snapModel, contents(c, false), "seed " + seed + " snapshot sees its moment");
                    }
                }
                db.compactRange(null, null);
                check(db, model, r, "seed " + seed + " round " + round + " compacted");
            }
        }
        assertTrue(RemixDB.verify(dir).ok());
    }

    @Test
    void rangeDeletesSurviveReopenBeforeAnyCompaction() throws Exception {
        try (RemixDB db = RemixDB.open(dir, small())) {
            for (int i = 0; i < 100; i++) {
                db.put(b(key(i)), b("v"));
            }
            db.compactMemtable();  // the keys are in tables
            db.deleteRange(b(key(10)), b(key(20)));
            db.deleteRange(b(key(90)), null);
            db.put(b(key(15)), b("again"));
        }
        try (RemixDB db = RemixDB.open(dir, small())) {
            assertNull(db.get(b(key(10))));
            assertNull(db.get(b(key(19))));
            assertEquals("v", new String(db.get(b(key(20))), StandardCharsets.UTF_8));
            assertEquals("again", new String(db.get(b(key(15))), StandardCharsets.UTF_8));
            assertNull(db.get(b(key(95))));
            try (Cursor c = db.cursor()) {
                assertEquals(100 - 10 - 10 + 1, contents(c, false).size());
            }
            long disk = db.stats().diskBytes();
            db.compactMemtable();
            assertNull(db.get(b(key(95))));
            assertTrue(db.stats().diskBytes() <= disk, "the hidden versions are dropped");
        }
        try (RemixDB db = RemixDB.open(dir, small()); Cursor c = db.cursor()) {
            assertEquals(81, contents(c, false).size());
        }
    }

    @Test
    void badInputAndMapViews() throws Exception {
        try (RemixDB db = RemixDB.open(dir, small())) {
            assertThrows(IllegalArgumentException.class, () -> db.deleteRange(b("b"), b("a")));
            // An empty range deletes nothing and is no error (computed ends may meet), as in RocksDB.
            db.put(b("a"), b("1"));
            db.deleteRange(b("a"), b("a"));
            db.write(new WriteBatch().deleteRange(b("a"), b("a")).put(b("c"), b("3")));
            assertEquals(0, new WriteBatch().deleteRange(b("q"), b("q")).size());
            assertArrayEquals(b("1"), db.get(b("a")));
            assertArrayEquals(b("3"), db.get(b("c")));
            db.deleteRange(b("a"), b("d"));
            assertThrows(IllegalArgumentException.class, () -> new WriteBatch().deleteRange(b("z"), b("y")));
            ConcurrentNavigableMap<String, Long> map = db.asMap(Codecs.STRING, Codecs.LONG);
            for (long i = 0; i < 1000; i++) {
                map.put(String.format("m%04d", i), i);
            }
            map.subMap("m0100", "m0200").clear();
            assertEquals(900, map.size());
            assertNull(map.get("m0150"));
            map.tailMap("m0900").clear();
            assertEquals(800, map.size());
            map.headMap("m0050").clear();
            assertEquals(750, map.size());
            map.subMap("m0500", "m0500").clear();
            assertEquals(750, map.size());
            map.clear();
            assertTrue(map.isEmpty());
        }
    }

    /**
     * A process applying puts, deletes and range deletes killed with SIGKILL: the store reopens in
     * the state after some prefix of its operations that includes every synced one.
     */
    @Test
    void killNineKeepsASyncedPrefix() throws Exception {
        Random r = new Random(13);
        for (int round = 0; round < 3; round++) {
            Path store = dir.resolve("crash-" + round);
            KilledChild child = KilledChild.start(DeleteRangeChild.class, "S", store.toString());
            long minimum = 200 + r.nextInt(3000);
            long synced = child.killWhen(() -> child.lines() * 10 >= minimum, r.nextInt(20));
            KilledChild.assertSyncedPrefix(store, CrashChild.options(), synced,
                    (i, model) -> DeleteRangeChild.apply(i, null, model), "round " + round);
        }
    }

    /** 200,000 keys deleted with one operation, then compacted away. */
    @Test
    void oneOperationForManyKeys() throws IOException, InterruptedException {
        try (RemixDB db = RemixDB.open(dir, Options.builder().memtableBytes(4 << 20).build())) {
            for (int i = 0; i < 200_000; i++) {
                db.put(b(String.format("x%08d", i)), b("0123456789"));
            }
            db.compactMemtable();
            long walBefore = db.stats().walBytesWritten();
            db.deleteRange(b("x"), b("y"));
            assertTrue(db.stats().walBytesWritten() - walBefore < 100, "one small WAL record");
            assertNull(db.get(b("x00000007")));
            db.compactMemtable();
            try (Cursor c = db.cursor()) {
                c.seekToFirst();
                assertTrue(!c.isValid());
            }
            assertTrue(db.stats().diskBytes() < 100_000, "the deleted keys left the files: " + db.stats().diskBytes());
        }
    }
}
