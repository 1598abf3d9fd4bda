package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kills a writing child JVM ({@link CrashChild}) with SIGKILL, over and over on one store, with
 * memtables so small that compactions and manifest switches are always under way: in even rounds
 * after a random number of syncs, in odd rounds as soon as a compaction starts writing a table.
 * After each kill the store must open, and every synced operation must be visible: a key holds the
 * value of its last synced operation or of a later one, never an older value or garbage.
 */
class CrashTest {
    @TempDir
    Path dir;

    /** Rounds of kill and reopen; raise with -Dremixdb.crash.rounds for a soak run. */
    private static final int ROUNDS = Integer.getInteger("remixdb.crash.rounds", 8);

    @Test
    void syncedWritesSurviveKillNine() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        long next = 0;
        // Operations [start, last synced] of each round: the ones the store must keep. Numbers grow
        // from round to round, so a higher number is always a later synced operation.
        List<long[]> synced = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            int syncEvery = 1 + rnd.nextInt(50);
            int killAfter = 1 + rnd.nextInt(400);
            long lastSynced = runChild(next, syncEvery, killAfter, round % 2 == 1);
            synced.add(new long[] {next, lastSynced});
            String where = "seed " + seed + " round " + round + " (ops " + next + ".." + lastSynced + " synced)";
            next = verify(synced, where);
        }
    }

    /**
     * Starts the child at operation {@code start} and kills it: after {@code killAfter} sync lines,
     * or, when {@code duringCompaction}, as soon as a table file appears that was not there when
     * the child started (a compaction is writing, before its manifest switch) once at least one
     * operation was synced. Returns the last synced operation.
     */
    private long runChild(long start, int syncEvery, int killAfter, boolean duringCompaction) throws Exception {
        Set<String> tablesBefore = tables();
        KilledChild child = KilledChild.start(CrashChild.class, "S", dir.toString(), Long.toString(start),
                Integer.toString(syncEvery));
        return child.killWhen(() -> duringCompaction ? child.lines() > 0 && !tablesBefore.containsAll(tablesNow())
                : child.lines() >= killAfter, 0);
    }

    private Set<String> tablesNow() {
        try {
            return tables();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Set<String> tables() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".tbl")).collect(Collectors.toSet());
        }
    }

    /**
     * Opens the store and checks every key against the synced operations; returns the operation the
     * next child starts at (past every synced operation and every operation the store shows).
     */
    private long verify(List<long[]> synced, String where) throws Exception {
        Map<String, Long> lastSyncedOp = new HashMap<>();
        long maxSeen = 0;
        for (long[] range : synced) {
            for (long i = range[0]; i <= range[1]; i++) {
                lastSyncedOp.put(new String(CrashChild.key(i), StandardCharsets.UTF_8), i);
            }
            maxSeen = Math.max(maxSeen, range[1]);
        }
        try (RemixDB db = RemixDB.open(dir, CrashChild.options())) {
            for (Map.Entry<String, Long> e : lastSyncedOp.entrySet()) {
                byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
                long want = e.getValue();
                byte[] v = db.get(key);
                if (v == null) {
                    // Deleted by the last synced operation, or by a later unsynced one.
                    if (!CrashChild.isDelete(want)) {
                        long later = laterDelete(key, want);
                        assertTrue(later >= 0, where + ": " + e.getKey() + " lost operation " + want);
                    }
                    continue;
                }
                long op = CrashChild.operation(v);
                assertTrue(op >= want, where + ": " + e.getKey() + " shows operation " + op + ", synced " + want);
                assertEquals(e.getKey(), new String(CrashChild.key(op), StandardCharsets.UTF_8), where + ": wrong key's value");
                assertEquals(new String(CrashChild.value(op), StandardCharsets.ISO_8859_1),
                        new String(v, StandardCharsets.ISO_8859_1), where + ": value bytes of operation " + op);
                maxSeen = Math.max(maxSeen, op);
            }
            int n = 0;
            try (Cursor c = db.cursor()) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    assertNotNull(db.get(c.key()), where + ": scan shows a key get does not");
                    maxSeen = Math.max(maxSeen, CrashChild.operation(c.value()));
                    n++;
                }
            }
            assertTrue(n <= CrashChild.KEYS, where);
        }
        // Operation i always writes the same key and value, so running an unsynced number again is
        // harmless; starting past every synced one keeps synced numbers in time order.
        return maxSeen + 1;
    }

    /** A delete of {@code key} after operation {@code after} within the next few thousand operations. */
    private static long laterDelete(byte[] key, long after) {
        String k = new String(key, StandardCharsets.UTF_8);
        for (long i = after + 1; i < after + 100_000; i++) {
            if (CrashChild.isDelete(i) && k.equals(new String(CrashChild.key(i), StandardCharsets.UTF_8))) {
                return i;
            }
        }
        return -1;
    }
}
