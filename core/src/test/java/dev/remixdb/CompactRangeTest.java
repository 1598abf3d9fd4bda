package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RemixDB#compactRange}: the range ends as one sorted run without overwritten versions or
 * deleted keys (a scan over it skips nothing), the store's contents are unchanged, snapshots keep
 * their view, and it works on an empty store and with nothing new to flush.
 */
class CompactRangeTest {
    @TempDir
    Path dir;

    private static Options small() {
        return Options.builder().memtableBytes(64 * 1024).tableBytes(16 * 1024).blockCacheBytes(1 << 20).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> contents(RemixDB db, String from, String to) {
        Map<String, String> out = new TreeMap<>();
        try (Cursor c = db.cursor(from == null ? null : b(from), to == null ? null : b(to))) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                out.put(new String(c.key(), StandardCharsets.UTF_8), new String(c.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /** Entries a full scan of [from, to) passed over (stale versions and tombstones). */
    private static long skippedByScan(RemixDB db, String from, String to) {
        long before = db.stats().scanSkipped();
        contents(db, from, to);
        return db.stats().scanSkipped() - before;
    }

    @Test
    void rangeEndsWithoutStaleVersions() throws Exception {
        TreeMap<String, String> model = new TreeMap<>();
        Random r = new Random(9);
        try (RemixDB db = RemixDB.open(dir.resolve("store"), small())) {
            for (int i = 0; i < 30_000; i++) {
                String k = String.format("k%05d", r.nextInt(4000));
                if (r.nextInt(5) == 0) {
                    db.delete(b(k));
                    model.remove(k);
                } else {
                    String v = "v" + i + "-" + "z".repeat(r.nextInt(40));
                    db.put(b(k), b(v));
                    model.put(k, v);
                }
            }
            db.compactMemtable();
            // Overwrites in a round of their own, over keys already in tables: versions left stale
            // for compactRange to remove, however the rounds before were grouped or merged.
            for (int i = 0; i < 400; i++) {
                String k = String.format("k%05d", i * 10);
                String v = "again" + i;
                db.put(b(k), b(v));
                model.put(k, v);
            }
            db.compactMemtable();
            assertTrue(skippedByScan(db, null, null) > 0, "overwrites and deletes left stale entries");
            try (Snapshot before = db.snapshot()) {
                long bytesBefore = db.stats().diskBytes();
                db.compactRange(b("k01000"), b("k02000"));
                assertEquals(0, skippedByScan(db, "k01000", "k02000"), "the compacted range has nothing stale");
                assertEquals(model, contents(db, null, null));
                db.compactRange(null, null);
                assertEquals(0, skippedByScan(db, null, null));
                assertEquals(model, contents(db, null, null));
                assertTrue(db.stats().diskBytes() < bytesBefore, db.stats().diskBytes() + " >= " + bytesBefore);
                // The snapshot still reads what it saw, from the files it keeps.
                try (Cursor c = before.cursor()) {
                    int n = 0;
                    for (c.seekToFirst(); c.isValid(); c.next()) {
                        assertEquals(model.get(new String(c.key(), StandardCharsets.UTF_8)),
                                new String(c.value(), StandardCharsets.UTF_8));
                        n++;
                    }
                    assertEquals(model.size(), n);
                }
            }
            // Nothing new since: the round has an empty memtable and still completes.
            db.compactRange(null, null);
            db.put(b("after"), b("x"));
            model.put("after", "x");
            assertEquals(model, contents(db, null, null));
        }
        try (RemixDB db = RemixDB.open(dir.resolve("store"), small())) {
            assertEquals(model, contents(db, null, null));
        }
        assertTrue(RemixDB.verify(dir.resolve("store")).ok());
    }

    @Test
    void emptyStoreConcurrentWritersAndBadInput() throws Exception {
        try (RemixDB db = RemixDB.open(dir.resolve("empty"), small())) {
            db.compactRange(null, null);
            assertThrows(IllegalArgumentException.class, () -> db.compactRange(b("b"), b("a")));
            TreeMap<String, String> model = new TreeMap<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 20_000; i++) {
                        db.put(b("w" + (i % 3000)), b("v" + i));
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            for (int i = 0; i < 5; i++) {
                db.compactRange(b("w1"), b("w5"));
            }
            writer.join();
            for (int i = 0; i < 20_000; i++) {
                model.put("w" + (i % 3000), "v" + i);
            }
            assertEquals(model, contents(db, null, null));
        }
        RemixDB closed = RemixDB.open(dir.resolve("closed"), small());
        closed.close();
        assertThrows(ClosedException.class, () -> closed.compactRange(null, null));
    }

    /** The table and REMIX files in {@code store}. */
    private static java.util.Set<String> indexFiles(Path store) throws java.io.IOException {
        try (var files = java.nio.file.Files.list(store)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".tbl") || n.endsWith(".rmx"))
                    .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
        }
    }

    @Test
    void theFilesItReplacedAreGoneWhenItReturns() throws Exception {
        Path store = dir.resolve("store");
        try (RemixDB db = RemixDB.open(store, small())) {
            for (int round = 0; round < 10; round++) {
                Random r = new Random(round);
                for (int i = 0; i < 3000; i++) {
                    db.put(b(String.format("k%05d", r.nextInt(20_000))), b("v" + round + "-" + i));
                }
                db.compactMemtable();
                db.deleteRange(b("k05"), b("k10"));
                // Space freed "now", as the Javadoc promises for a checkpoint or backup that follows:
                // no file of the replaced tables may be deleted after the call returned.
                db.compactRange(null, null);
                java.util.Set<String> after = indexFiles(store);
                Thread.sleep(300);
                java.util.Set<String> later = indexFiles(store);
                java.util.Set<String> deletedLate = new java.util.TreeSet<>(after);
                deletedLate.removeAll(later);
                assertEquals(java.util.Set.of(), deletedLate, "round " + round + ": deleted after compactRange returned");
            }
        }
    }
}
