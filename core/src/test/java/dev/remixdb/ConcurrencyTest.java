package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writers, readers and background compactions at once, with memtables so tiny that compactions run
 * all the time.
 *
 * <p>The workload makes every consistent snapshot recognizable. Writer {@code t} owns the keys
 * {@code w<t>-00000 .. w<t>-<KEYS-1>} and writes them in key order, round after round: its op
 * {@code p} is round {@code p / KEYS} on key {@code p % KEYS}. Every fourth round ({@code r % 4 == 3})
 * deletes the keys, the others put a value that encodes (writer, round, key) plus padding derived
 * from them. After {@code P} ops of a writer, its keys read: round {@code R+1}'s state for the keys
 * before {@code j = P % KEYS}, round {@code R}'s from there (a prefix of the newer round). So a
 * snapshot (a cursor, or a get) must show, per writer, exactly the state after some {@code P} with
 * {@code completed <= P <= started}, where {@code completed} counts the writer's puts that had
 * returned before the snapshot was taken and {@code started} those begun before it was taken
 * (read after). Anything else (a key newer than a key written before it, a lost write, a value of
 * another key, a torn value, a key twice, keys out of order) fails.
 */
class ConcurrencyTest {
    @TempDir
    Path dir;

    private static final int WRITERS = 3;
    private static final int READERS = 2;
    private static final int KEYS = 200;
    /** Rounds per writer; the last one (29) puts, so every key is present at the end. */
    private static final int ROUNDS = 30;

    private static Options options() {
        return Options.builder().memtableBytes(16 * 1024).tableBytes(8 * 1024).blockCacheBytes(256 * 1024)
                .compactionThreads(2).build();
    }

    static byte[] key(int writer, int i) {
        return String.format("w%d-%05d", writer, i).getBytes(StandardCharsets.UTF_8);
    }

    static boolean deleteRound(int round) {
        return round % 4 == 3;
    }

    /** The value of writer {@code t}'s key {@code i} in round {@code r}: a header, then derived padding. */
    static byte[] value(int t, int r, int i) {
        byte[] head = (t + "," + r + "," + i + "|").getBytes(StandardCharsets.UTF_8);
        byte[] v = Arrays.copyOf(head, head.length + (i * 7 + r * 13) % 61);
        for (int b = head.length; b < v.length; b++) {
            v[b] = (byte) (t * 31 + r * 7 + i + b);
        }
        return v;
    }

    /** The round a value was written in, after checking that it is exactly writer t's value of key i. */
    static int round(int t, int i, byte[] v, String where) {
        String s = new String(v, StandardCharsets.ISO_8859_1);
        int bar = s.indexOf('|');
        String[] f = bar < 0 ? new String[0] : s.substring(0, bar).split(",");
        if (f.length != 3 || !f[0].equals(Integer.toString(t)) || !f[2].equals(Integer.toString(i))) {
            throw new AssertionError(where + ": value of another key or garbage under " + new String(key(t, i)) + ": " + s);
        }
        int r = Integer.parseInt(f[1]);
        if (!Arrays.equals(value(t, r, i), v)) {
            throw new AssertionError(where + ": torn or damaged value of " + new String(key(t, i)) + " round " + r);
        }
        return r;
    }

    /** The round of key i's last op after p ops, or -1 when it was never written. */
    static int lastRound(long p, int i) {
        return p > i ? (int) ((p - 1 - i) / KEYS) : -1;
    }

    /** What key i holds in round r's state: the round, or -1 for absent. */
    static int state(int r) {
        return r < 0 || deleteRound(r) ? -1 : r;
    }

    // ------------------------------------------------------------------ readers and writers

