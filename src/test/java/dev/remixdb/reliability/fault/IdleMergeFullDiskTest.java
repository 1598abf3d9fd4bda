package dev.remixdb.reliability.fault;

import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.compaction.RemixDbPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An idle merge is work the user never asked for: when it meets a full disk, the store must go on
 * (reads and writes alike) with every byte it had, instead of refusing writes as a failed flush does.
 */
class IdleMergeFullDiskTest {
    @TempDir
    Path tmp;

    /** The compactor looks for idle merges every 50 ms here instead of every second. */
    @BeforeAll
    static void lookOften() {
        System.setProperty("remixdb.idleMergeMillis", "50");
    }

    @AfterAll
    static void lookAsUsual() {
        System.clearProperty("remixdb.idleMergeMillis");
    }

    private static byte[] key(int i) {
        return String.format("k%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aFullDiskFailsTheIdleMergeNotTheStore() throws Exception {
        FaultyFileSystem fs = new FaultyFileSystem();
        Options options = Options.builder().memtableBytes(1 << 20).tableBytes(1 << 20)
                .compactionPolicy(RemixDbPolicy.withIdleMerges()).build();
        Map<String, byte[]> model = new TreeMap<>();
        try (RemixDB db = RemixDB.open(fs.wrap(tmp.resolve("db")), options)) {
            // Six runs that all overlap: round r holds the keys i with i % 6 == r.
            for (int round = 0; round < 6; round++) {
                for (int i = round; i < 1200; i += 6) {
                    byte[] v = {(byte) round, (byte) i};
                    db.put(key(i), v);
                    model.put(new String(key(i), StandardCharsets.UTF_8), v);
                }
                db.compactMemtable();
            }
            assertEquals(6, db.stats().tables());
            fs.spaceLimit(0);
            // A scan of every entry makes the partition a candidate; its merge hits the full disk.
            scanAll(db);
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (fs.injected().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertFalse(fs.injected().isEmpty(), "the idle merge never wrote");
            Thread.sleep(300);
            assertEquals(0, db.stats().compactions().idle(), db.stats().toString());
            assertEquals(6, db.stats().tables(), "the failed merge left the partition as it was");
            fs.heal();
            // The store still takes writes, flushes them, and reads every key.
            db.put(key(5000), new byte[] {7});
            model.put(new String(key(5000), StandardCharsets.UTF_8), new byte[] {7});
            db.compactMemtable();
            assertSame(model, db);
        }
        assertTrue(RemixDB.verify(fs.wrap(tmp.resolve("db"))).ok(), "verify after the failed idle merge");
        try (RemixDB db = RemixDB.open(fs.wrap(tmp.resolve("db")), options)) {
            assertSame(model, db);
        }
    }

    private static void scanAll(RemixDB db) {
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                c.key();
            }
        }
    }

    private static void assertSame(Map<String, byte[]> model, RemixDB db) {
        Map<String, byte[]> seen = new TreeMap<>();
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
}
