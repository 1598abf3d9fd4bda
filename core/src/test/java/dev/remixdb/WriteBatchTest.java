package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link WriteBatch}: atomic visibility, order within a batch, bad input refused with nothing changed. */
class WriteBatchTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void laterOperationsOnAKeyWinAndEmptyBatchesWriteNothing() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(b("gone"), b("x"));
            WriteBatch batch = new WriteBatch().put(b("k"), b("1")).put(b("k"), b("2")).delete(b("gone"))
                    .put(b("d"), b("v")).delete(b("d"));
            db.write(batch);
            assertArrayEquals(b("2"), db.get(b("k")));
            assertNull(db.get(b("gone")));
            assertNull(db.get(b("d")));
            long user = db.stats().userBytesWritten();
            db.write(new WriteBatch());
            assertEquals(user, db.stats().userBytesWritten());
        }
        try (RemixDB db = RemixDB.open(dir)) {
            assertArrayEquals(b("2"), db.get(b("k")), "after reopen");
            assertNull(db.get(b("d")));
        }
    }

    @Test
    void theBatchCopiesWhatItIsGiven() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            byte[] key = b("key");
            byte[] value = b("value");
            WriteBatch batch = new WriteBatch().put(key, value);
            key[0] = 'X';
            value[0] = 'X';
            db.write(batch);
            assertArrayEquals(b("value"), db.get(b("key")));
            batch.clear();
            assertEquals(0, batch.size());
            assertEquals(0, batch.byteSize());
        }
    }

    @Test
    void badInputIsRefusedAndLeavesTheBatchAsItWas() {
        WriteBatch batch = new WriteBatch().put(b("a"), b("1"));
        long bytes = batch.byteSize();
        assertThrows(IllegalArgumentException.class, () -> batch.put(null, b("v")));
        assertThrows(IllegalArgumentException.class, () -> batch.put(b("k"), null));
        assertThrows(IllegalArgumentException.class, () -> batch.delete(null));
        assertThrows(IllegalArgumentException.class, () -> batch.put(new byte[Options.MAX_KEY_BYTES + 1], b("v")));
        assertThrows(IllegalArgumentException.class, () -> batch.put(b("k"), new byte[Options.MAX_VALUE_BYTES + 1]));
        assertEquals(1, batch.size());
        assertEquals(bytes, batch.byteSize());
    }

    @Test
    void aBatchOverTheLimitIsRefusedWhenTheOpThatCrossesItIsAdded() {
        WriteBatch batch = new WriteBatch();
        byte[] big = new byte[Options.MAX_VALUE_BYTES];
        int added = 0;
        IllegalArgumentException e = null;
        while (e == null) {
            try {
                batch.put(b("k" + added), big);
                added++;
            } catch (IllegalArgumentException x) {
                e = x;
            }
        }
        assertEquals(7, added, "seven 64 MiB values fit in 512 MiB with keys and overhead");
        assertTrue(e.getMessage().contains("split"), e.getMessage());
        assertEquals(7, batch.size());
    }

    @Test
    void writeOfNullAndAfterCloseAreClearErrors() throws Exception {
        RemixDB db = RemixDB.open(dir);
        assertThrows(IllegalArgumentException.class, () -> db.write(null));
        db.close();
        WriteBatch batch = new WriteBatch().put(b("k"), b("v"));
        assertThrows(ClosedException.class, () -> db.write(batch));
        try (RemixDB again = RemixDB.open(dir)) {
            assertNull(again.get(b("k")));
        }
    }

    /**
     * Each batch sets all ten keys to the same generation; readers, by cursor and by snapshot gets,
     * must never see two generations at once, while memtables switch and compactions run.
     */
    @Test
    void readersNeverSeePartOfABatch() throws Exception {
        Options tiny = Options.builder().memtableBytes(8 * 1024).tableBytes(4 * 1024).build();
        try (RemixDB db = RemixDB.open(dir, tiny)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<String> bad = new AtomicReference<>();
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                boolean useSnapshot = r == 1;
                readers.add(Thread.ofPlatform().start(() -> {
                    while (!stop.get() && bad.get() == null) {
                        List<String> seen = new ArrayList<>();
                        if (useSnapshot) {
                            try (Snapshot s = db.snapshot()) {
                                for (int i = 0; i < 10; i++) {
                                    byte[] v = s.get(b("key" + i));
                                    seen.add(v == null ? null : new String(v, StandardCharsets.UTF_8));
                                }
                            }
                        } else {
                            try (Cursor c = db.cursor(b("key"), b("key:"))) {
                                for (c.seekToLast(); c.isValid(); c.prev()) {
                                    seen.add(new String(c.value(), StandardCharsets.UTF_8));
                                }
                            }
                        }
                        if (seen.stream().distinct().count() > 1) {
                            bad.compareAndSet(null, "mixed generations: " + seen);
                        }
                    }
                }));
            }
            for (int gen = 0; gen < 3000; gen++) {
                WriteBatch batch = new WriteBatch();
                for (int i = 0; i < 10; i++) {
                    batch.put(b("key" + i), b("gen" + gen + "-" + "x".repeat(gen % 50)));
                }
                db.write(batch);
            }
            stop.set(true);
            for (Thread t : readers) {
                t.join();
            }
            assertNull(bad.get());
            assertTrue(db.stats().compactions().minor() + db.stats().compactions().major() > 0);
        }
    }

    /**
     * A crash while a batch's WAL record is being written: the WAL is cut at every point inside that
     * record (as a power loss or kill -9 leaves it), and the store reopened on a copy each time. The
     * batch must be entirely there or entirely absent; the batch before it always there.
     */
    @Test
    void aBatchCutAnywhereInTheWalIsAllOrNothing() throws Exception {
        Path live = dir.resolve("live");
        long before;
        long after;
        Path wal;
        try (RemixDB db = RemixDB.open(live)) {
            WriteBatch first = new WriteBatch();
            for (int i = 0; i < 10; i++) {
                first.put(b("a" + i), b("first" + i));
            }
            db.write(first);
            db.sync();
            wal = newestWal(live);
            before = java.nio.file.Files.size(wal);
            WriteBatch second = new WriteBatch();
            for (int i = 0; i < 10; i++) {
                second.put(b("b" + i), b("second" + i)).delete(b("a" + i));
            }
            db.write(second);
            db.sync();
            // The sync's own record (one synced op, 39 bytes) follows the batch's: cut before it.
            after = java.nio.file.Files.size(wal) - 39;
        }
        assertTrue(after > before + 100, "the second batch is one record of " + (after - before) + " bytes");
        int whole = 0;
        int none = 0;
        List<Long> cuts = new ArrayList<>();
        for (long cut = before; cut < after; cut += Math.max(1, (after - before) / 60)) {
            cuts.add(cut);
        }
        for (long end : new long[] {after - 1, after}) {
            if (!cuts.contains(end)) {  // the steps may land on them already
                cuts.add(end);
            }
        }
        for (long cut : cuts) {
            Path copy = dir.resolve("cut" + cut);
            copyDir(live, copy);
            try (var ch = java.nio.channels.FileChannel.open(copy.resolve(wal.getFileName()),
                    java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(cut);
            }
            try (RemixDB db = RemixDB.open(copy)) {
                boolean secondThere = db.get(b("b0")) != null;
                for (int i = 0; i < 10; i++) {
                    String at = "WAL cut at " + cut + " of " + before + ".." + after;
                    if (secondThere) {
                        assertArrayEquals(b("second" + i), db.get(b("b" + i)), at);
                        assertNull(db.get(b("a" + i)), at);
                    } else {
                        assertNull(db.get(b("b" + i)), at);
                        assertArrayEquals(b("first" + i), db.get(b("a" + i)), at);
                    }
                }
                if (secondThere) {
                    whole++;
                } else {
                    none++;
                }
            }
        }
        assertEquals(cuts.size() - 1, none, "every cut inside the record drops the whole batch");
        assertEquals(1, whole, "the complete record keeps it");
    }

    /**
     * An empty batch that rides in another writer's group commit used to reach the WAL as an empty
     * record, which the WAL refuses: the write failed, and the store with it. Logged, unlogged and
     * deferred batches each group with their own kind, so each kind is raced with its own writes.
     */
    @Test
    void emptyBatchesAmongConcurrentWritesWriteNothingAndFailNothing() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            for (String kind : List.of("logged", "unlogged", "deferred")) {
                AtomicReference<Throwable> error = new AtomicReference<>();
                AtomicBoolean done = new AtomicBoolean();
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < 30_000 && error.get() == null; i++) {
                            WriteBatch one = new WriteBatch().put(b(kind + i % 500), b("v" + i));
                            switch (kind) {
                                case "logged" -> db.write(one);
                                case "unlogged" -> db.writeUnlogged(one);
                                default -> db.writeDeferred(one);
                            }
                        }
                    } catch (Throwable t) {
                        error.compareAndSet(null, t);
                    } finally {
                        done.set(true);
                    }
                });
                try {
                    while (!done.get() && error.get() == null) {
                        switch (kind) {
                            case "logged" -> db.write(new WriteBatch());
                            case "unlogged" -> db.writeUnlogged(new WriteBatch());
                            default -> db.writeDeferred(new WriteBatch());
                        }
                    }
                } catch (Throwable t) {
                    error.compareAndSet(null, t);
                }
                writer.join();
                assertNull(error.get(), () -> kind + ": " + error.get());
                db.put(b("after " + kind), b("fine"));
                assertArrayEquals(b("fine"), db.get(b("after " + kind)));
                assertArrayEquals(b("v" + (29_500 + 499)), db.get(b(kind + 499)), kind);
            }
        }
    }

    private static Path newestWal(Path dir) throws java.io.IOException {
        try (var files = java.nio.file.Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".wal")).max(java.util.Comparator.naturalOrder()).orElseThrow();
        }
    }

    private static void copyDir(Path from, Path to) throws java.io.IOException {
        java.nio.file.Files.createDirectories(to);
        try (var files = java.nio.file.Files.list(from)) {
            for (Path p : files.toList()) {
                if (!p.getFileName().toString().equals("LOCK")) {
                    java.nio.file.Files.copy(p, to.resolve(p.getFileName()));
                }
            }
        }
    }
}
