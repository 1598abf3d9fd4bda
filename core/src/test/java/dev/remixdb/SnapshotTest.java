package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Snapshots: isolation across writes and compactions, what they pin, close, leaks, misuse. */
class SnapshotTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Options tiny() {
        return Options.builder().memtableBytes(8 * 1024).tableBytes(4 * 1024).build();
    }

    @Test
    void aSnapshotKeepsItsMomentThroughWritesAndCompactions() throws Exception {
        try (RemixDB db = RemixDB.open(dir, tiny())) {
            for (int i = 0; i < 500; i++) {
                db.put(b(String.format("k%04d", i)), b("old" + i));
            }
            try (Snapshot s = db.snapshot()) {
                for (int i = 0; i < 500; i += 2) {
                    db.put(b(String.format("k%04d", i)), b("new" + i));
                    db.delete(b(String.format("k%04d", i + 1)));
                }
                db.put(b("later"), b("x"));
                db.compactMemtable();
                assertTrue(db.stats().compactions().minor() + db.stats().compactions().major() > 0);
                for (int i = 0; i < 500; i++) {
                    assertArrayEquals(b("old" + i), s.get(b(String.format("k%04d", i))), "key " + i);
                }
                assertNull(s.get(b("later")));
                int n = 0;
                try (Cursor c = s.cursor()) {
                    for (c.seekToLast(); c.isValid(); c.prev()) {
                        n++;
                    }
                }
                assertEquals(500, n);
                assertEquals(1, db.stats().openSnapshots());
            }
            assertEquals(0, db.stats().openSnapshots());
            assertArrayEquals(b("new0"), db.get(b("k0000")));
            assertNull(db.get(b("k0001")));
        }
    }

    @Test
    void aClosedSnapshotRefusesReadsButItsCursorsGoOn() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(b("a"), b("1"));
            Snapshot s = db.snapshot();
            Cursor c = s.cursor();
            s.close();
            s.close();
            ClosedException e = assertThrows(ClosedException.class, () -> s.get(b("a")));
            assertTrue(e.getMessage().contains("snapshot"), e.getMessage());
            assertThrows(ClosedException.class, s::cursor);
            c.seekToFirst();
            assertArrayEquals(b("a"), c.key());
            c.close();
            assertThrows(IllegalArgumentException.class, () -> db.snapshot().get(null));
            try (Snapshot open = db.snapshot()) {
                byte[] oversized = new byte[Options.MAX_KEY_BYTES + 1];
                assertThrows(IllegalArgumentException.class, () -> open.get(oversized), "as RemixDB.get");
                assertThrows(IllegalArgumentException.class, () -> db.get(oversized));
            }
        }
    }

    @Test
    void closingTheStoreClosesItsSnapshots() throws Exception {
        RemixDB db = RemixDB.open(dir);
        db.put(b("a"), b("1"));
        Snapshot s = db.snapshot();
        db.close();
        assertThrows(ClosedException.class, () -> s.get(b("a")));
        s.close();
        assertThrows(ClosedException.class, db::snapshot);
    }

    /** A snapshot dropped without close is released by the garbage collector, and counted. */
    @Test
    void aLeakedSnapshotIsReleasedAndReported() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(b("a"), b("1"));
            leak(db);
            assertEquals(1, db.stats().openSnapshots());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (db.stats().leakedSnapshots() == 0 && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(20);
            }
            assertEquals(1, db.stats().leakedSnapshots());
            assertEquals(0, db.stats().openSnapshots());
            try (Snapshot kept = db.snapshot()) {
                kept.get(b("a"));
            }
            assertEquals(1, db.stats().leakedSnapshots(), "a closed snapshot is not a leak");
            assertFalse(db.stats().toString().isEmpty());
        }
    }

    private static void leak(RemixDB db) {
        db.snapshot().get(b("a"));
    }

    /** The files a snapshot reads stay until it closes, then go. */
    @Test
    void aSnapshotPinsReplacedTablesUntilClosed() throws Exception {
        try (RemixDB db = RemixDB.open(dir, tiny())) {
            for (int i = 0; i < 300; i++) {
                db.put(b(String.format("k%04d", i)), b("v".repeat(40)));
            }
            db.compactMemtable();
            Snapshot s = db.snapshot();
            rewriteUntilTablesAreReplaced(db);
            long pinned = countTables();
            assertTrue(pinned > db.stats().tables(), "the snapshot keeps replaced tables: " + pinned + " files, "
                    + db.stats().tables() + " in the current version");
            for (int i = 0; i < 300; i++) {
                assertArrayEquals(b("v".repeat(40)), s.get(b(String.format("k%04d", i))));
            }
            s.close();
            // Closing releases the old version; its files are deleted by that last release.
            long after = countTables();
            assertTrue(after < pinned, "tables " + pinned + " while pinned, " + after + " after close");
            assertEquals(db.stats().tables(), after);
        }
    }

    /**
     * A cursor dropped without close pinned its tables until the store closed. The store now finds
     * it once it is garbage-collected, closes it and counts it: the replaced tables go.
     */
    @Test
    void aDroppedCursorIsClosedAndItsTablesGo() throws Exception {
        try (RemixDB db = RemixDB.open(dir, tiny())) {
            for (int i = 0; i < 300; i++) {
                db.put(b(String.format("k%04d", i)), b("v".repeat(40)));
            }
            db.compactMemtable();
            dropCursor(db);
            assertEquals(1, db.stats().openCursors());
            rewriteUntilTablesAreReplaced(db);
            long pinned = countTables();
            assertTrue(pinned > db.stats().tables(), "the cursor keeps replaced tables: " + pinned + " files, "
                    + db.stats().tables() + " in the current version");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (db.stats().leakedCursors() == 0 && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(20);
            }
            assertEquals(1, db.stats().leakedCursors());
            assertEquals(0, db.stats().openCursors());
            assertEquals(db.stats().tables(), countTables(), "the dropped cursor's tables are deleted");
            try (Cursor kept = db.cursor()) {
                kept.seekToFirst();
                assertTrue(kept.isValid());
            }
            assertEquals(1, db.stats().leakedCursors(), "a closed cursor is not a leak");
        }
    }

    private static void dropCursor(RemixDB db) {
        Cursor c = db.cursor();
        c.seekToFirst();
        assertArrayEquals(b("v".repeat(40)), c.value());
        assertEquals(40, c.valueView().byteSize());
    }

    /**
     * Rewrites every key until compaction has replaced tables that an older reader reads (minor
     * compactions only add some, and a major may merge only newer tables): then files outlive the
     * version while that reader holds them.
     */
    private void rewriteUntilTablesAreReplaced(RemixDB db) throws Exception {
        for (int round = 0; round < 50 && countTables() == db.stats().tables(); round++) {
            for (int i = 0; i < 300; i++) {
                db.put(b(String.format("k%04d", i)), b("w" + round + "v".repeat(40)));
            }
            db.compactMemtable();
        }
    }

    private long countTables() throws Exception {
        try (var files = java.nio.file.Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".tbl")).count();
        }
    }
}
