package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Views of a cursor's entry ({@link Cursor#keyView()}) and {@link RemixDB#scan}: the bytes are the
 * entry's, every use after a move or close fails, threads other than the views' cannot end them, and
 * a close from another thread neither waits for them nor frees what they show.
 */
class ViewsTest {
    @TempDir
    Path dir;

    private static byte[] bytes(MemorySegment view) {
        return view.toArray(ValueLayout.JAVA_BYTE);
    }

    private static void assertDead(MemorySegment view, String what) {
        assertFalse(view.scope().isAlive(), what + ": scope still alive");
        assertThrows(IllegalStateException.class, () -> view.toArray(ValueLayout.JAVA_BYTE), what);
    }

    @Test
    void viewsShowTheEntryAndDieWhenTheCursorMoves() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            for (int round = 0; round < 8; round++) {
                for (int i = 0; i < 500; i++) {
                    CursorModelTest.write(db, model, rnd);
                }
                if (round % 3 == 2) {
                    db.compactMemtable();
                }
                String where = "seed " + seed + " round " + round;
                try (Cursor c = db.cursor()) {
                    c.seekToFirst();
                    MemorySegment lastKey = null;
                    MemorySegment lastValue = null;
                    for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                        assertTrue(c.isValid(), where);
                        if (lastKey != null) {
                            assertDead(lastKey, where + " old key view after next");
                            assertDead(lastValue, where + " old value view after next");
                        }
                        MemorySegment k = c.keyView();
                        MemorySegment v = c.valueView();
                        assertTrue(k.isReadOnly() && v.isReadOnly(), where);
                        assertArrayEquals(e.getKey(), bytes(k), where);
                        assertArrayEquals(e.getValue(), bytes(v), where);
                        // A second view of the same entry is as good as the first.
                        assertArrayEquals(e.getKey(), bytes(c.keyView()), where);
                        assertThrows(IllegalArgumentException.class, () -> k.set(ValueLayout.JAVA_BYTE, 0, (byte) 1));
                        lastKey = k;
                        lastValue = v;
                        c.next();
                    }
                    assertFalse(c.isValid(), where);
                    if (lastKey != null) {
                        assertDead(lastKey, where + " after the last next");
                    }
                    // Backwards too, and every kind of move ends the views.
                    c.seekToLast();
                    if (c.isValid()) {
                        MemorySegment k = c.keyView();
                        assertArrayEquals(model.lastKey(), bytes(k), where);
                        c.prev();
                        assertDead(k, where + " after prev");
                        MemorySegment k2 = c.keyView();
                        c.seek(model.firstKey());
                        assertDead(k2, where + " after seek");
                        MemorySegment k3 = c.keyView();
                        c.seekForPrev(model.lastKey());
                        assertDead(k3, where + " after seekForPrev");
                        MemorySegment k4 = c.valueView();
                        c.seekToFirst();
                        assertDead(k4, where + " after seekToFirst");
                    }
                    MemorySegment held = c.isValid() ? c.valueView() : null;
                    c.close();
                    if (held != null) {
                        assertDead(held, where + " after close");
                    }
                    assertThrows(ClosedException.class, c::keyView);
                }
            }
        }
    }

    @Test
    void scanVisitsTheRangeAsViews() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            for (int i = 0; i < 4000; i++) {
                CursorModelTest.write(db, model, rnd);
                if (i % 1500 == 1499) {
                    db.compactMemtable();
                }
            }
            for (int t = 0; t < 200; t++) {
                CursorModelTest.Bounds b = CursorModelTest.Bounds.random(rnd);
                int limit = rnd.nextInt(4) == 0 ? Integer.MAX_VALUE : rnd.nextInt(60);
                int stopAfter = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(30) : Integer.MAX_VALUE;
                List<byte[]> keys = new ArrayList<>();
                List<byte[]> values = new ArrayList<>();
                List<MemorySegment> seen = new ArrayList<>();
                int n = db.scan(b.lower(), b.upper(), limit, (k, v) -> {
                    keys.add(bytes(k));
                    values.add(bytes(v));
                    seen.add(k);
                    return keys.size() < stopAfter;
                });
                String where = "seed " + seed + " try " + t + " limit " + limit + " stop " + stopAfter;
                List<Map.Entry<byte[], byte[]>> expected = b.of(model).entrySet().stream()
                        .limit(Math.min(limit, stopAfter)).toList();
                assertEquals(expected.size(), n, where);
                assertEquals(expected.size(), keys.size(), where);
                for (int i = 0; i < n; i++) {
                    assertArrayEquals(expected.get(i).getKey(), keys.get(i), where + " entry " + i);
                    assertArrayEquals(expected.get(i).getValue(), values.get(i), where + " entry " + i);
                }
                for (MemorySegment s : seen) {
                    assertDead(s, where + " view after the visit");
                }
            }
            assertThrows(IllegalArgumentException.class, () -> db.scan(null, null, -1, (k, v) -> true));
            assertThrows(IllegalArgumentException.class, () -> db.scan(null, null, 10, null));
            try (Snapshot s = db.snapshot()) {
                assertThrows(IllegalArgumentException.class, () -> s.scan(null, null, 10, null));
            }
            assertEquals(0, db.stats().openCursors());
            try (Snapshot s = db.snapshot()) {
                db.put("zzz".getBytes(StandardCharsets.UTF_8), new byte[]{1});
                int[] count = {0};
                s.scan(null, null, Integer.MAX_VALUE, (k, v) -> {
                    count[0]++;
                    return true;
                });
                assertEquals(model.size(), count[0], "a snapshot's scan misses later writes");
            }
        }
    }

    @Test
    void onlyTheViewsThreadMovesTheCursorUntilItHasMoved() throws Exception {
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            for (int i = 0; i < 100; i++) {
                db.put(("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            try (Cursor c = db.cursor()) {
                c.seekToFirst();
                MemorySegment k = c.keyView();
                Throwable moved = CompletableFuture.supplyAsync(() -> {
                    try {
                        c.next();
                        return null;
                    } catch (Throwable t) {
                        return t;
                    }
                }).get(10, TimeUnit.SECONDS);
                assertTrue(moved instanceof IllegalStateException, "another thread moved the cursor: " + moved);
                Throwable viewed = CompletableFuture.supplyAsync(() -> {
                    try {
                        c.valueView();
                        return null;
                    } catch (Throwable t) {
                        return t;
                    }
                }).get(10, TimeUnit.SECONDS);
                assertTrue(viewed instanceof IllegalStateException, "another thread took a view: " + viewed);
                // Nothing moved: the view still shows the first key.
                assertArrayEquals("k0".getBytes(StandardCharsets.UTF_8), bytes(k));
                c.next();
                assertDead(k, "after the owner moved");
                // Views ended: the cursor may change threads again.
                byte[] other = CompletableFuture.supplyAsync(() -> {
                    c.next();
                    return bytes(c.keyView());
                }).get(10, TimeUnit.SECONDS);
                assertArrayEquals("k10".getBytes(StandardCharsets.UTF_8), other);
            }
        }
    }

    @Test
    void aCloseFromAnotherThreadKeepsTheViewsMemoryUntilTheirThreadReturns() throws Exception {
        RemixDB db = RemixDB.open(dir, ModelTest.tiny());
        byte[] value = new byte[300];
        new Random(7).nextBytes(value);
        for (int i = 0; i < 400; i++) {
            db.put(String.format("k%04d", i).getBytes(StandardCharsets.UTF_8), value);
        }
        db.compactMemtable();
        db.put("k0000".getBytes(StandardCharsets.UTF_8), value);  // the first key from the memtable too
        Cursor fromMemtable = db.cursor();
        fromMemtable.seekToFirst();
        MemorySegment memtableView = fromMemtable.valueView();
        Cursor fromTable = db.cursor();
        fromTable.seek("k0200".getBytes(StandardCharsets.UTF_8));
        MemorySegment tableView = fromTable.valueView();

        // The store's close runs on another thread and must not wait for this one.
        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
            try {
                db.close();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        closing.get(30, TimeUnit.SECONDS);
        // The views still show their entries' bytes: the memory stayed.
        assertArrayEquals(value, bytes(memtableView));
        assertArrayEquals(value, bytes(tableView));
        // Back on the views' thread: the cursor is closed, and touching it ends the views.
        assertThrows(ClosedException.class, fromMemtable::next);
        assertDead(memtableView, "memtable view after its thread returned");
        fromTable.close();
        assertDead(tableView, "table view after its thread closed the cursor");
        fromMemtable.close();
    }

    @Test
    void viewsNeverShowAnotherKeyWhileCompactionsRun() throws Exception {
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> writerError = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                Random rnd = new Random(3);
                try {
                    while (!stop.get()) {
                        int n = rnd.nextInt(3000);
                        db.put(key(n), valueOf(n, rnd.nextInt(1000)));
                    }
                } catch (Throwable t) {
                    writerError.set(t);
                }
            });
            try {
                Random rnd = new Random(5);
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                long checked = 0;
                while (System.nanoTime() < end) {
                    try (Cursor c = db.cursor()) {
                        c.seek(key(rnd.nextInt(3000)));
                        for (int i = 0; i < 50 && c.isValid(); i++) {
                            MemorySegment k = c.keyView();
                            MemorySegment v = c.valueView();
                            Thread.onSpinWait();
                            // Values name their key: one that shows another key's value is wrong.
                            String key = new String(bytes(k), StandardCharsets.UTF_8);
                            String val = new String(bytes(v), StandardCharsets.UTF_8);
                            assertTrue(val.startsWith(key + "="), key + " shows " + val);
                            checked++;
                            c.next();
                        }
                    }
                }
                assertTrue(checked > 1000, "checked " + checked);
            } finally {
                stop.set(true);
                writer.join();
            }
            assertNull(writerError.get());
            assertTrue(db.stats().compactions().minor() > 0, "no compaction ran meanwhile");
        }
    }

    private static byte[] key(int n) {
        return String.format("key%05d", n).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] valueOf(int n, int version) {
        return (String.format("key%05d", n) + "=" + version + "-" + "x".repeat(version % 90))
                .getBytes(StandardCharsets.UTF_8);
    }
}
