package dev.remixdb.reliability.fault;

import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.VerifyReport;
import dev.remixdb.compaction.RemixDbPolicy;
import dev.remixdb.reliability.Counts;
import dev.remixdb.reliability.PrefixCheck;
import dev.remixdb.reliability.Workload;
import dev.remixdb.reliability.fault.FaultyFileSystem.Kind;
import dev.remixdb.reliability.fault.FaultyFileSystem.Op;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * I/O faults injected under a working store ({@link FaultyFileSystem}): a failing write, fsync,
 * rename or read of a WAL, table, REMIX file, MANIFEST or the directory, and a disk that fills up.
 * While the workload runs, every read must return what the model says or fail with the injected
 * error, never other data; every failed write must fail with an {@link IOException} that carries
 * the injected error; after a fault the store either keeps working or refuses writes. Then the
 * store is closed, the disk healed, and the reopened store must hold every acknowledged (synced)
 * write, no half batch and no undone delete ({@link PrefixCheck}), and pass {@link RemixDB#verify}.
 *
 * <p>Each scenario runs {@code remixdb.fault.rounds} times (CI 3, soak profile 20) with the fault
 * placed at a random call.
 */
class FaultInjectionTest {
    private static final int ROUNDS = Integer.getInteger("remixdb.fault.rounds", 3);
    private static final int KEYS = 800;
    private static final int MAX_OPS = 20_000;
    private static final Counts COUNTS = new Counts("faults");

    @TempDir
    Path tmp;

    /** A fault to place: {@code op} on files of {@code kind}, after a random number of calls below {@code range}. */
    record Scenario(String name, Op op, Kind kind, int range, boolean sticky, long spaceLimit) {
        static Scenario fail(Op op, Kind kind, int range) {
            return new Scenario(op + " " + kind, op, kind, range, false, -1);
        }

        static Scenario dead(Op op, Kind kind, int range) {
            return new Scenario(op + " " + kind + " (every call after)", op, kind, range, true, -1);
        }

        static Scenario full(long bytes) {
            return new Scenario("ENOSPC after up to " + bytes + " bytes", null, null, 0, true, bytes);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Object[]> scenarios() {
        List<Scenario> list = List.of(
                Scenario.fail(Op.WRITE, Kind.WAL, 1500),
                Scenario.fail(Op.FSYNC, Kind.WAL, 300),
                Scenario.dead(Op.WRITE, Kind.WAL, 1500),
                Scenario.fail(Op.WRITE, Kind.TABLE, 60),
                Scenario.fail(Op.FSYNC, Kind.TABLE, 20),
                Scenario.dead(Op.WRITE, Kind.TABLE, 60),
                Scenario.fail(Op.WRITE, Kind.REMIX, 60),
                Scenario.fail(Op.FSYNC, Kind.REMIX, 15),
                Scenario.fail(Op.WRITE, Kind.MANIFEST, 15),
                Scenario.fail(Op.FSYNC, Kind.MANIFEST, 15),
                Scenario.fail(Op.RENAME, Kind.MANIFEST, 15),
                Scenario.fail(Op.FSYNC, Kind.DIRECTORY, 30),
                Scenario.fail(Op.READ, Kind.TABLE, 400),
                Scenario.dead(Op.READ, Kind.TABLE, 400),
                Scenario.full(3 << 20));
        List<Object[]> out = new ArrayList<>();
        for (Scenario s : list) {
            for (int r = 0; r < ROUNDS; r++) {
                out.add(new Object[] {s, r});
            }
        }
        return out.stream();
    }

    @AfterAll
    static void report() {
        COUNTS.report();
    }

    static Options options() {
        return Options.builder().memtableBytes(64 * 1024).tableBytes(16 * 1024).blockCacheBytes(256 * 1024)
                .compactionPolicy(RemixDbPolicy.builder().maxTables(4).build()).build();
    }

    @ParameterizedTest(name = "{0} #{1}")
    @MethodSource("scenarios")
    void storeSurvivesFault(Scenario s, int round) throws Exception {
        long seed = Long.getLong("remixdb.fault.seed", System.nanoTime());
        Random rnd = new Random(seed);
        String where = s + " round " + round + " seed " + seed;
        Path real = tmp.resolve("db");
        FaultyFileSystem fs = new FaultyFileSystem();
        Workload w = new Workload(seed, KEYS, 5);
        Map<String, Long> live = new HashMap<>();
        Set<Long> skipped = new HashSet<>();
        long acked = -1;
        long issued = -1;
        boolean refused = false;
        int firedAt = -1;
        RemixDB db = RemixDB.open(fs.wrap(real), options());
        try {
            if (s.spaceLimit() > 0) {
                fs.spaceLimit(256 * 1024 + rnd.nextLong(s.spaceLimit()));
            } else {
                fs.failOn(s.op(), s.kind(), rnd.nextInt(s.range()), s.sticky());
            }
            for (int i = 0; i < MAX_OPS && !refused; i++) {
                if (firedAt >= 0 && i > firedAt + 300) {
                    break;
                }
                Workload.Op op = w.op(i);
                issued = i;
                try {
                    Workload.write(db, op);
                    apply(live, op);
                } catch (IOException e) {
                    assertInjected(e, where + ": op " + i);
                    // The failed op must not be visible; whether later writes go on decides its fate.
                    checkInvisible(db, op, live, where);
                    if (writesWork(db, i)) {
                        skipped.add((long) i);
                        COUNTS.add("kept working after a write failed", 1);
                    } else {
                        refused = true;
                        COUNTS.add("refused writes after the fault", 1);
                    }
                }
                if (op.sync() && !refused) {
                    try {
                        db.sync();
                        acked = i;
                    } catch (IOException e) {
                        assertInjected(e, where + ": sync after op " + i);
                        // What was written since the last good sync may be lost: no later write may
                        // be acknowledged as if it were not.
                        assertTrue(!writesWork(db, i), where + ": the store took a write after a failed sync");
                        refused = true;
                        COUNTS.add("refused writes after the fault", 1);
                    }
                }
                if (firedAt < 0 && !fs.injected().isEmpty()) {
                    firedAt = i;
                }
                readSome(db, live, rnd, where);
            }
        } finally {
            closeQuietly(db, where);
        }
        int faults = fs.injected().size();
        assertTrue(faults > 0, where + ": the fault never fired in " + (issued + 1) + " ops");
        COUNTS.add("runs", 1);
        COUNTS.add("faults injected", faults);
        COUNTS.add("scenario " + s.name() + ": faults", faults);
        fs.heal();

        VerifyReport report = RemixDB.verify(real);
        assertTrue(report.ok(), where + ": verify after the fault: " + report);
        try (RemixDB again = RemixDB.open(real, options())) {
            Map<String, Long> state = PrefixCheck.read(again);
            new PrefixCheck(Map.of()).match(w, 0, acked, issued + 2, state, where, skipped::contains);
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(where + ": the healed store does not reopen", e);
        }
        COUNTS.add("reopened with all acknowledged data", 1);
    }

    static Stream<Object[]> openFaults() {
        List<Object[]> out = new ArrayList<>();
        for (Op op : List.of(Op.READ, Op.WRITE, Op.FSYNC)) {
            for (Kind kind : List.of(Kind.WAL, Kind.TABLE, Kind.REMIX, Kind.MANIFEST, Kind.DIRECTORY)) {
                if (!(op == Op.READ && kind == Kind.DIRECTORY)) {
                    out.add(new Object[] {op, kind});
                }
            }
        }
        return out.stream();
    }

    /**
     * A fault while a store opens (recovery reads the MANIFEST, tables, REMIX files and WALs, cuts
     * a torn WAL tail, creates a new WAL): the open fails with the injected error and leaves the
     * store as it was, or succeeds; either way a later open sees every write.
     */
    @ParameterizedTest(name = "{0} {1} at open")
    @MethodSource("openFaults")
    void openSurvivesFault(Op op, Kind kind) throws Exception {
        long seed = Long.getLong("remixdb.fault.seed", System.nanoTime());
        String where = op + " " + kind + " at open, seed " + seed;
        Path real = tmp.resolve("db");
        Workload w = new Workload(seed, KEYS, 5);
        int ops = 1500;
        try (RemixDB db = RemixDB.open(real, options())) {
            for (int i = 0; i < ops; i++) {
                Workload.apply(db, w.op(i));
            }
        }
        FaultyFileSystem fs = new FaultyFileSystem();
        int failedOpens = 0;
        for (int skip = 0; skip < 3; skip++) {
            fs.heal();
            fs.failOn(op, kind, skip, false);
            try {
                RemixDB.open(fs.wrap(real), options()).close();
                COUNTS.add("opens the fault did not stop", 1);
            } catch (IOException | RuntimeException e) {
                assertInjected(e, where + " (skip " + skip + ")");
                failedOpens++;
                COUNTS.add("opens failed cleanly by the fault", 1);
            }
        }
        COUNTS.add("faults injected at open", fs.injected().size());
        fs.heal();
        try (RemixDB db = RemixDB.open(real, options())) {
            // Closed cleanly before the faults: every op is there, exactly.
            new PrefixCheck(Map.of()).match(w, 0, ops - 1, ops + 1, PrefixCheck.read(db), where);
        }
        assertTrue(RemixDB.verify(real).ok(), where);
        if (op == Op.READ && kind != Kind.DIRECTORY) {
            assertTrue(failedOpens > 0, where + ": an open that reads every " + kind + " never met the fault");
        }
    }

    /** After a failed write: do writes work now? Tries one put (of a key the next op would write, same value). */
    private static boolean writesWork(RemixDB db, int failed) {
        // A probe that is part of the workload would break the model; a delete of a key no op writes
        // changes no state the check looks at.
        try {
            db.delete("probe-not-in-workload".getBytes());
            return true;
        } catch (IOException e) {
            assertInjected(e, "write after a failed op " + failed);
            return false;
        }
    }

    private static void apply(Map<String, Long> live, Workload.Op op) {
        for (int pos = 0; pos < op.writes().size(); pos++) {
            String key = Workload.show(op.writes().get(pos).key());
            long id = Workload.identity(op, pos);
            if (id < 0) {
                live.remove(key);
            } else {
                live.put(key, id);
            }
        }
    }

    private static void checkInvisible(RemixDB db, Workload.Op op, Map<String, Long> live, String where) {
        for (int pos = 0; pos < op.writes().size(); pos++) {
            byte[] key = op.writes().get(pos).key();
            byte[] v;
            try {
                v = db.get(key);
            } catch (UncheckedIOException e) {
                assertInjected(e, where);
                continue;
            }
            Long expect = live.get(Workload.show(key));
            Long actual = v == null ? null : Workload.decode(key, v);
            assertEquals(expect, actual, where + ": a failed op's write to " + Workload.show(key) + " is visible");
        }
    }

    /** A few gets and a short scan, checked against the live model; an injected read error is fine. */
    private static void readSome(RemixDB db, Map<String, Long> live, Random rnd, String where) {
        try {
            for (int j = 0; j < 3; j++) {
                byte[] key = Workload.key(rnd.nextInt(KEYS));
                byte[] v = db.get(key);
                Long actual = v == null ? null : Workload.decode(key, v);
                assertEquals(live.get(Workload.show(key)), actual, where + ": get " + Workload.show(key));
            }
            if (rnd.nextInt(10) == 0) {
                try (Cursor c = db.cursor()) {
                    int n = 0;
                    for (c.seekToFirst(); c.isValid() && n < 50; c.next(), n++) {
                        byte[] k = c.key();
                        assertEquals(live.get(Workload.show(k)), Workload.decode(k, c.value()), where + ": scan");
                    }
                }
            }
        } catch (UncheckedIOException e) {
            assertInjected(e, where + ": read");
            COUNTS.add("read errors surfaced", 1);
        }
    }

    private static void closeQuietly(RemixDB db, String where) {
        try {
            db.close();
        } catch (IOException e) {
            // Closing syncs the WAL: with a dead disk that fails, which is fine, but it must say why.
            assertInjected(e, where + ": close");
            COUNTS.add("close reported the fault", 1);
        }
    }

    /** The error (or one it wraps or suppresses) must be the injected one: a clear cause, not a side effect. */
    static void assertInjected(Throwable e, String where) {
        if (!mentionsInjected(e, new HashSet<>())) {
            fail(where + ": failed with an error that does not carry the injected fault", e);
        }
    }

    private static boolean mentionsInjected(Throwable e, Set<Throwable> seen) {
        if (e == null || !seen.add(e)) {
            return false;
        }
        if (String.valueOf(e.getMessage()).contains(FaultyFileSystem.INJECTED)) {
            return true;
        }
        for (Throwable s : e.getSuppressed()) {
            if (mentionsInjected(s, seen)) {
                return true;
            }
        }
        return mentionsInjected(e.getCause(), seen);
    }
}