    @Test
    @Timeout(300)
    void readersSeeConsistentSnapshotsWhileWritersAndCompactionsRun() throws Exception {
        long seed = System.nanoTime();
        AtomicLongArray started = new AtomicLongArray(WRITERS);
        AtomicLongArray completed = new AtomicLongArray(WRITERS);
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch readersCheckedMidway = new CountDownLatch(READERS);
        AtomicLong scans = new AtomicLong();
        AtomicLong gets = new AtomicLong();
        long compactionsDuringRun;
        try (RemixDB db = RemixDB.open(dir, options())) {
            List<Thread> threads = new ArrayList<>();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < WRITERS; t++) {
                int w = t;
                writers.add(new Thread(() -> {
                    try {
                        for (long p = 0; p < (long) ROUNDS * KEYS; p++) {
                            int r = (int) (p / KEYS);
                            int i = (int) (p % KEYS);
                            started.incrementAndGet(w);
                            if (deleteRound(r)) {
                                db.delete(key(w, i));
                            } else {
                                db.put(key(w, i), value(w, r, i));
                            }
                            completed.incrementAndGet(w);
                            if (p == (long) ROUNDS * KEYS / 2) {
                                // Every reader checks a store half written, whatever the scheduling.
                                readersCheckedMidway.await(60, TimeUnit.SECONDS);
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "writer-" + t));
            }
            for (int k = 0; k < READERS; k++) {
                SplittableRandom rnd = new SplittableRandom(seed + k);
                threads.add(new Thread(() -> {
                    boolean counted = false;
                    try {
                        while (writing.get()) {
                            String where = "seed " + seed + " " + Thread.currentThread().getName();
                            scanAndCheck(db, rnd, started, completed, where);
                            scans.incrementAndGet();
                            for (int g = 0; g < 50; g++) {
                                getAndCheck(db, rnd, started, completed, where);
                                gets.incrementAndGet();
                            }
                            if (!counted) {
                                counted = true;
                                readersCheckedMidway.countDown();
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        if (!counted) {
                            readersCheckedMidway.countDown();
                        }
                    }
                }, "reader-" + k));
            }
            threads.addAll(writers);
            for (Thread th : threads) {
                th.start();
            }
            for (Thread th : writers) {
                th.join();
            }
            writing.set(false);
            for (Thread th : threads) {
                th.join();
            }
            assertNoFailures(failures, seed);
            Stats.Compactions c = db.stats().compactions();
            compactionsDuringRun = c.minor() + c.major() + c.split() + c.abort();
            assertTrue(compactionsDuringRun > 20, "seed " + seed + ": compactions ran during the run: " + c);
            assertTrue(scans.get() >= READERS, "seed " + seed + ": scans " + scans);
            assertFinalState(db, "seed " + seed + " at the end");
        }
        try (RemixDB db = RemixDB.open(dir, options())) {
            assertFinalState(db, "seed " + seed + " after reopen");
        }
        System.out.println("ConcurrencyTest seed " + seed + ": " + scans + " scans, " + gets + " gets, "
                + compactionsDuringRun + " partition compactions");
    }

    /**
     * A cursor over everything: sorted, no duplicates, each value its key's, and per writer the state
     * after some P in its [completed, started] window. Scanned twice, with the writers going on: a
     * snapshot does not move.
     */
    private static void scanAndCheck(RemixDB db, SplittableRandom rnd, AtomicLongArray started,
                                     AtomicLongArray completed, String where) {
        long[] lo = new long[WRITERS];
        long[] hi = new long[WRITERS];
        for (int t = 0; t < WRITERS; t++) {
            lo[t] = completed.get(t);
        }
        try (Cursor c = db.cursor()) {
            for (int t = 0; t < WRITERS; t++) {
                hi[t] = started.get(t);
            }
            int[][] first = scan(c, where);
            for (int t = 0; t < WRITERS; t++) {
                checkCut(first[t], lo[t], hi[t], where + " writer " + t);
            }
            if (rnd.nextBoolean()) {
                assertTrue(Arrays.deepEquals(first, scan(c, where)), where + ": a second scan of one cursor differs");
            } else {
                // Seek into one writer's range and read it through.
                int t = rnd.nextInt(WRITERS);
                int from = rnd.nextInt(KEYS);
                c.seek(key(t, from));
                for (int i = from; i < KEYS; i++) {
                    if (first[t][i] == -1) {
                        continue;  // absent in this snapshot: the cursor passes it by
                    }
                    assertTrue(c.isValid(), where + ": seek scan ended early at " + new String(key(t, i)));
                    assertArrayEquals(key(t, i), c.key(), where + ": seek scan key");
                    assertEquals(first[t][i], round(t, i, c.value(), where), where + ": seek scan round");
                    c.next();
                }
                assertTrue(!c.isValid() || Arrays.compareUnsigned(c.key(), key(t, KEYS)) > 0,
                        where + ": seek scan shows an extra key of writer " + t);
            }
        }
    }

    /** Per writer and key: the round seen, or -1 when absent. Checks order, duplicates and values. */
    private static int[][] scan(Cursor c, String where) {
        int[][] seen = new int[WRITERS][KEYS];
        for (int[] row : seen) {
            Arrays.fill(row, -1);
        }
        byte[] previous = null;
        for (c.seekToFirst(); c.isValid(); c.next()) {
            byte[] k = c.key();
            if (previous != null) {
                assertTrue(Arrays.compareUnsigned(previous, k) < 0, where + ": keys out of order or repeated: "
                        + new String(previous) + " then " + new String(k));
            }
            previous = k;
            String s = new String(k, StandardCharsets.UTF_8);
            int t = s.charAt(1) - '0';
            int i = Integer.parseInt(s.substring(3));
            assertArrayEquals(key(t, i), k, where + ": unknown key " + s);
            seen[t][i] = round(t, i, c.value(), where);
        }
        return seen;
    }

    /** Whether {@code seen} is one writer's state after some P in [lo, hi]; see the class comment. */
    private static void checkCut(int[] seen, long lo, long hi, String where) {
        List<Long> candidates = new ArrayList<>();
        candidates.add(0L);
        int j = 1;
        while (j < KEYS && seen[j] == seen[0]) {
            j++;
        }
        if (seen[0] >= 0) {
            candidates.add((long) seen[0] * KEYS + j);  // key 0 is in round seen[0]: the newer round
        } else if (j < KEYS) {
            candidates.add((long) (seen[j] + 1) * KEYS + j);  // key 0 is in a delete round after seen[j]
        } else {
            for (long d = 3; (d + 1) * KEYS <= hi; d += 4) {  // all absent: just after a delete round
                candidates.add((d + 1) * KEYS);
            }
        }
        for (long p : candidates) {
            if (p >= lo && p <= hi && matches(seen, p)) {
                return;
            }
        }
        throw new AssertionError(where + ": no state after P in [" + lo + ", " + hi + "] ops looks like this: "
                + Arrays.toString(seen));
    }

    private static boolean matches(int[] seen, long p) {
        for (int i = 0; i < KEYS; i++) {
            if (seen[i] != state(lastRound(p, i))) {
                return false;
            }
        }
        return true;
    }

    /** A get of a random key: its state after some P in the [completed, started] window around it. */
    private static void getAndCheck(RemixDB db, SplittableRandom rnd, AtomicLongArray started,
                                    AtomicLongArray completed, String where) {
        int t = rnd.nextInt(WRITERS);
        int i = rnd.nextInt(KEYS);
        long lo = completed.get(t);
        byte[] v = db.get(key(t, i));
        long hi = started.get(t);
        int seen = v == null ? -1 : round(t, i, v, where);
        for (int r = lastRound(lo, i); r <= lastRound(hi, i); r++) {
            if (state(r) == seen) {
                return;
            }
        }
        throw new AssertionError(where + ": get " + new String(key(t, i)) + " shows round " + seen
                + ", not a state of ops [" + lo + ", " + hi + "]");
    }

    private static void assertFinalState(RemixDB db, String where) {
        NavigableMap<byte[], byte[]> expected = new TreeMap<>(Arrays::compareUnsigned);
        for (int t = 0; t < WRITERS; t++) {
            for (int i = 0; i < KEYS; i++) {
                expected.put(key(t, i), value(t, ROUNDS - 1, i));
            }
        }
        for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
            assertArrayEquals(e.getValue(), db.get(e.getKey()), where);
        }
        try (Cursor c = db.cursor()) {
            c.seekToFirst();
            for (Map.Entry<byte[], byte[]> e : expected.entrySet()) {
                assertTrue(c.isValid(), where + ": scan ended early");
                assertArrayEquals(e.getKey(), c.key(), where);
                assertArrayEquals(e.getValue(), c.value(), where);
                c.next();
            }
            assertFalse(c.isValid(), where + ": extra keys");
        }
    }

    private static void assertNoFailures(ConcurrentLinkedQueue<Throwable> failures, long seed) {
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError("seed " + seed + ": " + failures.size() + " thread(s) failed; first: "
                    + failures.peek(), failures.peek());
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    // ------------------------------------------------------------------ close during use

    /**
     * close() while threads put, get, scan and sync: each thread's calls succeed until one throws
     * {@link ClosedException} (nothing else; a call that raced close() says so the same way), data
     * read is never wrong, and after reopening every acknowledged put is there (close syncs the WAL)
     * and the put that was refused is not.
     */
    @Test
    @Timeout(300)
    void closeDuringUseGivesClosedExceptionAndKeepsAcknowledgedWrites() throws Exception {
        long seed = System.nanoTime();
        for (int round = 0; round < 12; round++) {
            Path store = dir.resolve("round-" + round);
            String where = "seed " + seed + " round " + round;
            int writers = 2;
            long[] acknowledged = new long[writers];
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Throwable> ends = new ConcurrentLinkedQueue<>();
            int threads = writers + 4;  // writers, a getter, two scanners, a syncer
            int warmUpCalls = 20 + round * 40;  // later rounds close later: more files, compactions under way
            CountDownLatch warmedUp = new CountDownLatch(threads);
            List<Thread> all = new ArrayList<>();
            RemixDB db = RemixDB.open(store, options());
            for (int t = 0; t < threads; t++) {
                int w = t;
                SplittableRandom rnd = new SplittableRandom(seed + warmUpCalls * 100L + t);
                all.add(new Thread(() -> {
                    long n = 0;
                    // Writers make the store grow before close; the others need only be under way.
                    long warm = w < writers ? warmUpCalls : 1;
                    try {
                        for (;; n++) {
                            if (n == warm) {
                                warmedUp.countDown();
                            }
                            if (w < writers) {
                                db.put(key(w, (int) n), value(w, 0, (int) n));
                                acknowledged[w] = n;
                            } else if (w == writers) {
                                int t2 = rnd.nextInt(writers);
                                int i = rnd.nextInt((int) Math.max(1, Math.min(n + 1, KEYS * 50L)));
                                byte[] v = db.get(key(t2, i));
                                if (v != null) {
                                    round(t2, i, v, where + " get");
                                }
                            } else if (w == writers + 1) {
                                try (Cursor c = db.cursor()) {
                                    for (c.seekToFirst(); c.isValid(); c.next()) {
                                        String s = new String(c.key(), StandardCharsets.UTF_8);
                                        round(s.charAt(1) - '0', Integer.parseInt(s.substring(3)), c.value(), where + " scan");
                                    }
                                }
                            } else if (w == writers + 2) {
                                // Nothing but cursor calls, so that close() most likely meets one in progress;
                                // every other pass reads views, whose memory a close must not free under them.
                                if (n % 3 == 0) {
                                    try (Cursor c = db.cursor()) {
                                        for (c.seekToFirst(); c.isValid(); c.next()) {
                                            c.value();
                                        }
                                    }
                                } else if (n % 3 == 1) {
                                    try (Cursor c = db.cursor()) {
                                        for (c.seekToFirst(); c.isValid(); c.next()) {
                                            String s = new String(c.keyView().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                                                    StandardCharsets.UTF_8);
                                            round(s.charAt(1) - '0', Integer.parseInt(s.substring(3)),
                                                    c.valueView().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), where + " views");
                                        }
                                    }
                                } else {
                                    db.scan(null, null, Integer.MAX_VALUE, (k, v) -> {
                                        String s = new String(k.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
                                        round(s.charAt(1) - '0', Integer.parseInt(s.substring(3)),
                                                v.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), where + " scan views");
                                        return true;
                                    });
                                }
                            } else {
                                db.sync();
                            }
                        }
                    } catch (ClosedException e) {
                        ends.add(e);
                    } catch (Throwable e) {
                        failures.add(new AssertionError(Thread.currentThread().getName() + " after " + n + " calls: " + e, e));
                    } finally {
                        if (n < warm) {
                            warmedUp.countDown();
                        }
                    }
                }, "user-" + t));
            }
            for (int t = 0; t < writers; t++) {
                acknowledged[t] = -1;
            }
            all.forEach(Thread::start);
            warmedUp.await(60, TimeUnit.SECONDS);
            db.close();
            for (Thread th : all) {
                th.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(th.isAlive(), where + ": " + th.getName() + " hangs after close");
            }
            assertNoFailures(failures, seed);
            assertEquals(threads, ends.size(), where + ": every thread ended with ClosedException");
            try (RemixDB again = RemixDB.open(store, options())) {
                for (int t = 0; t < writers; t++) {
                    for (int i = 0; i <= acknowledged[t]; i++) {
                        assertArrayEquals(value(t, 0, i), again.get(key(t, i)), where + ": acknowledged put "
                                + new String(key(t, i)) + " of " + acknowledged[t]);
                    }
                    assertEquals(null, again.get(key(t, (int) acknowledged[t] + 1)),
                            where + ": the put refused with ClosedException was not made");
                }
            }
        }
    }

    /** compactRange() racing close(): it completes or throws ClosedException, never another error. */
    @Test
    @Timeout(300)
    void compactRangeRacingCloseGivesClosedException() throws Exception {
        for (int round = 0; round < 10; round++) {
            Path store = dir.resolve("compact-close-" + round);
            RemixDB db = RemixDB.open(store, options());
            for (int i = 0; i < 2_000; i++) {
                db.put(key(0, i), value(0, 0, i));
            }
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch started = new CountDownLatch(1);
            Thread compacting = new Thread(() -> {
                try {
                    for (int n = 0; ; n++) {
                        db.put(key(1, n), value(1, 0, n));
                        started.countDown();
                        db.compactRange(null, null);
                    }
                } catch (ClosedException expected) {
                    // the only way out
                } catch (Throwable t) {
                    failures.add(t);
                }
            }, "compact-range");
            compacting.start();
            started.await(60, TimeUnit.SECONDS);
            Thread.sleep(round * 3L);
            db.close();
            compacting.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(compacting.isAlive(), "round " + round + ": compactRange hangs after close");
            assertNoFailures(failures, round);
        }
    }

    /**
     * Deferred and unlogged writes racing close(): each either throws ClosedException or returns
     * and is there after reopening (close() puts them into tables; one that slipped in after that
     * step used to return and be lost).
     */
    @Test
    @Timeout(300)
    void writesThatSkipTheWalRacingCloseAreKeptOrRefused() throws Exception {
        for (int round = 0; round < 10; round++) {
            Path store = dir.resolve("skip-wal-close-" + round);
            RemixDB db = RemixDB.open(store, options());
            int threads = 3;
            int[] acknowledged = new int[threads];
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch started = new CountDownLatch(threads);
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int w = t;
                acknowledged[w] = -1;
                all.add(new Thread(() -> {
                    try {
                        for (int n = 0; ; n++) {
                            WriteBatch b = new WriteBatch().put(key(w, n), value(w, 0, n));
                            if (w == 2) {
                                db.writeUnlogged(b);
                            } else {
                                db.writeDeferred(b);
                            }
                            acknowledged[w] = n;
                            if (n == 50) {
                                started.countDown();
                            }
                        }
                    } catch (ClosedException expected) {
                        // the only way out
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        started.countDown();
                    }
                }, "skip-wal-" + t));
            }
            all.forEach(Thread::start);
            started.await(60, TimeUnit.SECONDS);
            Thread.sleep(round);
            db.close();
            for (Thread th : all) {
                th.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(th.isAlive(), "round " + round + ": " + th.getName() + " hangs after close");
            }
            assertNoFailures(failures, round);
            try (RemixDB again = RemixDB.open(store, options())) {
                for (int t = 0; t < threads; t++) {
                    for (int i = 0; i <= acknowledged[t]; i++) {
                        assertArrayEquals(value(t, 0, i), again.get(key(t, i)), "round " + round
                                + ": write " + i + " of thread " + t + " returned before close, acknowledged up to "
                                + acknowledged[t]);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ synced writes

    @Test
    @Timeout(300)
    void concurrentSyncedWritesAllSucceed() throws Exception {
        int threads = 8;
        int perThread = 150;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        Options options = Options.builder().syncWrites(true).memtableBytes(64 * 1024).tableBytes(16 * 1024).build();
        CountDownLatch go = new CountDownLatch(1);
        try (RemixDB db = RemixDB.open(dir, options)) {
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int w = t;
                all.add(new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < perThread; i++) {
                            db.put(key(w, i), value(w, 0, i));
                            // Acknowledged means readable at once.
                            assertArrayEquals(value(w, 0, i), db.get(key(w, i)), "read after own synced write");
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            all.forEach(Thread::start);
            go.countDown();
            for (Thread th : all) {
                th.join();
            }
            assertNoFailures(failures, 0);
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < perThread; i++) {
                    assertArrayEquals(value(t, 0, i), db.get(key(t, i)));
                }
            }
            assertEquals(0, countKeys(db) - threads * perThread, "no extra keys");
        }
        try (RemixDB db = RemixDB.open(dir, options)) {
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < perThread; i++) {
                    assertArrayEquals(value(t, 0, i), db.get(key(t, i)), "after reopen");
                }
            }
            assertEquals(threads * perThread, countKeys(db));
        }
    }

    private static int countKeys(RemixDB db) {
        int n = 0;
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                n++;
            }
        }
        return n;
    }
}
