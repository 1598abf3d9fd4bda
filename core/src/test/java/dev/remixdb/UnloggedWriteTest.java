package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RemixDB#writeUnlogged}: writes that skip the WAL are read at once, cost no WAL bytes, and
 * are made durable by {@code sync()}, by {@code close()} and before the next logged write; a
 * process killed while restoring reopens with its recorded offset never ahead of its data, whether
 * the restore writes unlogged, deferred ({@link RemixDB#writeDeferred}) or both.
 */
class UnloggedWriteTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void unloggedWritesAreReadAtOnceCostNoWalAndSurviveCloseAndSync() throws Exception {
        Options options = Options.builder().memtableBytes(32 * 1024).tableBytes(16 * 1024).build();
        try (RemixDB db = RemixDB.open(dir.resolve("a"), options)) {
            db.put(b("logged-before"), b("1"));
            long wal = db.stats().walBytesWritten();
            for (int i = 0; i < 2000; i++) {
                db.writeUnlogged(new WriteBatch().put(b("k" + i), b("v" + i)).delete(b("gone" + i)));
            }
            assertEquals(wal, db.stats().walBytesWritten(), "unlogged writes add nothing to the WAL");
            for (int i = 0; i < 2000; i += 97) {
                assertArrayEquals(b("v" + i), db.get(b("k" + i)));
            }
            db.sync();
            db.writeUnlogged(new WriteBatch().put(b("after-sync"), b("x")));
        }
        try (RemixDB db = RemixDB.open(dir.resolve("a"), options)) {
            for (int i = 0; i < 2000; i++) {
                assertArrayEquals(b("v" + i), db.get(b("k" + i)), "k" + i + " after close");
            }
            assertArrayEquals(b("x"), db.get(b("after-sync")), "close persists unlogged writes");
            assertArrayEquals(b("1"), db.get(b("logged-before")));
            // A logged write after unlogged ones: they are persisted first, and all of it reads back.
            db.writeUnlogged(new WriteBatch().put(b("u"), b("1")));
            db.put(b("l"), b("2"));
            assertArrayEquals(b("1"), db.get(b("u")));
        }
        assertTrue(RemixDB.verify(dir.resolve("a")).ok());
    }

    /**
     * A restore killed with SIGKILL at random moments, several times over: after every kill the
     * store opens, and every record of every batch up to the recorded offset is there, whatever
     * the kill cut short. The recorded offset is at least the last one the child saw synced.
     */
    @Test
    void aRestoreKilledAnywhereKeepsItsOffsetBehindItsData() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        Path store = dir.resolve("restore");
        long lastSynced = -1;
        for (int round = 0; round < 8; round++) {
            String where = "seed " + seed + " round " + round;
            String mode = List.of("unlogged", "deferred", "mixed").get(rnd.nextInt(3));
            where += " (" + mode + " writes)";
            long synced = runChild(store, 1 + rnd.nextInt(6), 2 + rnd.nextInt(15), rnd.nextInt(40), mode);
            lastSynced = Math.max(lastSynced, synced);
            try (RemixDB db = RemixDB.open(store, RestoreChild.options())) {
                byte[] o = db.get(RestoreChild.OFFSET);
                assertTrue(o != null, where + ": an offset was synced");
                long offset = ByteBuffer.wrap(o).getLong();
                assertTrue(offset >= lastSynced, where + ": offset " + offset + " behind the synced " + lastSynced);
                for (long r = 0; r < (offset + 1) * RestoreChild.BATCH; r++) {
                    assertArrayEquals(RestoreChild.value(r), db.get(RestoreChild.key(r)),
                            where + ": record " + r + " of a batch up to offset " + offset);
                }
                lastSynced = offset;
            }
            assertTrue(RemixDB.verify(store).ok(), where);
        }
    }

    /**
     * Runs the child until it has synced {@code offsets} offsets and {@code delayMillis} more (so that
     * kills land anywhere, also between an offset's write and its sync), kills it, and returns the
     * last offset it saw synced.
     */
    private static long runChild(Path store, int offsetEvery, int offsets, int delayMillis, String mode) throws Exception {
        KilledChild child = KilledChild.start(RestoreChild.class, "O", store.toString(), Integer.toString(offsetEvery), mode);
        return child.killWhen(() -> child.lines() >= offsets, delayMillis);
    }
}
