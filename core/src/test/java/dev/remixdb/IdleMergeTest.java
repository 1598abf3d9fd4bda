package dev.remixdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.compaction.CompactionPlan;
import dev.remixdb.compaction.CompactionPolicy;
import dev.remixdb.compaction.RangeReducePolicy;
import dev.remixdb.compaction.RemixDbPolicy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idle merges: a partition that scans keep meeting with debt (RangeReduce), or with many runs
 * ({@code RemixDbPolicy.withIdleMerges()}), but that no write reaches, is merged by the compactor on its own while no
 * memtable waits; and the running budget of optional bytes bounds both those merges and the ones
 * RangeReduce adds at flushes.
 */
class IdleMergeTest {
    @TempDir
    Path dir;

    /** The compactor looks for idle merges every 50 ms here instead of every second. */
    @org.junit.jupiter.api.BeforeAll
    static void lookOften() {
        System.setProperty("remixdb.idleMergeMillis", "50");
    }

    @org.junit.jupiter.api.AfterAll
    static void lookAsUsual() {
        System.clearProperty("remixdb.idleMergeMillis");
    }

    /** New data always becomes new tables: every stale version stays until a merge. */
    private static final CompactionPolicy MINOR_ONLY = p -> p.newKeys() == 0 ? CompactionPlan.ABORT : CompactionPlan.MINOR;

    private static RangeReducePolicy rangeReduce(double budget) {
        return RangeReducePolicy.builder(MINOR_ONLY).minDebtFraction(0).minScanned(100).budget(budget).build();
    }

