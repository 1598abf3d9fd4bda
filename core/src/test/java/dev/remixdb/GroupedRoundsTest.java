package dev.remixdb;

import dev.remixdb.compaction.RemixDbPolicy;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compaction rounds that absorb several frozen memtables at once. Compaction is held at a gate
 * while a writer fills every frozen slot with puts, overwrites, deletes and range deletes of the
 * same keys (so that members of one round hold versions of the same key, and a newer member's range
 * delete covers an older member's puts); then the gate opens. The store must answer as a
 * {@code TreeMap} model does while it runs, once idle, after a reopen, and only the WALs of memtables
 * not yet compacted may be left. The stats must show rounds that took more than one memtable, or
 * the test proves nothing about them.
 */
class GroupedRoundsTest {
    private static final int KEYS = 2000;

    @TempDir
    Path dir;

    /**
     * Waits until {@code writer} has stood parked without a timeout (a stall) for 100 ms running, or
     * its writes ended; a writer slowed by back-pressure parks with a timeout.
     */
    private static void awaitStalled(Thread writer, Future<?> writes, long deadline, String where)
            throws InterruptedException {
        int still = 0;
        while (still < 20 && !writes.isDone()) {
            assertTrue(System.nanoTime() < deadline, where + ": the writer never stalled");
            Thread.sleep(5);
            still = writer.getState() == Thread.State.WAITING ? still + 1 : 0;
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void roundsOfSeveralMemtablesKeepTheNewestVersions(int maxFrozen) throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        String where = "seed " + seed + ", " + maxFrozen + " frozen";
        BackPressureTest.SlowPolicy policy = new BackPressureTest.SlowPolicy(
                RemixDbPolicy.builder().maxTables(4).abortBelowFraction(1.0).build(), 3, new CountDownLatch(0));
        Options options = Options.builder().memtableBytes(32 * 1024).tableBytes(32 * 1024)
                .blockCacheBytes(256 * 1024).maxFrozenMemtables(maxFrozen).abortFraction(0.5)
                .compactionPolicy(policy).build();
        TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        java.util.concurrent.atomic.AtomicReference<Thread> writerThread = new java.util.concurrent.atomic.AtomicReference<>();
        ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "grouped-rounds-writer");
            writerThread.set(t);
            return t;
        });
        try (RemixDB db = RemixDB.open(dir, options)) {
            for (int pass = 0; pass < 3; pass++) {
                int ops = 6000;
                // Range deletes in the middle pass only: a partition that meets one is merged whole,
                // so the passes without them are where minor, major and aborted partitions span members.
                boolean ranges = pass == 1;
                // Each pass's first round waits at its own gate (opened below, before the next).
                CountDownLatch gate = new CountDownLatch(1);
                policy.gate(gate);
                Future<?> writes = writer.submit(() -> {
                    for (int i = 0; i < ops; i++) {
                        write(db, model, rnd, i, ranges, i < ops / 2);
                    }
                    return null;
                });
                // Every frozen slot taken while the first round waits at the gate: the next round
                // finds them all.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (db.stats().frozenMemtables() < maxFrozen && !writes.isDone()) {
                    assertTrue(System.nanoTime() < deadline, where + ": the frozen slots never filled");
                    Thread.sleep(2);
                }
                // The writer fills the active memtable too, slowed on the way (parked with a
                // timeout), and stalls on it (parked without one) until the round ends.
                awaitStalled(writerThread.get(), writes, deadline, where);
                gate.countDown();
                writes.get(60, TimeUnit.SECONDS);
                check(db, model, where + " after pass " + pass);
            }
            db.compactMemtable();
            check(db, model, where + " once compacted");
            Stats.Compactions c = db.stats().compactions();
            assertTrue(c.memtables() > c.rounds(), where + ": no round took more than one memtable: " + c);
            assertTrue(c.minor() > 0 && c.abort() > 0, where + ": rounds without minor compactions or aborts: " + c);
            // Nothing is frozen or compacting after compactMemtable: the bean reads the same counts.
            assertEquals(c.rounds(), db.statsBean().getCompactionRounds(), where);
            assertEquals(c.memtables(), db.statsBean().getCompactedMemtables(), where);
        }
        try (RemixDB db = RemixDB.open(dir, options)) {
            check(db, model, where + " after reopen");
            db.compactMemtable();
            check(db, model, where + " after reopen and compaction");
            try (Stream<Path> files = Files.list(dir)) {
                long wals = files.filter(p -> p.getFileName().toString().endsWith(".wal")).count();
                assertTrue(wals <= 2, where + ": " + wals + " WAL files left after compaction");
            }
        }
    }

    /**
     * One random write of the model's key space: mostly puts, some deletes, and small range deletes
     * if {@code ranges}; outside the hot keys only if {@code everywhere}.
     */
    private static void write(RemixDB db, TreeMap<byte[], byte[]> model, Random rnd, int i, boolean ranges,
                              boolean everywhere) throws Exception {
        // Most writes in a hot tenth of the keys: the partitions outside it get little new data
        // per round, so compaction keeps theirs in memory (aborts) while it writes the hot ones.
        // A quarter go to every 50th key, written again and again: the versions an abort keeps
        // then come from several memtables of one round, and only the newest may go back. In the
        // second half of a pass only hot keys are written, so a wrong version put back stays
        // wrong until the pass's check instead of being overwritten.
        int r = everywhere ? rnd.nextInt(20) : 8;
        int k = r < 3 ? rnd.nextInt(KEYS) : r < 8 ? 50 * rnd.nextInt(KEYS / 50) : rnd.nextInt(KEYS / 10);
        int op = rnd.nextInt(40);
        if (op == 0 && ranges) {
            byte[] from = key(k);
            byte[] to = key(Math.min(KEYS, k + 1 + rnd.nextInt(40)));
            db.deleteRange(from, to);
            model.subMap(from, to).clear();
        } else if (op < 6) {
            db.delete(key(k));
            model.remove(key(k));
        } else {
            byte[] value = (i + "-" + "v".repeat(rnd.nextInt(60))).getBytes(StandardCharsets.UTF_8);
            db.put(key(k), value);
            model.put(key(k), value);
        }
    }

    private static byte[] key(int k) {
        return String.format("key-%05d", k).getBytes(StandardCharsets.UTF_8);
    }

    private static void check(RemixDB db, TreeMap<byte[], byte[]> model, String where) throws Exception {
        for (int k = 0; k < KEYS; k++) {
            assertArrayEquals(model.get(key(k)), db.get(key(k)), where + ": get " + k);
        }
        try (Cursor c = db.cursor()) {
            c.seekToFirst();
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                assertTrue(c.isValid(), where + ": the scan ended before " + new String(e.getKey(), StandardCharsets.UTF_8));
                assertArrayEquals(e.getKey(), c.key(), where + ": scan key");
                assertArrayEquals(e.getValue(), c.value(), where + ": scan value");
                c.next();
            }
            assertFalse(c.isValid(), where + ": the scan found keys the model does not hold");
        }
        assertEquals(model.size(), count(db), where + ": entries");
    }

    private static int count(RemixDB db) throws Exception {
        int n = 0;
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                n++;
            }
        }
        return n;
    }
}
