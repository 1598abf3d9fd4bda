package dev.remixdb.reliability;

import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.Snapshot;
import dev.remixdb.Stats;
import dev.remixdb.WriteBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Load (issue 6): N threads mix writes (puts, deletes, batches, syncs), point reads, bounded scans
 * in both directions and snapshot reads for a bounded time ({@code -Dremixdb.load.seconds}, 8 by
 * default, 120 in the soak profile) on a store whose memtable is so small that compactions run all
 * the time, and every read is checked against a model.
 *
 * <p>The model: key {@code k} is written only by thread {@code k % N}, in versions 1, 2, 3, ...;
 * whether version {@code v} is a delete is a fixed function of (k, v), and a put's value encodes
 * (k, v), the writer's operation number, the keys of its batch and a body derived from (k, v), so a
 * value from another key, a torn or a corrupt value are all recognised. Before a write call the
 * writer sets {@code started[k] = v}, after it returns {@code acked[k] = v}. A read that took
 * {@code lo = acked[k]} before it began and {@code hi = started[k]} after it ended must see a version
 * in [lo, hi]: nothing older than what was acknowledged before, nothing not yet written; absent only
 * when lo is 0 or a delete lies in [lo, hi]. Scans check every key of their range this way (a key not
 * returned must be allowed to be absent), plus order and bounds. A cursor or snapshot sees one point
 * in time: reading twice gives the same value, and when it sees one operation of a batch it sees the
 * whole batch (the other keys of the batch hold that operation's writes or later ones). A key
 * written twice in one batch must never show its first value.
 *
 * <p>A watchdog fails the test with a dump of every thread when no worker made progress for 30 s or
 * the run overruns its deadline by 60 s. At the end every key must hold its last acknowledged
 * version, before and after a close and reopen.
 */
class LoadTest {
    private static final Counts COUNTS = new Counts("load");
    private static final long SECONDS = Long.getLong("remixdb.load.seconds", 8);
    private static final long SEED = Long.getLong("remixdb.seed", System.nanoTime());
    private static final int KEYS = 4096;
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long OVERRUN_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final byte MAGIC = 0x5A;
    private static final byte SUPERSEDED = 1;

    @TempDir
    Path tmp;

    @AfterAll
    static void report() {
        COUNTS.report();
    }

    private static Options options() {
        return Options.builder().memtableBytes(256 << 10).tableBytes(64 << 10).blockCacheBytes(16 << 20).build();
    }

    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = {4, 16})
    void threadsMixingWritesReadsAndScansAgreeWithTheModel(int threads) throws Exception {
        Path dir = tmp.resolve("db");
        Run run = new Run(threads, RemixDB.open(dir, options()));
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(SECONDS);
        CountDownLatch done = new CountDownLatch(threads);
        for (int w = 0; w < threads; w++) {
            int id = w;
            Thread.ofPlatform().daemon().name("load-worker-" + w).start(() -> {
                try {
                    run.work(id, deadline);
                } catch (Throwable t) {
                    run.failure.compareAndSet(null, new AssertionError("worker " + id + " failed (seed " + SEED + ")", t));
                    run.stop = true;
                } finally {
                    done.countDown();
                }
            });
        }
        Thread watchdog = Thread.ofPlatform().daemon().name("load-watchdog").start(() -> run.watch(deadline, done));
        while (!done.await(1, TimeUnit.SECONDS)) {
            if (run.watchdogFired.get() != null) {
                break;
            }
        }
        watchdog.interrupt();
        AssertionError hung = run.watchdogFired.get();
        if (hung != null) {
            // Do not close a store whose threads may be stuck inside it: the JVM ends the daemons.
            throw hung;
        }
        if (run.failure.get() != null) {
            closeWithin(run.db, run);
            throw run.failure.get();
        }
        long elapsed = System.nanoTime() - start;

        // Every write returned: the store holds each key's last acknowledged version.
        for (int k = 0; k < KEYS; k++) {
            assertEquals(run.acked.get(k), run.started.get(k), "key " + k + ": a write started and never returned");
        }
        Stats stats = run.db.stats();
        run.checkFinal(run.db, "before close");
        closeWithin(run.db, run);
        try (RemixDB again = RemixDB.open(dir, options())) {
            run.checkFinal(again, "after reopen");
        }
        String summary = run.summary(threads, elapsed, stats);
        System.out.println(summary);
        run.addCounts(threads, stats);
        if (run.violations.sum() > 0) {
            fail(run.violations.sum() + " violations (seed " + SEED + "), first ones:\n"
                    + String.join("\n", run.messages) + "\n" + summary);
        }
    }

    /** Closes the store within 60 s or fails with a thread dump. */
    private static void closeWithin(RemixDB db, Run run) throws Exception {
        AtomicReference<Throwable> error = new AtomicReference<>();
        Thread closer = Thread.ofPlatform().daemon().name("load-close").start(() -> {
            try {
                db.close();
            } catch (Throwable t) {
                error.set(t);
            }
        });
        closer.join(TimeUnit.SECONDS.toMillis(60));
        if (closer.isAlive()) {
            fail("close() did not return within 60 s (seed " + SEED + ")\n" + threadDump());
        }
        if (error.get() != null) {
            throw new AssertionError("close failed", error.get());
        }
    }

    // ------------------------------------------------------------------ one run

    /** The store, the model shared by the workers, and what they counted. */
    private static final class Run {
        final int threads;
        final RemixDB db;
        final AtomicLongArray started = new AtomicLongArray(KEYS);
        final AtomicLongArray acked = new AtomicLongArray(KEYS);
        final AtomicLong progress = new AtomicLong();
        final Map<String, LongAdder> ops = new ConcurrentHashMap<>();
        final LongAdder checks = new LongAdder();
        final LongAdder violations = new LongAdder();
        final ConcurrentLinkedQueue<String> messages = new ConcurrentLinkedQueue<>();
        final AtomicReference<AssertionError> failure = new AtomicReference<>();
        final AtomicReference<AssertionError> watchdogFired = new AtomicReference<>();
        volatile boolean stop;

        Run(int threads, RemixDB db) {
            this.threads = threads;
            this.db = db;
        }

        void count(String op) {
            ops.computeIfAbsent(op, x -> new LongAdder()).increment();
            progress.incrementAndGet();
        }

        void violation(String message) {
            violations.increment();
            if (messages.size() < 20) {
                messages.add(message);
            }
        }

        /** The watchdog: no progress for 30 s, or 60 s past the deadline, fails with a thread dump. */
        void watch(long deadline, CountDownLatch done) {
            long last = progress.get();
            long lastChange = System.nanoTime();
            try {
                while (!done.await(1, TimeUnit.SECONDS)) {
                    long now = System.nanoTime();
                    long p = progress.get();
                    if (p != last) {
                        last = p;
                        lastChange = now;
                    }
                    String why = now - lastChange > STALL_NANOS ? "no worker made progress for 30 s"
                            : now - deadline > OVERRUN_NANOS ? "the run overran its deadline by 60 s" : null;
                    if (why != null) {
                        stop = true;
                        watchdogFired.set(new AssertionError(why + " (" + threads + " threads, seed " + SEED
                                + ", " + p + " operations)\n" + threadDump()));
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        // -------------------------------------------------------------- the workers

        void work(int id, long deadline) throws Exception {
            SplittableRandom rnd = new SplittableRandom(SEED * 31 + id);
            int own = (KEYS - id + threads - 1) / threads; // keys id, id + threads, ... below KEYS
            long[] version = new long[own];
            long opSeq = 0;
            while (!stop && System.nanoTime() < deadline) {
                int r = rnd.nextInt(100);
                opSeq++;
                if (r < 35) {
                    int i = rnd.nextInt(own);
                    int k = id + i * threads;
                    long v = ++version[i];
                    started.set(k, v);
                    if (isDelete(k, v)) {
                        db.delete(key(k));
                        count("delete");
                    } else {
                        db.put(key(k), value(k, v, opSeq, false, null));
                        count("put");
                    }
                    acked.set(k, v);
                } else if (r < 50) {
                    writeBatch(id, rnd, own, version, opSeq);
                } else if (r < 51) {
                    db.sync();
                    count("sync");
                } else if (r < 75) {
                    int k = rnd.nextInt(KEYS);
                    long lo = acked.get(k);
                    byte[] got = db.get(key(k));
                    long hi = started.get(k);
                    check(k, got, lo, hi, "get");
                    count("get");
                } else if (r < 92) {
                    scan(rnd);
                } else {
                    snapshotRead(rnd);
                }
            }
        }

        /** 2 to 8 operations on the worker's own keys, a key sometimes twice (the later one wins). */
        private void writeBatch(int id, SplittableRandom rnd, int own, long[] version, long opSeq) throws Exception {
            int m = 2 + rnd.nextInt(7);
            int[] ks = new int[m];
            int[] is = new int[m];
            for (int j = 0; j < m; j++) {
                is[j] = j > 0 && rnd.nextInt(6) == 0 ? is[rnd.nextInt(j)] : rnd.nextInt(own);
                ks[j] = id + is[j] * threads;
            }
            long[] vs = new long[m];
            for (int j = 0; j < m; j++) {
                vs[j] = ++version[is[j]];
            }
            WriteBatch batch = new WriteBatch();
            for (int j = 0; j < m; j++) {
                boolean superseded = false;
                for (int later = j + 1; later < m; later++) {
                    superseded |= ks[later] == ks[j];
                }
                if (isDelete(ks[j], vs[j])) {
                    batch.delete(key(ks[j]));
                } else {
                    batch.put(key(ks[j]), value(ks[j], vs[j], opSeq, superseded, ks));
                }
                started.set(ks[j], Math.max(started.get(ks[j]), vs[j]));
            }
            db.write(batch);
            for (int j = 0; j < m; j++) {
                acked.set(ks[j], Math.max(acked.get(ks[j]), vs[j]));
            }
            count("batch");
        }

        /** A bounded scan of up to 64 keys, forwards or backwards, on a bounded or an open cursor. */
        private void scan(SplittableRandom rnd) {
            int a = rnd.nextInt(KEYS);
            int b = Math.min(KEYS, a + 1 + rnd.nextInt(64));
            boolean forwards = rnd.nextBoolean();
            boolean bounded = rnd.nextBoolean();
            long[] lo = new long[b - a];
            for (int k = a; k < b; k++) {
                lo[k - a] = acked.get(k);
            }
            Map<Integer, byte[]> seen = new HashMap<>();
            try (Cursor c = bounded ? db.cursor(key(a), key(b)) : db.cursor()) {
                long[] hi = new long[b - a];
                for (int k = a; k < b; k++) {
                    hi[k - a] = started.get(k);
                }
                String what = (bounded ? "bounded " : "open ") + (forwards ? "forward" : "backward")
                        + " scan [" + a + ", " + b + ")";
                if (forwards) {
                    if (bounded) {
                        c.seekToFirst();
                    } else {
                        c.seek(key(a));
                    }
                } else if (bounded) {
                    c.seekToLast();
                } else {
                    c.seekForPrev(key(b - 1));
                }
                int expectNext = forwards ? a : b - 1; // every key between this and the one returned is missing
                for (; c.isValid(); advance(c, forwards)) {
                    int k = indexOf(c.key());
                    if (k < 0) {
                        violation(what + ": foreign key " + Arrays.toString(c.key()));
                        return;
                    }
                    if (k < a || k >= b) {
                        // An open cursor leaves the range in its direction of travel; nothing else may.
                        if (bounded || (forwards ? k < a : k >= b)) {
                            violation(what + ": key " + k + " out of bounds");
                        }
                        break;
                    }
                    if (forwards ? k < expectNext : k > expectNext) {
                        violation(what + ": key " + k + " out of order (expected at or "
                                + (forwards ? "after " : "before ") + expectNext + ")");
                        return;
                    }
                    for (int missing = expectNext; missing != k; missing += forwards ? 1 : -1) {
                        check(missing, null, lo[missing - a], hi[missing - a], what + " (skipped)");
                        seen.put(missing, null);
                    }
                    byte[] value = c.value();
                    check(k, value, lo[k - a], hi[k - a], what);
                    seen.put(k, value);
                    expectNext = k + (forwards ? 1 : -1);
                }
                // The scan ended (or left the range): the rest of the range must be allowed to be absent.
                for (int missing = expectNext; missing >= a && missing < b; missing += forwards ? 1 : -1) {
                    check(missing, null, lo[missing - a], hi[missing - a], what + " (after the end)");
                    seen.put(missing, null);
                }
                checkCut(seen, what);
                count(forwards ? "scanForward" : "scanBackward");
            }
        }

        private static void advance(Cursor c, boolean forwards) {
            if (forwards) {
                c.next();
            } else {
                c.prev();
            }
        }

        /** Reads keys of one writer through one snapshot: consistent, repeatable, batches whole. */
        private void snapshotRead(SplittableRandom rnd) {
            int writer = rnd.nextInt(threads);
            int own = (KEYS - writer + threads - 1) / threads;
            int[] ks = new int[8];
            long[] lo = new long[ks.length];
            for (int j = 0; j < ks.length; j++) {
                ks[j] = writer + rnd.nextInt(own) * threads;
                lo[j] = acked.get(ks[j]);
            }
            try (Snapshot s = db.snapshot()) {
                long[] hi = new long[ks.length];
                for (int j = 0; j < ks.length; j++) {
                    hi[j] = started.get(ks[j]);
                }
                Map<Integer, byte[]> seen = new HashMap<>();
                for (int j = 0; j < ks.length; j++) {
                    byte[] got = s.get(key(ks[j]));
                    check(ks[j], got, lo[j], hi[j], "snapshot get");
                    seen.put(ks[j], got);
                }
                // Later, through the same snapshot (writes went on meanwhile): the same values, by get
                // and by a cursor on the snapshot.
                try (Cursor c = s.cursor(key(ks[0]), key(ks[0] + 1))) {
                    c.seekToFirst();
                    byte[] byCursor = c.isValid() ? c.value() : null;
                    checks.increment();
                    if (!Arrays.equals(byCursor, seen.get(ks[0]))) {
                        violation("snapshot " + s.sequence() + ": cursor and get disagree on key " + ks[0]);
                    }
                }
                for (int j = 0; j < ks.length; j++) {
                    byte[] again = s.get(key(ks[j]));
                    checks.increment();
                    if (!Arrays.equals(again, seen.get(ks[j]))) {
                        violation("snapshot " + s.sequence() + ": key " + ks[j] + " read twice gives "
                                + describe(seen.get(ks[j])) + " then " + describe(again));
                    }
                }
                // Every batch seen in part must be seen whole: read its other keys too.
                for (byte[] v : new ArrayList<>(seen.values())) {
                    if (v != null && v.length >= 24) {
                        for (int member : batchOf(v)) {
                            seen.computeIfAbsent(member, m -> s.get(key(m)));
                        }
                    }
                }
                checkCut(seen, "snapshot " + s.sequence());
                count("snapshot");
            }
        }

        /**
         * One point in time: for every batch write seen, each other key of that batch that was seen
         * holds a write of that batch's operation or a later one of the same writer.
         */
        private void checkCut(Map<Integer, byte[]> seen, String what) {
            for (Map.Entry<Integer, byte[]> e : seen.entrySet()) {
                byte[] v = e.getValue();
                if (v == null || v.length < 24 || v[0] != MAGIC) {
                    continue;
                }
                long op = ByteBuffer.wrap(v).getLong(14);
                for (int member : batchOf(v)) {
                    byte[] other = seen.get(member);
                    if (other == null || member == e.getKey()) {
                        continue; // absent: a delete of that batch or later (null is checked by range only)
                    }
                    checks.increment();
                    long otherOp = ByteBuffer.wrap(other).getLong(14);
                    if (otherOp < op) {
                        violation(what + ": sees key " + e.getKey() + " from batch op " + op + " but key " + member
                                + " from older op " + otherOp + ": a batch seen in part");
                    }
                }
            }
        }

        /** Checks one read of key {@code k}: a version in [lo, hi], or absent when allowed. */
        void check(int k, byte[] got, long lo, long hi, String what) {
            checks.increment();
            if (got == null) {
                if (lo == 0) {
                    return;
                }
                for (long v = lo; v <= hi; v++) {
                    if (isDelete(k, v)) {
                        return;
                    }
                }
                violation(what + ": key " + k + " absent, but versions [" + lo + ", " + hi + "] are all puts");
                return;
            }
            String wrong = decodeProblem(k, got);
            if (wrong != null) {
                violation(what + ": key " + k + ": " + wrong);
                return;
            }
            long v = ByteBuffer.wrap(got).getLong(6);
            if (v < lo || v > hi) {
                violation(what + ": key " + k + " at version " + v + ", outside [" + lo + ", " + hi + "]"
                        + (v < lo ? ": an overwritten value" : ": a value not yet written"));
            }
        }

        /** After every writer stopped: each key holds its last acknowledged version, and nothing else. */
        void checkFinal(RemixDB store, String when) {
            int live = 0;
            for (int k = 0; k < KEYS; k++) {
                long v = acked.get(k);
                byte[] got = store.get(key(k));
                check(k, got, v, v, "final get " + when);
                if (v > 0 && !isDelete(k, v)) {
                    live++;
                }
            }
            int scanned = 0;
            int prev = -1;
            try (Cursor c = store.cursor()) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    int k = indexOf(c.key());
                    checks.increment();
                    if (k <= prev) {
                        violation("final scan " + when + ": key " + k + " after " + prev);
                    }
                    prev = k;
                    scanned++;
                }
            }
            checks.increment();
            if (scanned != live) {
                violation("final scan " + when + ": " + scanned + " keys, expected " + live);
            }
        }

        String summary(int n, long elapsedNanos, Stats stats) {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format("load, %d threads, %.1f s, seed %d:", n, elapsedNanos / 1e9, SEED));
            new java.util.TreeMap<>(ops).forEach((k, v) -> sb.append(' ').append(k).append('=').append(v.sum()));
            sb.append(" checks=").append(checks.sum()).append(" violations=").append(violations.sum());
            Stats.Compactions c = stats.compactions();
            sb.append(String.format(" compactions: %d minor, %d major, %d split, %d abort; %d tables, %d partitions;"
                            + " write stalls %.0f ms",
                    c.minor(), c.major(), c.split(), c.abort(), stats.tables(), stats.partitions(), stats.stallNanos() / 1e6));
            return sb.toString();
        }

        void addCounts(int n, Stats stats) {
            ops.forEach((k, v) -> COUNTS.add("ops." + k, v.sum()));
            ops.forEach((k, v) -> COUNTS.add("threads" + n + ".ops", v.sum()));
            COUNTS.add("checks", checks.sum());
            COUNTS.add("violations", violations.sum());
            Stats.Compactions c = stats.compactions();
            COUNTS.add("compactions.minor", c.minor());
            COUNTS.add("compactions.major", c.major());
            COUNTS.add("compactions.split", c.split());
            COUNTS.add("compactions.abort", c.abort());
        }
    }

    // ------------------------------------------------------------------ keys and values

    private static byte[] key(int k) {
        return new byte[] {'l', 'd', (byte) (k >>> 24), (byte) (k >>> 16), (byte) (k >>> 8), (byte) k};
    }

    /** The index of a key made by {@link #key}, or -1. */
    private static int indexOf(byte[] key) {
        if (key.length != 6 || key[0] != 'l' || key[1] != 'd') {
            return -1;
        }
        int k = ByteBuffer.wrap(key).getInt(2);
        return k >= 0 && k < KEYS ? k : -1;
    }

    private static long mix(long k, long v) {
        long z = k * 0x9E3779B97F4A7C15L + v * 0xC2B2AE3D27D4EB4FL + 0x165667B19E3779F9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Whether version {@code v} of key {@code k} is a delete: about one in five. */
    private static boolean isDelete(int k, long v) {
        return Long.remainderUnsigned(mix(k, v), 5) == 0;
    }

    /** Body bytes of version {@code v} of {@code k}: mostly under 48, one in 16 of 1 to 4 KiB. */
    private static byte[] body(int k, long v) {
        long h = mix(k, v);
        int len = (h & 15) == 0 ? 1000 + (int) ((h >>> 8) % 3000) : (int) ((h >>> 8) % 48);
        byte[] b = new byte[len];
        new SplittableRandom(h).nextBytes(b);
        return b;
    }

    /**
     * magic (1), flags (1), key (4), version (8), writer's operation (8), batch size m (2), the m keys
     * of the batch (4 each), body.
     */
    private static byte[] value(int k, long v, long op, boolean superseded, int[] batch) {
        byte[] body = body(k, v);
        int m = batch == null ? 0 : batch.length;
        ByteBuffer bb = ByteBuffer.allocate(24 + 4 * m + body.length);
        bb.put(MAGIC).put(superseded ? SUPERSEDED : 0).putInt(k).putLong(v).putLong(op).putShort((short) m);
        for (int j = 0; j < m; j++) {
            bb.putInt(batch[j]);
        }
        return bb.put(body).array();
    }

    private static int[] batchOf(byte[] value) {
        ByteBuffer bb = ByteBuffer.wrap(value);
        int m = value.length < 24 || value[0] != MAGIC ? 0 : bb.getShort(22);
        if (m < 0 || m > 8 || value.length < 24 + 4 * m) {
            return new int[0]; // a corrupt value, reported by decodeProblem
        }
        int[] ks = new int[m];
        for (int j = 0; j < m; j++) {
            ks[j] = bb.getInt(24 + 4 * j);
        }
        return ks;
    }

    /** What is wrong with {@code value} as a value of key {@code k}, or null. */
    private static String decodeProblem(int k, byte[] value) {
        if (value.length < 24 || value[0] != MAGIC) {
            return "not a value of this test: " + describe(value);
        }
        ByteBuffer bb = ByteBuffer.wrap(value);
        int key = bb.getInt(2);
        long v = bb.getLong(6);
        int m = bb.getShort(22);
        if (key != k) {
            return "holds the value of key " + key + " version " + v;
        }
        if (v <= 0 || isDelete(k, v)) {
            return "holds version " + v + ", which is not a put";
        }
        if ((value[1] & SUPERSEDED) != 0) {
            return "holds version " + v + ", overwritten in its own batch";
        }
        if (m < 0 || m > 8) {
            return "corrupt batch size " + m;
        }
        byte[] body = body(k, v);
        int from = 24 + 4 * m;
        if (value.length != from + body.length
                || !Arrays.equals(value, from, value.length, body, 0, body.length)) {
            return "corrupt body of version " + v + ": " + (value.length - from) + " bytes, expected " + body.length;
        }
        return null;
    }

    private static String describe(byte[] value) {
        if (value == null) {
            return "absent";
        }
        if (value.length >= 14 && value[0] == MAGIC) {
            ByteBuffer bb = ByteBuffer.wrap(value);
            return "key " + bb.getInt(2) + " version " + bb.getLong(6);
        }
        return value.length + " bytes " + java.util.HexFormat.of().formatHex(value, 0, Math.min(16, value.length));
    }

    /** Every thread with its full stack, monitors and locks (ThreadInfo.toString cuts at 8 frames). */
    static String threadDump() {
        StringBuilder sb = new StringBuilder("thread dump:\n");
        for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            sb.append('"').append(t.getThreadName()).append("\" ").append(t.getThreadState());
            if (t.getLockName() != null) {
                sb.append(" on ").append(t.getLockName());
            }
            if (t.getLockOwnerName() != null) {
                sb.append(" owned by \"").append(t.getLockOwnerName()).append('"');
            }
            sb.append('\n');
            for (StackTraceElement e : t.getStackTrace()) {
                sb.append("    at ").append(e).append('\n');
            }
            for (var lock : t.getLockedSynchronizers()) {
                sb.append("    holds ").append(lock).append('\n');
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
