package dev.remixdb.reliability.corruption;

import dev.remixdb.CorruptionException;
import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.VerifyReport;
import dev.remixdb.compaction.RemixDbPolicy;
import dev.remixdb.reliability.Counts;
import dev.remixdb.reliability.PrefixCheck;
import dev.remixdb.reliability.Workload;
import dev.remixdb.wal.WalReader;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
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
 * Damage at random places of every file kind of a closed store: a flipped bit, a zeroed 512-byte
 * sector, a truncation. Each must be found: by {@link RemixDB#verify} (a problem naming the
 * damaged file), and by the store itself as a {@link CorruptionException} when it opens or reads
 * the damaged part; or, for the end of the newest WAL, be cut at the last good record. In no case
 * may the store return data other than what was written (checked against the model), or crash.
 *
 * <p>{@code remixdb.corruption.trials} damages per file kind (CI 40, soak 500).
 */
class CorruptionSuiteTest {
    private static final int TRIALS = Integer.getInteger("remixdb.corruption.trials", 40);
    private static final Counts COUNTS = new Counts("corruption");
    private static final int OPS = 4000;

    enum Damage { FLIP_BIT, ZERO_SECTOR, TRUNCATE }

    @TempDir
    static Path tmp;

    private static Path template;
    private static Workload workload;
    private static Map<String, Long> model;

    static Options options() {
        return Options.builder().memtableBytes(64 * 1024).tableBytes(16 * 1024).blockCacheBytes(256 * 1024)
                .compactionPolicy(RemixDbPolicy.builder().maxTables(4).build()).build();
    }

    /** One store, closed cleanly with writes still in its WALs, that every trial copies and damages. */
    @BeforeAll
    static void makeStore() throws IOException {
        template = tmp.resolve("template");
        workload = new Workload(42, 1000, 50);
        try (RemixDB db = RemixDB.open(template, options())) {
            for (int i = 0; i < OPS; i++) {
                Workload.apply(db, workload.op(i));
            }
        }
        try (RemixDB db = RemixDB.open(template, options())) {
            // Writes after the reopen stay in the WAL: a store as a crash or close leaves it.
            for (int i = OPS; i < OPS + 300; i++) {
                Workload.apply(db, workload.op(i));
            }
            model = PrefixCheck.read(db);
        }
        assertTrue(RemixDB.verify(template).ok(), "the undamaged store must verify");
    }

    @AfterAll
    static void report() {
        COUNTS.report();
    }

    @Test
    void tables() throws IOException {
        trials(".tbl", 1);
    }

    @Test
    void remixFiles() throws IOException {
        trials(".rmx", 2);
    }

    @Test
    void wals() throws IOException {
        trials(".wal", 3);
    }

    @Test
    void manifest() throws IOException {
        trials("MANIFEST", 4);
    }

    /** The command line: 0 for a sound store, 1 for a damaged one, 2 for one it cannot check. */
    @Test
    void verifyCommandLine() throws IOException {
        Path good = tmp.resolve("cli-good");
        copy(template, good);
        assertEquals(0, dev.remixdb.Verify.run(good.toString()));
        Path bad = tmp.resolve("cli-bad");
        copy(template, bad);
        Path table = files(bad, ".tbl").getFirst();
        damage(table, Damage.TRUNCATE, new Random(1));
        assertEquals(1, dev.remixdb.Verify.run(bad.toString()));
        assertEquals(1, dev.remixdb.Verify.run(good.toString(), bad.toString()));
        try (RemixDB db = RemixDB.open(good, options())) {
            assertEquals(2, dev.remixdb.Verify.run(good.toString()), "an open store is not checked");
            assertEquals(null, db.get(new byte[] {0}), "and verify left it working");
        }
        assertEquals(2, dev.remixdb.Verify.run(tmp.resolve("no-such-store").toString()));
        assertEquals(2, dev.remixdb.Verify.run());
    }

    private void trials(String suffix, long salt) throws IOException {
        long seed = Long.getLong("remixdb.corruption.seed", System.nanoTime()) + salt;
        Random rnd = new Random(seed);
        List<Path> files = files(template, suffix);
        assertTrue(!files.isEmpty(), "the template store has no " + suffix + " file");
        for (int t = 0; t < TRIALS; t++) {
            Path dir = tmp.resolve(suffix.replace(".", "") + "-" + t);
            copy(template, dir);
            Path victim = dir.resolve(files.get(rnd.nextInt(files.size())).getFileName());
            Damage damage = Damage.values()[rnd.nextInt(Damage.values().length)];
            String where = "seed " + seed + " trial " + t + ": " + damage + " of " + victim.getFileName();
            String what = damage(victim, damage, rnd);
            if (what == null) {
                continue; // the bytes were already what the damage writes (zeros on zeros)
            }
            where += " " + what;
            trial(dir, victim, suffix.equals(".wal") && isNewestWal(dir, victim), where);
            deleteTree(dir);
        }
    }