    private static Options options(CompactionPolicy policy) {
        return Options.builder().memtableBytes(1 << 20).tableBytes(1 << 20).compactionPolicy(policy).build();
    }

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** Two versions of keys 0..n-1 in two tables, and every third key deleted in a third. */
    private static NavigableMap<String, byte[]> writeDebt(RemixDB db, int n) throws Exception {
        NavigableMap<String, byte[]> model = new TreeMap<>();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < n; i++) {
                byte[] v = {(byte) round, (byte) i};
                db.put(key(i), v);
                model.put(new String(key(i), StandardCharsets.UTF_8), v);
            }
            db.compactMemtable();
        }
        for (int i = 0; i < n; i += 3) {
            db.delete(key(i));
            model.remove(new String(key(i), StandardCharsets.UTF_8));
        }
        db.compactMemtable();
        return model;
    }

    private static void scanAll(RemixDB db) {
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                c.key();
            }
        }
    }

    private static void assertSame(NavigableMap<String, byte[]> model, RemixDB db) {
        NavigableMap<String, byte[]> seen = new TreeMap<>();
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                seen.put(new String(c.key(), StandardCharsets.UTF_8), c.value());
            }
        }
        assertEquals(model.keySet(), seen.keySet());
        for (Map.Entry<String, byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getValue(), seen.get(e.getKey()), e.getKey());
            assertArrayEquals(e.getValue(), db.get(e.getKey().getBytes(StandardCharsets.UTF_8)), e.getKey());
        }
    }

    /** Waits up to 2 minutes (the compactor looks every 50 ms here) for {@code n} idle merges. */
    private static Stats awaitIdleMerges(RemixDB db, long n) throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        Stats s = db.stats();
        while (s.compactions().idle() < n && System.nanoTime() < deadline) {
            Thread.sleep(50);
            s = db.stats();
        }
        // Stats reads the version before the counters, so the call that first sees the count may
        // still hold the tables from before the merge; the count grows only once the merge is
        // installed, so a call started after seeing it sees the merged tables.
        return db.stats();
    }

    @Test
    void aScannedPartitionWithDebtIsMergedWithoutWrites() throws Exception {
        NavigableMap<String, byte[]> model;
        GatedIdleMerges policy = new GatedIdleMerges(rangeReduce(Double.POSITIVE_INFINITY));
        try (RemixDB db = RemixDB.open(dir, options(policy))) {
            model = writeDebt(db, 600);
            Stats before = db.stats();
            assertEquals(3, before.tables(), before.toString());
            assertEquals(0, before.compactions().major() + before.compactions().split(), before.toString());
            // A snapshot taken before the merge keeps the versions it saw.
            try (Snapshot snap = db.snapshot()) {
                scanAll(db);
                // The first 600 versions, the second versions of the 200 deleted keys, and their tombstones.
                assertEquals(600 + 200 + 200, db.stats().scanSkipped());
                policy.open();
                scanAll(db);
                Stats after = awaitIdleMerges(db, 1);
                assertEquals(1, after.compactions().idle(), "the scanned debt was merged: " + after);
                assertEquals(1, after.tables(), after.toString());
                assertEquals(model.size(), after.keys(), "one version per live key: " + after);
                assertTrue(after.compactions().optionalBytes() > 0, after.toString());
                assertEquals(0, after.scanSkipped(), "the new partition starts its counts at zero");
                assertEquals(before.userBytesWritten(), after.userBytesWritten(), "no write was needed");
                // Its versions live on in the replaced tables, which it still holds.
                NavigableMap<String, byte[]> seen = new TreeMap<>();
                try (Cursor c = snap.cursor()) {
                    for (c.seekToFirst(); c.isValid(); c.next()) {
                        seen.put(new String(c.key(), StandardCharsets.UTF_8), c.value());
                    }
                }
                assertEquals(model.keySet(), seen.keySet());
                assertArrayEquals(model.get("k00001"), snap.get(key(1)));
            }
            assertSame(model, db);
            // Nothing left to reduce: scanning again merges nothing more.
            scanAll(db);
            Thread.sleep(2500);
            assertEquals(1, db.stats().compactions().idle());
        }
        try (RemixDB db = RemixDB.open(dir, options(rangeReduce(Double.POSITIVE_INFINITY)))) {
            assertSame(model, db);
            assertEquals(1, db.stats().tables());
        }
    }

    /** Keys 0..n-1 in {@code runs} tables that all overlap: round r writes the keys i with i % runs == r. */
    private static NavigableMap<String, byte[]> writeRuns(RemixDB db, int n, int runs) throws Exception {
        NavigableMap<String, byte[]> model = new TreeMap<>();
        for (int round = 0; round < runs; round++) {
            for (int i = round; i < n; i += runs) {
                byte[] v = {(byte) round, (byte) i, (byte) (i >> 8)};
                db.put(key(i), v);
                model.put(new String(key(i), StandardCharsets.UTF_8), v);
            }
            db.compactMemtable();
        }
        return model;
    }

    @Test
    void remixDbWithIdleMergesMergesAScannedPartitionOfManyRuns() throws Exception {
        Options defaults = options(RemixDbPolicy.withIdleMerges());
        NavigableMap<String, byte[]> model;
        try (RemixDB db = RemixDB.open(dir, defaults)) {
            model = writeRuns(db, 1200, 6);
            assertEquals(6, db.stats().tables(), db.stats().toString());
            // Point reads are not scans, and no scan means no merge.
            for (int i = 0; i < 1200; i++) {
                db.get(key(i));
            }
            Thread.sleep(500);
            assertEquals(0, db.stats().compactions().idle(), db.stats().toString());
            scanAll(db);
            Stats after = awaitIdleMerges(db, 1);
            assertEquals(1, after.compactions().idle(), "six runs met by a scan of every entry: " + after);
            assertEquals(1, after.tables(), after.toString());
            assertTrue(after.compactions().optionalBytes() > 0, after.toString());
            assertSame(model, db);
            // One run now: more scans merge nothing more.
            scanAll(db);
            Thread.sleep(500);
            assertEquals(1, db.stats().compactions().idle());
        }
        try (RemixDB db = RemixDB.open(dir, defaults)) {
            assertSame(model, db);
            assertEquals(1, db.stats().tables());
        }
    }

    @Test
    void fourRunsOrTooFewScannedEntriesAreLeftAlone(@TempDir Path other) throws Exception {
        Options defaults = options(RemixDbPolicy.withIdleMerges());
        try (RemixDB db = RemixDB.open(dir, defaults)) {
            NavigableMap<String, byte[]> model = writeRuns(db, 1200, 4);
            scanAll(db);
            scanAll(db);
            // Six runs of 150 keys: a scan of every entry walks 900, below the floor of 1,000.
            try (RemixDB small = RemixDB.open(other, defaults)) {
                NavigableMap<String, byte[]> smallModel = writeRuns(small, 900, 6);
                scanAll(small);
                Thread.sleep(500);
                assertEquals(0, small.stats().compactions().idle(), small.stats().toString());
                assertEquals(6, small.stats().tables());
                assertSame(smallModel, small);
            }
            assertEquals(0, db.stats().compactions().idle(), db.stats().toString());
            assertEquals(4, db.stats().tables());
            assertSame(model, db);
        }
    }

    @Test
    void onePartitionPerCompactionThreadPerPass() throws Exception {
        // 64 KiB tables and one compaction thread: a load of 6,000 keys splits into partitions of
        // two tables, then five flushes over every key give each partition five more runs.
        Options options = Options.builder().memtableBytes(4 << 20).tableBytes(64 << 10).compactionThreads(1)
                .compactionPolicy(RemixDbPolicy.withIdleMerges()).build();
        try (RemixDB db = RemixDB.open(dir, options)) {
            NavigableMap<String, byte[]> model = new TreeMap<>();
            Random random = new Random(7);
            for (int round = 0; round < 7; round++) {
                for (int i = round % 2; i < 6000; i += round == 0 ? 1 : 2) {
                    byte[] v = new byte[80];
                    random.nextBytes(v);
                    db.put(key(i), v);
                    model.put(new String(key(i), StandardCharsets.UTF_8), v);
                }
                db.compactMemtable();
            }
            Stats before = db.stats();
            int partitions = before.partitions();
            assertTrue(partitions >= 3, "several partitions to merge: " + before);
            // Each idle pass logs how many partitions it merged: with one thread, never more than
            // one. (Without the cap the first pass merged every candidate the budget allowed, three
            // here.) Read from the log, not by polling the count: two passes can install their
            // merges a few milliseconds apart on a slow machine.
            java.util.logging.Logger log = java.util.logging.Logger.getLogger(dev.remixdb.compact.Compactor.class.getName());
            java.util.List<String> passes = new java.util.concurrent.CopyOnWriteArrayList<>();
            java.util.logging.Handler handler = new java.util.logging.Handler() {
                @Override
                public void publish(java.util.logging.LogRecord r) {
                    if (r.getMessage() != null && r.getMessage().contains("idle partitions")) {
                        passes.add(r.getMessage());
                    }
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };
            java.util.logging.Level level = log.getLevel();
            log.setLevel(java.util.logging.Level.FINE);
            log.addHandler(handler);
            long seen;
            try {
                scanAll(db);
                long deadline = System.nanoTime() + 120_000_000_000L;
                while ((seen = db.stats().compactions().idle()) < 3 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
            } finally {
                log.removeHandler(handler);
                log.setLevel(level);
            }
            assertTrue(passes.size() >= 3, "a pass per merge: " + passes);
            for (String pass : passes) {
                assertTrue(pass.startsWith("merged 1 idle partitions"), "one pass with one thread: " + passes);
            }
            assertEquals(3, seen, "three partitions merged: " + db.stats());
            assertSame(model, db);
        }
    }

    @Test
    void thePlainDefaultsNeverMergeForRuns() throws Exception {
        try (RemixDB db = RemixDB.open(dir, options(RemixDbPolicy.defaults()))) {
            NavigableMap<String, byte[]> model = writeRuns(db, 1200, 6);
            scanAll(db);
            scanAll(db);
            Thread.sleep(500);
            assertEquals(0, db.stats().compactions().idle(), db.stats().toString());
            assertEquals(6, db.stats().tables());
            assertSame(model, db);
        }
    }

    @Test
    void directIoChoosesIdleMergesUnlessAPolicyIsChosen() {
        // The surefire executions that name a policy by system property keep it, direct I/O or not.
        boolean named = System.getProperty("remixdb.compactionPolicy") != null;
        Options direct = Options.builder().directIo(true).build();
        Options buffered = Options.builder().build();
        if (!named) {
            assertEquals(RemixDbPolicy.withIdleMerges(), direct.compactionPolicy());
            assertEquals(RemixDbPolicy.defaults(), buffered.compactionPolicy());
        }
        RemixDbPolicy chosen = RemixDbPolicy.builder().maxTables(12).build();
        assertEquals(chosen, Options.builder().compactionPolicy(chosen).directIo(true).build().compactionPolicy());
        assertEquals(chosen, Options.builder().directIo(true).compactionPolicy(chosen).build().compactionPolicy());
    }

    @Test
    void theBudgetRefusesOptionalMerges() throws Exception {
        try (RemixDB db = RemixDB.open(dir, options(rangeReduce(0.01)))) {
            NavigableMap<String, byte[]> model = writeDebt(db, 600);
            scanAll(db);
            Thread.sleep(2500);
            Stats s = db.stats();
            // A merge of the partition rewrites about a third of all bytes written: over 1%.
            assertEquals(0, s.compactions().idle(), s.toString());
            assertEquals(0, s.compactions().optionalBytes(), s.toString());
            // At a flush, RangeReduce's widening of the Minor is refused the same way.
            db.put(key(1), new byte[] {9});
            model.put(new String(key(1), StandardCharsets.UTF_8), new byte[] {9});
            db.compactMemtable();
            s = db.stats();
            assertEquals(0, s.compactions().major(), "the base plan stood: " + s);
            assertEquals(4, s.tables(), s.toString());
            assertSame(model, db);
        }
    }

    /**
     * Keys 0..n-1 with 40-byte values, split into partitions of two 32 KiB tables, then overwritten
     * in one table per partition and every third deleted in another: each partition holds debt.
     */
    private static NavigableMap<String, byte[]> partitionedDebt(RemixDB db, int n, Random random) throws Exception {
        NavigableMap<String, byte[]> model = new TreeMap<>();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < n; i++) {
                byte[] v = new byte[40];
                random.nextBytes(v);
                db.put(key(i), v);
                model.put(new String(key(i), StandardCharsets.UTF_8), v);
            }
            db.compactMemtable();
            if (round == 0) {
                db.compactRange(null, null);
            }
        }
        for (int i = 0; i < n; i += 3) {
            db.delete(key(i));
            model.remove(new String(key(i), StandardCharsets.UTF_8));
        }
        db.compactMemtable();
        return model;
    }

    private static Options partitioned(double budget) {
        return Options.builder().memtableBytes(1 << 20).tableBytes(32 << 10).compactionPolicy(rangeReduce(budget))
                .build();
    }

    @Test
    void theBudgetLetsSomeMergesRunAndHoldsTheRestBack() throws Exception {
        try (RemixDB db = RemixDB.open(dir, partitioned(0.3))) {
            NavigableMap<String, byte[]> model = partitionedDebt(db, 8000, new Random(3));
            Stats before = db.stats();
            assertTrue(before.partitions() >= 4, before.toString());
            scanAll(db);
            Stats s = awaitIdleMerges(db, 1);
            Thread.sleep(2500);
            s = db.stats();
            long spent = s.compactions().optionalBytes();
            assertTrue(s.compactions().idle() >= 1, s.toString());
            assertTrue(spent <= 0.3 * (s.tableBytesWritten() - spent), "within the budget: " + s);
            // The rest of the debt waits for the budget to grow with more writes.
            assertTrue(s.compactions().idle() < before.partitions(), s.toString());
            scanAll(db);
            assertTrue(db.stats().scanSkipped() > 0, "debt is left: " + db.stats());
            assertSame(model, db);
        }
    }

    @Test
    void idleMergesRunUnderConcurrentWritesAndReads() throws Exception {
        Options options = Options.builder().memtableBytes(256 << 10).tableBytes(32 << 10)
                .compactionPolicy(rangeReduce(Double.POSITIVE_INFINITY)).build();
        NavigableMap<String, byte[]> model;
        int n = 8000;
        try (RemixDB db = RemixDB.open(dir, options)) {
            model = partitionedDebt(db, n, new Random(7));
            // The writer adds keys from n up only, so the model of the old range stays exact while
            // idle merges rewrite its partitions under the scans.
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            NavigableMap<String, byte[]> written = new java.util.concurrent.ConcurrentSkipListMap<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = n; !stop.get() && i < 5 * n; i++) {
                        byte[] v = {(byte) i};
                        db.put(key(i), v);
                        written.put(new String(key(i), StandardCharsets.UTF_8), v);
                        if (i % 500 == 0) {
                            Thread.sleep(10);
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            long deadline = System.nanoTime() + 120_000_000_000L;
            int scans = 0;
            while ((db.stats().compactions().idle() < 2 || scans < 3) && System.nanoTime() < deadline) {
                scans++;
                try (Cursor c = db.cursor(null, key(n))) {
                    var it = model.entrySet().iterator();
                    for (c.seekToFirst(); c.isValid(); c.next()) {
                        var e = it.next();
                        assertEquals(e.getKey(), new String(c.key(), StandardCharsets.UTF_8));
                        assertArrayEquals(e.getValue(), c.value());
                    }
                    assertTrue(!it.hasNext());
                }
            }
            stop.set(true);
            writer.join();
            assertNull(failure.get());
            Stats s = db.stats();
            assertTrue(s.compactions().idle() >= 2, "scans under writes led to idle merges: " + s);
            model.putAll(written);
            assertSame(model, db);
        }
        try (RemixDB db = RemixDB.open(dir, options)) {
            assertSame(model, db);
        }
    }

    /**
     * Random puts, deletes and range deletes in bursts, each followed by scans and a pause in
     * which idle merges run, against a model; reopened between rounds.
     */
    @Test
    void randomWritesScansAndIdleMergesMatchTheModel() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<String, byte[]> model = new TreeMap<>();
        // Over the default policy: partitions split, and flushes reach some and not others.
        Options options = Options.builder().memtableBytes(64 << 10).tableBytes(16 << 10)
                .compactionPolicy(RangeReducePolicy.builder(dev.remixdb.compaction.RemixDbPolicy.defaults())
                        .minDebtFraction(0).minScanned(100).budget(Double.POSITIVE_INFINITY).build())
                .build();
        long partitions = 0;
        long idle = 0;
        for (int round = 0; round < 4; round++) {
            try (RemixDB db = RemixDB.open(dir, options)) {
                assertSame(model, db);
                for (int burst = 0; burst < 6; burst++) {
                    for (int i = 0; i < 1500; i++) {
                        int k = rnd.nextInt(3000);
                        int op = rnd.nextInt(20);
                        if (op < 12) {
                            byte[] v = new byte[rnd.nextInt(60)];
                            rnd.nextBytes(v);
                            db.put(key(k), v);
                            model.put(new String(key(k), StandardCharsets.UTF_8), v);
                        } else if (op < 19) {
                            db.delete(key(k));
                            model.remove(new String(key(k), StandardCharsets.UTF_8));
                        } else if (rnd.nextInt(10) == 0) {
                            int to = Math.min(3000, k + 1 + rnd.nextInt(40));
                            db.deleteRange(key(k), key(to));
                            model.subMap(new String(key(k), StandardCharsets.UTF_8), true,
                                    new String(key(to), StandardCharsets.UTF_8), false).clear();
                        }
                    }
                    db.compactMemtable();
                    for (int scan = 0; scan < 3; scan++) {
                        scanAll(db);
                    }
                    Thread.sleep(150);
                    assertSame(model, db);
                }
                // A slow machine may not have fitted a pass into the pauses: in the last round, give
                // the idle passes time (they are what this test is about), scanning meanwhile.
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (round == 3 && idle + db.stats().compactions().idle() == 0 && System.nanoTime() < deadline) {
                    scanAll(db);
                    Thread.sleep(100);
                }
                assertSame(model, db);
                idle += db.stats().compactions().idle();
                partitions = Math.max(partitions, db.stats().partitions());
            }
        }
        assertTrue(partitions > 1, "seed " + seed + ": the store split");
        assertTrue(idle > 0, "seed " + seed + ": scans met debt in partitions no write reached afterwards");
    }

    /**
     * A process whose scans lead to idle merges, killed with SIGKILL while they run: the store
     * reopens in the state after a prefix of its operations that includes every synced one, and
     * verifies clean.
     */
    @Test
    void killNineDuringIdleMergesKeepsASyncedPrefix() throws Exception {
        Random r = new Random(17);
        for (int round = 0; round < 3; round++) {
            Path store = dir.resolve("crash-" + round);
            Path idleFile = dir.resolve("idle-" + round);
            KilledChild child = KilledChild.start(IdleMergeChild.class, "S", store.toString(), idleFile.toString());
            long minimum = 3000 + r.nextInt(6000);
            java.util.concurrent.atomic.AtomicLong idle = new java.util.concurrent.atomic.AtomicLong();
            long synced = child.killWhen(() -> {
                idle.accumulateAndGet(idleMerges(idleFile), Math::max);
                return child.lines() * 10 >= minimum && idle.get() > 0;
            }, r.nextInt(30));
            assertTrue(idle.get() > 0, "round " + round + ": no idle merge ran before the kill");
            KilledChild.assertSyncedPrefix(store, IdleMergeChild.options(), synced,
                    (i, model) -> IdleMergeChild.apply(i, null, model), "round " + round);
        }
    }

    private static long idleMerges(Path file) {
        try {
            return java.nio.file.Files.exists(file) ? Long.parseLong(java.nio.file.Files.readString(file).trim()) : 0;
        } catch (java.io.IOException | NumberFormatException e) {
            // Read while the child rewrites it: count it as not yet.
            return 0;
        }
    }
}
