package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Cursors in both directions, with random bounds, at snapshots, against a {@link TreeMap}: random
 * batches, puts and deletes on a store with tiny memtables (so keys are spread over the active
 * memtable, the one being compacted and many partitions), then random walks mixing
 * {@code seek}, {@code seekForPrev}, {@code seekToFirst}, {@code seekToLast}, {@code next} and
 * {@code prev}, each step compared with the model's navigation. Snapshots taken along the way must
 * keep reading their moment's model.
 */
class CursorModelTest {
    @TempDir
    Path dir;

    private record Taken(Snapshot snapshot, NavigableMap<byte[], byte[]> model) {}

    @Test
    void walksInBothDirectionsMatchTheModel() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        List<Taken> snapshots = new ArrayList<>();
        try (RemixDB db = RemixDB.open(dir, ModelTest.tiny())) {
            for (int round = 0; round < 12; round++) {
                for (int i = 0; i < 600; i++) {
                    write(db, model, rnd);
                }
                if (round % 4 == 3) {
                    db.compactMemtable();
                }
                String where = "seed " + seed + " round " + round;
                for (int w = 0; w < 40; w++) {
                    Bounds b = Bounds.random(rnd);
                    try (Cursor c = db.cursor(b.lower, b.upper)) {
                        walk(c, b, model, rnd, where);
                    }
                }
                if (round % 3 == 0) {
                    snapshots.add(new Taken(db.snapshot(), new TreeMap<>(model)));
                }
                for (Taken t : snapshots) {
                    for (int w = 0; w < 5; w++) {
                        Bounds b = Bounds.random(rnd);
                        try (Cursor c = t.snapshot().cursor(b.lower, b.upper)) {
                            walk(c, b, t.model(), rnd, where + " snapshot " + t.snapshot().sequence());
                        }
                    }
                    byte[] k = ModelTest.key(rnd.nextInt(2000), rnd);
                    assertArrayEquals(t.model().get(k), t.snapshot().get(k), where + " snapshot get");
                }
            }
            for (Taken t : snapshots) {
                t.snapshot().close();
            }
            assertEquals(0, db.stats().openSnapshots());
        }
    }

    static void write(RemixDB db, NavigableMap<byte[], byte[]> model, Random rnd) throws Exception {
        int op = rnd.nextInt(10);
        if (op < 2) {
            WriteBatch batch = new WriteBatch();
            int n = 1 + rnd.nextInt(20);
            for (int i = 0; i < n; i++) {
                byte[] key = ModelTest.key(rnd.nextInt(2000), rnd);
                if (rnd.nextInt(4) == 0) {
                    batch.delete(key);
                    model.remove(key);
                } else {
                    byte[] value = value(rnd);
                    batch.put(key, value);
                    model.put(key, value);
                }
            }
            db.write(batch);
        } else if (op < 8) {
            byte[] key = ModelTest.key(rnd.nextInt(2000), rnd);
            byte[] value = value(rnd);
            db.put(key, value);
            model.put(key, value);
        } else {
            byte[] key = ModelTest.key(rnd.nextInt(2000), rnd);
            db.delete(key);
            model.remove(key);
        }
    }

    private static byte[] value(Random rnd) {
        byte[] v = new byte[rnd.nextInt(60)];
        rnd.nextBytes(v);
        return v;
    }

    /** Random bounds: open, or keys that may or may not be present. */
    record Bounds(byte[] lower, byte[] upper) {
        static Bounds random(Random rnd) {
            byte[] lower = rnd.nextInt(3) == 0 ? null : ModelTest.key(rnd.nextInt(2000), rnd);
            byte[] upper = rnd.nextInt(3) == 0 ? null : ModelTest.key(rnd.nextInt(2000), rnd);
            if (rnd.nextInt(8) == 0 && lower != null) {
                upper = lower;  // empty range
            }
            return new Bounds(lower, upper);
        }

        NavigableMap<byte[], byte[]> of(NavigableMap<byte[], byte[]> model) {
            if (lower != null && upper != null && Arrays.compareUnsigned(lower, upper) > 0) {
                return new TreeMap<>(Arrays::compareUnsigned);
            }
            NavigableMap<byte[], byte[]> m = model;
            if (lower != null) {
                m = m.tailMap(lower, true);
            }
            if (upper != null) {
                m = m.headMap(upper, false);
            }
            return m;
        }
    }

    /** Random steps, each checked: the cursor must sit where the model's navigation says. */
    static void walk(Cursor c, Bounds b, NavigableMap<byte[], byte[]> model, Random rnd, String where) {
        NavigableMap<byte[], byte[]> range = b.of(model);
        Map.Entry<byte[], byte[]> expected = null;
        StringBuilder steps = new StringBuilder();
        java.lang.foreign.MemorySegment view = null;
        for (int step = 0; step < 60; step++) {
            int op = expected == null ? rnd.nextInt(4) : rnd.nextInt(8);
            byte[] probe = ModelTest.key(rnd.nextInt(2100), rnd);
            switch (op) {
                case 0 -> {
                    c.seek(probe);
                    expected = range.ceilingEntry(probe);
                    steps.append(" seek ").append(new String(probe));
                }
                case 1 -> {
                    c.seekForPrev(probe);
                    expected = range.floorEntry(probe);
                    steps.append(" seekForPrev ").append(new String(probe));
                }
                case 2 -> {
                    c.seekToFirst();
                    expected = range.firstEntry();
                    steps.append(" first");
                }
                case 3 -> {
                    c.seekToLast();
                    expected = range.lastEntry();
                    steps.append(" last");
                }
                case 4, 5 -> {
                    c.next();
                    expected = range.higherEntry(expected.getKey());
                    steps.append(" next");
                }
                default -> {
                    c.prev();
                    expected = range.lowerEntry(expected.getKey());
                    steps.append(" prev");
                }
            }
            String at = where + ", bounds " + str(b.lower) + ".." + str(b.upper) + ", steps" + steps;
            if (view != null) {
                // Every step moved the cursor: the last step's view is dead.
                org.junit.jupiter.api.Assertions.assertFalse(view.scope().isAlive(), at + ": view outlived a move");
                view = null;
            }
            assertEquals(expected != null, c.isValid(), at);
            if (expected != null) {
                assertArrayEquals(expected.getKey(), c.key(), at);
                assertArrayEquals(expected.getValue(), c.value(), at);
                if (rnd.nextBoolean()) {
                    boolean ofKey = rnd.nextBoolean();
                    view = ofKey ? c.keyView() : c.valueView();
                    assertArrayEquals(ofKey ? expected.getKey() : expected.getValue(),
                            view.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), at + (ofKey ? " (key view)" : " (value view)"));
                }
            }
        }
    }

    private static String str(byte[] k) {
        return k == null ? "open" : new String(k);
    }
}