    private void trial(Path dir, Path victim, boolean newestWal, String where) throws IOException {
        COUNTS.add("corruptions tried", 1);
        VerifyReport report = RemixDB.verify(dir);
        boolean verifyFound = report.problems().stream()
                .anyMatch(p -> p.file() != null && p.file().getFileName().equals(victim.getFileName()));
        boolean storeFound = false;
        Map<String, Long> state = null;
        try (RemixDB db = RemixDB.open(dir, options())) {
            state = readAll(db, where);
        } catch (CorruptionException e) {
            storeFound = true;
            assertTrue(e.getMessage().contains(" at offset "), where + ": " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(where + ": damage must raise CorruptionException, not this", e);
        }
        if (state != null && !state.equals(model)) {
            // Only a cut WAL tail may lose writes, and only those of the records cut off. (Not
            // always the newest writes: a compaction that keeps a partition's new data back logs it
            // again in the current WAL, so the tail can hold older versions too.)
            assertTrue(newestWal, where + ": the store returned data that differs from what was written");
            Set<String> lost = keysCutOff(template.resolve(victim.getFileName()), victim);
            Set<String> keys = new HashSet<>(model.keySet());
            keys.addAll(state.keySet());
            for (String k : keys) {
                if (!lost.contains(k)) {
                    assertEquals(model.get(k), state.get(k), where + ": key " + k + " is in no cut record, yet changed");
                }
            }
            COUNTS.add("keys in cut WAL records (may show older values)", lost.size());
        }
        if (verifyFound) {
            COUNTS.add("detected by verify", 1);
            if (storeFound) {
                COUNTS.add("also detected by open or read", 1);
            }
        } else if (newestWal && report.problems().isEmpty()) {
            // The end of the newest WAL: a torn record is cut (as after a crash), and a cut on a
            // record boundary is a valid shorter log.
            COUNTS.add("newest WAL tail cut at the last good record", 1);
            if (report.tornWalTails() > 0) {
                COUNTS.add("  of which torn records reported by verify", 1);
            }
        } else {
            COUNTS.add("missed", 1);
            fail(where + ": verify did not report the damaged file: " + report
                    + (storeFound ? " (the store itself did)" : ""));
        }
    }

    /** Keys of the records of WAL {@code original} that {@code cut} (the same WAL, cut short) lacks. */
    private static Set<String> keysCutOff(Path original, Path cut) throws IOException {
        long number = Long.parseLong(original.getFileName().toString().replace(".wal", ""));
        long kept = WalReader.check(cut, number, (seq, delete, key, ko, kl, value, vo, vl) -> { }).ops();
        List<String> all = new ArrayList<>();
        WalReader.check(original, number, (seq, delete, key, ko, kl, value, vo, vl) ->
                all.add(new String(key.asSlice(ko, kl).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                        java.nio.charset.StandardCharsets.UTF_8)));
        return new HashSet<>(all.subList((int) kept, all.size()));
    }

    /** Reads every key by scan and by get; damage found on the way must be a CorruptionException. */
    private static Map<String, Long> readAll(RemixDB db, String where) {
        Map<String, Long> state = PrefixCheck.read(db);
        for (String k : model.keySet()) {
            byte[] key = k.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            byte[] v = db.get(key);
            Long got = v == null ? null : Workload.decode(key, v);
            assertEquals(state.get(k), got, where + ": get and scan disagree on " + k);
        }
        return state;
    }

    /** Applies the damage; returns what was done, or null when it changed nothing. */
    private static String damage(Path f, Damage d, Random rnd) throws IOException {
        long size = Files.size(f);
        if (size == 0) {
            return null;
        }
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            switch (d) {
                case FLIP_BIT -> {
                    long at = rnd.nextLong(size);
                    ByteBuffer b = ByteBuffer.allocate(1);
                    ch.read(b, at);
                    b.put(0, (byte) (b.get(0) ^ (1 << rnd.nextInt(8)))).rewind();
                    ch.write(b, at);
                    return "at " + at;
                }
                case ZERO_SECTOR -> {
                    long at = rnd.nextLong(size) & ~511L;
                    int n = (int) Math.min(512, size - at);
                    ByteBuffer old = ByteBuffer.allocate(n);
                    ch.read(old, at);
                    boolean allZero = true;
                    for (int i = 0; i < n; i++) {
                        allZero &= old.get(i) == 0;
                    }
                    if (allZero) {
                        return null;
                    }
                    ch.write(ByteBuffer.allocate(n), at);
                    return "at " + at;
                }
                case TRUNCATE -> {
                    long to = rnd.nextLong(size);
                    ch.truncate(to);
                    return "to " + to + " of " + size + " bytes";
                }
            }
        }
        throw new AssertionError(d);
    }

    private static boolean isNewestWal(Path dir, Path wal) throws IOException {
        List<Path> wals = files(dir, ".wal");
        return wals.getLast().getFileName().equals(wal.getFileName());
    }

    private static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return new ArrayList<>(s.filter(p -> p.getFileName().toString().endsWith(suffix)
                            || p.getFileName().toString().equals(suffix))
                    .sorted(Comparator.comparing(p -> p.getFileName().toString())).toList());
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path p : s.toList()) {
                if (!p.getFileName().toString().equals("LOCK")) {
                    Files.copy(p, to.resolve(p.getFileName()));
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }
}
