package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RemixDB#checkpoint}: what a checkpoint holds (the model at its moment, whatever the store
 * had in tables, frozen and active memtables, old WALs or unlogged writes), under concurrent writers
 * and compactions, with links and with copies, its argument rules, and kill -9 in the middle of one.
 */
class CheckpointTest {
    @TempDir
    Path tmp;

    private static Options small() {
        return Options.builder().memtableBytes(64 * 1024).tableBytes(16 * 1024).blockCacheBytes(1 << 20).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** As the README says: an interrupted checkpoint ends with InterruptedIOException, leaving no target. */
    @Test
    void anInterruptedCheckpointThrowsInterruptedIOException() throws Exception {
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), Options.builder().memtableBytes(64 << 10).build())) {
            for (int i = 0; i < 2000; i++) {
                db.put(b("key" + i), new byte[100]);
            }
            db.compactMemtable();
            Path target = tmp.resolve("cp");
            Thread.currentThread().interrupt();
            try {
                assertThrows(java.io.InterruptedIOException.class, () -> db.checkpoint(target, false));
                assertTrue(Thread.interrupted(), "the interrupt status is kept");
            } finally {
                Thread.interrupted();
            }
            assertFalse(Files.exists(target));
            db.checkpoint(target, false);
            try (RemixDB cp = RemixDB.open(target)) {
                assertEquals(100, cp.get(b("key1999")).length);
            }
        }
    }

    private static Map<String, String> contents(RemixDB db) {
        Map<String, String> out = new TreeMap<>();
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                out.put(new String(c.key(), StandardCharsets.UTF_8), new String(c.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    @Test
    void twoCheckpointsToOneTargetAtOnceLeaveOneWholeCheckpoint() throws Exception {
        try (RemixDB db = RemixDB.open(tmp.resolve("db"), small())) {
            for (int i = 0; i < 5_000; i++) {
                db.put(b(String.format("k%06d", i)), b("v" + i));
            }
            Map<String, String> expected = contents(db);
            // The second call names the same directory through a symbolic link to its parent.
            Path real = java.nio.file.Files.createDirectories(tmp.resolve("real"));
            Path link = java.nio.file.Files.createSymbolicLink(tmp.resolve("link"), real);
            for (int round = 0; round < 10; round++) {
                Path target = real.resolve("cp-" + round);
                Path[] names = {target, link.resolve("cp-" + round)};
                AtOnce.oneMakesItTheOtherIsRefused("round " + round, i -> db.checkpoint(names[i]));
                assertCheckpointHolds(target, expected);
            }
        }
    }

    /** Opens the checkpoint, checks it against {@code expected} and verifies it once closed. */
    private static void assertCheckpointHolds(Path cp, Map<String, String> expected) throws IOException {
        try (RemixDB copy = RemixDB.open(cp, small())) {
            assertEquals(expected, contents(copy), "checkpoint " + cp);
        }
        VerifyReport report = RemixDB.verify(cp);
        assertTrue(report.ok(), report.toString());
    }

    @Test
    void checkpointsHoldTheModelAtTheirMoment() throws Exception {
        for (boolean links : new boolean[] {true, false}) {
            Path dir = tmp.resolve("store-" + links);
            Random r = new Random(links ? 11 : 12);
            TreeMap<String, String> model = new TreeMap<>();
            List<Map<String, String>> expected = new ArrayList<>();
            List<Path> cps = new ArrayList<>();
            try (RemixDB db = RemixDB.open(dir, small())) {
                for (int round = 0; round < 4; round++) {
                    for (int i = 0; i < 3000; i++) {
                        String k = "k" + r.nextInt(2000);
                        if (r.nextInt(6) == 0) {
                            db.delete(b(k));
                            model.remove(k);
                        } else {
                            String v = "v" + round + "-" + i + "-" + "x".repeat(r.nextInt(60));
                            if (round == 2 && i % 3 == 0) {
                                // Unlogged writes: the checkpoint puts them into tables first.
                                WriteBatch wb = new WriteBatch();
                                wb.put(b(k), b(v));
                                db.writeUnlogged(wb);
                            } else {
                                db.put(b(k), b(v));
                            }
                            model.put(k, v);
                        }
                    }
                    Path cp = tmp.resolve("cp-" + links + "-" + round);
                    CheckpointReport report = db.checkpoint(cp, links);
                    assertEquals(cp.toAbsolutePath().normalize(), report.dir());
                    assertTrue(report.filesCopied() >= 1, "the active WAL is copied: " + report);
                    if (links) {
                        assertTrue(report.filesLinked() > 0, "tables are linked: " + report);
                    } else {
                        assertEquals(0, report.filesLinked(), report.toString());
                    }
                    expected.add(new TreeMap<>(model));
                    cps.add(cp);
                    // The store goes on, and what it does afterwards stays out of the checkpoint.
                    db.put(b("after-" + round), b("x"));
                    model.put("after-" + round, "x");
                }
                // Every checkpoint still holds its moment while the store keeps compacting.
                for (int i = 0; i < cps.size(); i++) {
                    assertCheckpointHolds(cps.get(i), expected.get(i));
                }
                assertEquals(model, contents(db));
            }
        }
    }

    @Test
    void checkpointAfterRecoveryTakesTheOlderWals() throws Exception {
        Path dir = tmp.resolve("store");
        Map<String, String> model = new TreeMap<>();
        try (RemixDB db = RemixDB.open(dir, small())) {
            for (int i = 0; i < 200; i++) {
                db.put(b("a" + i), b("v" + i));
                model.put("a" + i, "v" + i);
            }
        }
        // Reopened, the memtable holds the writes of the old WAL while a new one takes writes.
        try (RemixDB db = RemixDB.open(dir, small())) {
            db.put(b("b"), b("w"));
            model.put("b", "w");
            Path cp = tmp.resolve("cp");
            db.checkpoint(cp);
            assertCheckpointHolds(cp, model);
        }
        Path empty = tmp.resolve("empty");
        try (RemixDB db = RemixDB.open(empty, small())) {
            db.checkpoint(tmp.resolve("cp-empty"));
        }
        assertCheckpointHolds(tmp.resolve("cp-empty"), Map.of());
    }

    /**
     * Writers on three threads, each writing its own keys in order, while checkpoints are taken and
     * compactions install: each checkpoint holds, per writer, exactly its first n writes for an n
     * between what was acknowledged before the call and what was acknowledged when it returned.
     */
    @Test
    void concurrentWritersSeeOneMoment() throws Exception {
        Path dir = tmp.resolve("store");
        int writers = 3;
        AtomicLong[] acked = new AtomicLong[writers];
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (RemixDB db = RemixDB.open(dir, small())) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < writers; t++) {
                int id = t;
                acked[t] = new AtomicLong();
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (long i = 0; !stop.get(); i++) {
                            WriteBatch wb = new WriteBatch();
                            wb.put(b(String.format("w%d-%08d", id, i)), b("value-" + i + "-" + "y".repeat(40)));
                            wb.put(b("w" + id + "-last"), b(Long.toString(i)));
                            if (i % 7 == 0) {
                                db.writeUnlogged(wb);
                            } else {
                                db.write(wb);
                            }
                            acked[id].set(i + 1);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (int n = 0; n < 8; n++) {
                Thread.sleep(40);
                long[] before = new long[writers];
                for (int t = 0; t < writers; t++) {
                    before[t] = acked[t].get();
                }
                Path cp = tmp.resolve("cp-" + n);
                db.checkpoint(cp);
                long[] after = new long[writers];
                for (int t = 0; t < writers; t++) {
                    after[t] = acked[t].get();
                }
                try (RemixDB copy = RemixDB.open(cp, small())) {
                    for (int t = 0; t < writers; t++) {
                        byte[] last = copy.get(b("w" + t + "-last"));
                        long count = last == null ? 0 : Long.parseLong(new String(last, StandardCharsets.UTF_8)) + 1;
                        assertTrue(count >= before[t] && count <= after[t] + 1,
                                "writer " + t + ": " + count + " writes, acknowledged " + before[t] + " before and "
                                        + after[t] + " after");
                        long keys = 0;
                        byte[] lower = b("w" + t + "-0");
                        byte[] upper = b("w" + t + "-9");
                        try (Cursor c = copy.cursor(lower, upper)) {
                            for (c.seekToFirst(); c.isValid(); c.next()) {
                                assertArrayEquals(b(String.format("w%d-%08d", t, keys)), c.key(), "a gap in writer " + t);
                                keys++;
                            }
                        }
                        assertEquals(count, keys, "writer " + t + ": its batches are whole and in order");
                    }
                }
                assertTrue(RemixDB.verify(cp).ok());
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertNull(failure.get());
        }
    }

    @Test
    void badTargetsAreRefusedAndChangeNothing() throws Exception {
        Path dir = tmp.resolve("store");
        try (RemixDB db = RemixDB.open(dir, small())) {
            db.put(b("k"), b("v"));
            Path exists = Files.createDirectories(tmp.resolve("exists"));
            Files.writeString(exists.resolve("mine.txt"), "user data");
            assertThrows(FileAlreadyExistsException.class, () -> db.checkpoint(exists));
            assertEquals("user data", Files.readString(exists.resolve("mine.txt")));
            assertThrows(IllegalArgumentException.class, () -> db.checkpoint(dir.resolve("inside")));
            assertThrows(IllegalArgumentException.class, () -> db.checkpoint(dir));
            assertThrows(IllegalArgumentException.class, () -> db.checkpoint(null));
            assertFalse(Files.exists(dir.resolve("inside")));
            // A partial directory left by a crash is replaced, and the checkpoint lands.
            Path cp = tmp.resolve("cp");
            Files.createDirectories(tmp.resolve(".cp.checkpoint-partial"));
            Files.writeString(tmp.resolve(".cp.checkpoint-partial").resolve("junk"), "x");
            db.checkpoint(cp);
            assertFalse(Files.exists(tmp.resolve(".cp.checkpoint-partial")));
            assertEquals("v", new String(db.get(b("k")), StandardCharsets.UTF_8));
        }
        assertCheckpointHolds(tmp.resolve("cp"), Map.of("k", "v"));
        RemixDB closed = RemixDB.open(tmp.resolve("other"), small());
        closed.close();
        assertThrows(ClosedException.class, () -> closed.checkpoint(tmp.resolve("cp-closed")));
        assertFalse(Files.exists(tmp.resolve("cp-closed")));
    }

    /**
     * A process checkpointing in a loop under writes, killed with SIGKILL at random moments: the
     * store opens and verifies; every checkpoint that appeared opens, verifies and holds the state
     * after some prefix of the writes; a new checkpoint to any name then succeeds.
     */
    @Test
    void killNineDuringCheckpoints() throws Exception {
        Random r = new Random(5);
        for (int round = 0; round < 3; round++) {
            Path dir = tmp.resolve("store-" + round);
            Path parent = tmp.resolve("cps-" + round);
            KilledChild child = KilledChild.start(CheckpointChild.class, "C", dir.toString(), parent.toString());
            long minimum = 2 + r.nextInt(4);
            long last = child.killWhen(() -> child.lines() >= minimum, r.nextInt(30));
            assertTrue(last >= minimum - 1);
            VerifyReport store = RemixDB.verify(dir);
            assertTrue(store.ok(), store.toString());
            List<Path> cps;
            try (Stream<Path> s = Files.list(parent)) {
                cps = s.filter(p -> p.getFileName().toString().startsWith("cp-")).sorted().toList();
            }
            // Checkpoint last+1 may have landed just before the kill, unreported.
            assertTrue(cps.size() == last + 1 || cps.size() == last + 2, cps + " but the child reported " + last);
            for (Path cp : cps) {
                assertTrue(RemixDB.verify(cp).ok(), cp.toString());
                try (RemixDB copy = RemixDB.open(cp, CrashChild.options())) {
                    assertPrefixState(copy, cp);
                }
            }
            try (RemixDB db = RemixDB.open(dir, CrashChild.options())) {
                db.checkpoint(parent.resolve("cp-" + cps.size()));
                db.checkpoint(parent.resolve("again"));
            }
            assertTrue(RemixDB.verify(parent.resolve("again")).ok());
        }
    }

    /** The copy equals the state after operations 0..X of {@link CrashChild} for some X. */
    static void assertPrefixState(RemixDB copy, Path cp) {
        Map<String, byte[]> seen = new TreeMap<>();
        long max = -1;
        try (Cursor c = copy.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                seen.put(new String(c.key(), StandardCharsets.UTF_8), c.value());
                max = Math.max(max, CrashChild.operation(c.value()));
            }
        }
        // The newest operation is the newest value seen, or the delete right after it.
        for (long x = max; x <= max + 1; x++) {
            Map<String, byte[]> model = new TreeMap<>();
            for (long i = 0; i <= x; i++) {
                String k = new String(CrashChild.key(i), StandardCharsets.UTF_8);
                if (CrashChild.isDelete(i)) {
                    model.remove(k);
                } else {
                    model.put(k, CrashChild.value(i));
                }
            }
            if (sameContents(model, seen)) {
                return;
            }
        }
        throw new AssertionError(cp + " holds no prefix of the writes (newest operation seen " + max + ")");
    }

    private static boolean sameContents(Map<String, byte[]> a, Map<String, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (Map.Entry<String, byte[]> e : a.entrySet()) {
            if (!Arrays.equals(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
