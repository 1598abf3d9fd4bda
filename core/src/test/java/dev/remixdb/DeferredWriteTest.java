package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RemixDB#writeDeferred}: deferred writes are unseen until published (by
 * {@link RemixDB#publishDeferred}, any other write, sync, a memtable compaction, a checkpoint,
 * close, or a full memtable), become visible in the order written, never inside a snapshot taken
 * before, and are as durable as unlogged writes. Kill and power-cut runs of deferred restores are
 * in {@link UnloggedWriteTest} and the reliability suite's power-loss test.
 */
class DeferredWriteTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void deferredWritesAreUnseenUntilPublishedAndEveryOtherTurnPublishes() throws Exception {
        try (RemixDB db = RemixDB.open(dir.resolve("a"))) {
            db.put(b("k"), b("old"));
            long wal = db.stats().walBytesWritten();
            db.writeDeferred(new WriteBatch().put(b("k"), b("new")).put(b("d1"), b("1")));
            assertArrayEquals(b("old"), db.get(b("k")), "unpublished");
            assertNull(db.get(b("d1")));
            assertEquals(List.of("k"), keys(db));
            try (Snapshot before = db.snapshot()) {
                db.publishDeferred();
                assertArrayEquals(b("new"), db.get(b("k")));
                assertArrayEquals(b("1"), db.get(b("d1")));
                assertArrayEquals(b("old"), before.get(b("k")), "a snapshot never sees a later publish");
                assertNull(before.get(b("d1")));
            }
            assertEquals(wal, db.stats().walBytesWritten(), "deferred writes add nothing to the WAL");

            // Each kind of turn publishes what was deferred before it.
            db.writeDeferred(new WriteBatch().put(b("d2"), b("2")));
            db.put(b("p"), b("x"));
            assertArrayEquals(b("2"), db.get(b("d2")), "a put publishes");
            db.writeDeferred(new WriteBatch().delete(b("d2")));
            db.writeUnlogged(new WriteBatch().put(b("u"), b("y")));
            assertNull(db.get(b("d2")), "an unlogged write publishes");
            db.writeDeferred(new WriteBatch().put(b("d3"), b("3")));
            db.sync();
            assertArrayEquals(b("3"), db.get(b("d3")), "sync publishes");
            db.writeDeferred(new WriteBatch().put(b("d4"), b("4")));
            db.compactMemtable();
            assertArrayEquals(b("4"), db.get(b("d4")), "a memtable compaction publishes");
            db.writeDeferred(new WriteBatch().put(b("d5"), b("5")));
            db.checkpoint(dir.resolve("cp"));
            assertArrayEquals(b("5"), db.get(b("d5")), "a checkpoint publishes");
            db.writeDeferred(new WriteBatch().put(b("d6"), b("6")));
            db.compute(b("c"), v -> b("7"));
            assertArrayEquals(b("6"), db.get(b("d6")), "a read-modify-write publishes");
            // The value a compute reads ahead, before its turn, cannot see a deferred write; the
            // function must get the one its turn published.
            db.writeDeferred(new WriteBatch().put(b("c"), b("8")));
            assertArrayEquals(b("8+"), db.compute(b("c"), v -> b(new String(v, StandardCharsets.UTF_8) + "+")));
            db.writeDeferred(new WriteBatch().put(b("d7"), b("7")));
        }
        try (RemixDB db = RemixDB.open(dir.resolve("a"))) {
            assertArrayEquals(b("7"), db.get(b("d7")), "close publishes and persists");
            assertArrayEquals(b("new"), db.get(b("k")));
            assertEquals(List.of("c", "d1", "d3", "d4", "d5", "d6", "d7", "k", "p", "u"), keys(db));
            assertArrayEquals(b("8+"), db.get(b("c")));
        }
        try (RemixDB cp = RemixDB.open(dir.resolve("cp"))) {
            assertArrayEquals(b("5"), cp.get(b("d5")), "the checkpoint holds what it published");
        }
        assertTrue(RemixDB.verify(dir.resolve("a")).ok());
    }

    @Test
    void badInputChangesNothingAndAClosedStoreRefuses() throws Exception {
        RemixDB db = RemixDB.open(dir.resolve("b"));
        try {
            WriteBatch withRange = new WriteBatch().put(b("x"), b("1")).deleteRange(b("a"), b("b"));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> db.writeDeferred(withRange));
            assertTrue(e.getMessage().contains("range"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> db.writeDeferred(null));
            db.publishDeferred();
            assertNull(db.get(b("x")), "a refused batch writes nothing");
        } finally {
            db.close();
        }
        assertThrows(ClosedException.class, () -> db.writeDeferred(new WriteBatch().put(b("x"), b("1"))));
        assertThrows(ClosedException.class, db::publishDeferred);
    }

    /**
     * A stream of deferred batches through small memtables: full memtables publish on their own, and
     * what is visible is always a prefix of the batches (each batch overwrites a marker key and adds
     * its own keys). At the end everything reads back, after a reopen too.
     */
    @Test
    void fullMemtablesPublishAPrefixOfTheBatches() throws Exception {
        Options options = Options.builder().memtableBytes(64 * 1024).tableBytes(32 * 1024).build();
        Path path = dir.resolve("c");
        int batches = 400;
        try (RemixDB db = RemixDB.open(path, options)) {
            long published = -1;
            for (int i = 0; i < batches; i++) {
                WriteBatch wb = new WriteBatch().put(b("marker"), b(Integer.toString(i)));
                for (int j = 0; j < 20; j++) {
                    wb.put(key(i, j), b("v" + i + "/" + j));
                }
                db.writeDeferred(wb);
                byte[] m = db.get(b("marker"));
                long seen = m == null ? -1 : Long.parseLong(new String(m, StandardCharsets.UTF_8));
                assertTrue(seen >= published && seen <= i, "marker " + seen + " after batch " + i);
                published = seen;
                if (seen >= 0) {
                    assertArrayEquals(b("v" + seen + "/19"), db.get(key((int) seen, 19)), "batch " + seen + " whole");
                }
                byte[] next = db.get(key((int) seen + 1, 0));
                assertNull(next, "batch " + (seen + 1) + " unpublished while the marker shows " + seen);
            }
            assertTrue(published > 0, "full memtables published some batches on their own");
        }
        try (RemixDB db = RemixDB.open(path, options)) {
            for (int i = 0; i < batches; i++) {
                for (int j = 0; j < 20; j += 7) {
                    assertArrayEquals(b("v" + i + "/" + j), db.get(key(i, j)), "batch " + i + " after reopen");
                }
            }
        }
        assertTrue(RemixDB.verify(path).ok());
    }

    /** Random puts, deletes, deferred batches and publishes against a model; then reopened. */
    @Test
    void randomDeferredAndOrdinaryWritesMatchTheModel() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        List<byte[][]> pending = new ArrayList<>();
        Path path = dir.resolve("d");
        try (RemixDB db = RemixDB.open(path)) {
            for (int op = 0; op < 4_000; op++) {
                byte[] key = b("k" + rnd.nextInt(500));
                int kind = rnd.nextInt(10);
                if (kind < 6) {
                    WriteBatch wb = new WriteBatch();
                    for (int i = rnd.nextInt(8); i >= 0; i--) {
                        byte[] k = b("k" + rnd.nextInt(500));
                        byte[] v = rnd.nextInt(5) == 0 ? null : b("v" + op + "/" + i);
                        if (v == null) {
                            wb.delete(k);
                        } else {
                            wb.put(k, v);
                        }
                        pending.add(new byte[][] {k, v});
                    }
                    db.writeDeferred(wb);
                } else if (kind < 8) {
                    applyPending(model, pending);
                    db.put(key, b("p" + op));
                    model.put(key, b("p" + op));
                } else if (kind < 9) {
                    applyPending(model, pending);
                    db.delete(key);
                    model.remove(key);
                } else {
                    applyPending(model, pending);
                    db.publishDeferred();
                }
                if (op % 400 == 0) {
                    assertEquals(render(model), render(contents(db)), "seed " + seed + " op " + op);
                }
            }
            applyPending(model, pending);
            db.publishDeferred();
            assertEquals(render(model), render(contents(db)), "seed " + seed + " at the end");
        }
        try (RemixDB db = RemixDB.open(path)) {
            assertEquals(render(model), render(contents(db)), "seed " + seed + " after reopen");
        }
    }

    /**
     * Three threads write deferred batches of their own keys in order while a fourth publishes now
     * and then and two read: a reader that sees a thread's batch sees all its earlier ones.
     */
    @Test
    void concurrentDeferredWritersPublishInOrder() throws Exception {
        Options options = Options.builder().memtableBytes(256 * 1024).tableBytes(64 * 1024).build();
        Path path = dir.resolve("e");
        int perThread = 300;
        try (RemixDB db = RemixDB.open(path, options);
             ExecutorService pool = Executors.newFixedThreadPool(6)) {
            AtomicBoolean done = new AtomicBoolean();
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        WriteBatch wb = new WriteBatch();
                        for (int j = 0; j < 10; j++) {
                            wb.put(b("t" + thread + "/" + String.format("%05d", i) + "/" + j), b("v" + i));
                        }
                        db.writeDeferred(wb);
                    }
                    return null;
                }));
            }
            futures.add(pool.submit(() -> {
                while (!done.get()) {
                    db.publishDeferred();
                    Thread.sleep(2);
                }
                return null;
            }));
            for (int r = 0; r < 2; r++) {
                futures.add(pool.submit(() -> {
                    while (!done.get()) {
                        for (int t = 0; t < 3; t++) {
                            checkPrefix(db, t);
                        }
                    }
                    return null;
                }));
            }
            for (int i = 0; i < 3; i++) {
                futures.get(i).get();
            }
            done.set(true);
            for (Future<?> f : futures) {
                f.get();
            }
            db.publishDeferred();
            for (int t = 0; t < 3; t++) {
                assertEquals(perThread * 10, count(db, "t" + t + "/"));
            }
        }
        assertTrue(RemixDB.verify(path).ok());
    }

    /** The keys of thread {@code t} that a reader sees form whole batches 0..n-1. */
    private static void checkPrefix(RemixDB db, int t) {
        try (Snapshot s = db.snapshot(); Cursor c = s.cursor(b("t" + t + "/"), b("t" + t + "0"))) {
            int n = 0;
            for (c.seekToFirst(); c.isValid(); c.next()) {
                String k = new String(c.key(), StandardCharsets.UTF_8);
                String want = "t" + t + "/" + String.format("%05d", n / 10) + "/" + n % 10;
                assertEquals(want, k, "thread " + t + "'s batches are visible in order and whole");
                n++;
            }
            assertEquals(0, n % 10, "whole batches only");
        }
    }

    private static int count(RemixDB db, String prefix) {
        int n = 0;
        try (Cursor c = db.cursor(b(prefix), null)) {
            for (c.seekToFirst(); c.isValid() && new String(c.key(), StandardCharsets.UTF_8).startsWith(prefix); c.next()) {
                n++;
            }
        }
        return n;
    }

    private static byte[] key(int batch, int j) {
        return b(String.format("b%05d/%02d", batch, j));
    }

    private static void applyPending(TreeMap<byte[], byte[]> model, List<byte[][]> pending) {
        for (byte[][] kv : pending) {
            if (kv[1] == null) {
                model.remove(kv[0]);
            } else {
                model.put(kv[0], kv[1]);
            }
        }
        pending.clear();
    }

    private static TreeMap<byte[], byte[]> contents(RemixDB db) {
        TreeMap<byte[], byte[]> out = new TreeMap<>(Arrays::compareUnsigned);
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                out.put(c.key(), c.value());
            }
        }
        return out;
    }

    private static String render(TreeMap<byte[], byte[]> m) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<byte[], byte[]> e : m.entrySet()) {
            sb.append(new String(e.getKey(), StandardCharsets.UTF_8)).append('=')
                    .append(new String(e.getValue(), StandardCharsets.UTF_8)).append('\n');
        }
        return sb.toString();
    }

    private static List<String> keys(RemixDB db) {
        List<String> out = new ArrayList<>();
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                out.add(new String(c.key(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }
}
