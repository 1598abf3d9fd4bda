package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random puts, deletes, gets and scans against a {@link TreeMap}, with memtables and tables so
 * small that every kind of compaction runs, and reopens in between.
 */
class ModelTest {
    @TempDir
    Path dir;

    static Options tiny() {
        return Options.builder().memtableBytes(16 * 1024).tableBytes(8 * 1024).blockCacheBytes(256 * 1024)
                .compactionThreads(2).build();
    }

    @Test
    void randomOperationsMatchTheModelAcrossReopens() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        Stats last = null;
        long minor = 0;
        long major = 0;
        long split = 0;
        long abort = 0;
        for (int round = 0; round < 6; round++) {
            try (RemixDB db = RemixDB.open(dir, tiny())) {
                check(db, model, rnd, "seed " + seed + " round " + round + " after open");
                for (int i = 0; i < 4000; i++) {
                    step(db, model, rnd, seed);
                }
                check(db, model, rnd, "seed " + seed + " round " + round);
                db.compactMemtable();
                check(db, model, rnd, "seed " + seed + " round " + round + " after compaction");
                last = db.stats();
                Stats.Compactions c = last.compactions();
                minor += c.minor();
                major += c.major();
                split += c.split();
                abort += c.abort();
            }
        }
        assertTrue(last.partitions() > 1, "splits made partitions: " + last);
        // Over all sessions: a policy that keeps partitions larger (Garnering) may not split in every one.
        assertTrue(minor > 0 && major > 0 && split > 0 && abort > 0, "every compaction kind ran: minor " + minor
                + ", major " + major + ", split " + split + ", abort " + abort);
    }

    private static void step(RemixDB db, NavigableMap<byte[], byte[]> model, Random rnd, long seed) throws IOException {
        byte[] key = key(rnd.nextInt(3000), rnd);
        int op = rnd.nextInt(10);
        if (op < 6) {
            byte[] value = new byte[rnd.nextInt(10) == 0 ? rnd.nextInt(6000) : rnd.nextInt(40)];
            rnd.nextBytes(value);
            db.put(key, value);
            model.put(key, value);
        } else if (op < 8) {
            db.delete(key);
            model.remove(key);
        } else if (rnd.nextInt(40) == 0) {
            // A range delete now and then: the keys between two keys of one prefix group.
            int n = rnd.nextInt(3000);
            byte[] from = key(n, rnd);
            byte[] to = key(n + 7 * (1 + rnd.nextInt(20)), rnd);
            if (Arrays.compareUnsigned(from, to) > 0) {
                byte[] t = from;
                from = to;
                to = t;
            }
            db.deleteRange(from, to);
            model.subMap(from, true, to, false).clear();
        } else {
            assertArrayEquals(model.get(key), db.get(key), "get, seed " + seed);
        }
    }

    /** Keys share prefixes and vary in length, so partitions split inside common prefixes. */
    static byte[] key(int n, Random rnd) {
        return ("user" + (n % 7) + ":" + n).getBytes(StandardCharsets.UTF_8);
    }

    static void check(RemixDB db, NavigableMap<byte[], byte[]> model, Random rnd, String where) {
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getValue(), db.get(e.getKey()), where + ": get " + new String(e.getKey()));
        }
        assertNull(db.get("absent".getBytes(StandardCharsets.UTF_8)), where);
        try (Cursor c = db.cursor()) {
            c.seekToFirst();
            for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
                assertTrue(c.isValid(), where + ": scan ended early before " + new String(e.getKey()));
                assertArrayEquals(e.getKey(), c.key(), where + ": scan key");
                assertArrayEquals(e.getValue(), c.value(), where + ": scan value");
                c.next();
            }
            assertFalse(c.isValid(), where + ": scan has extra keys");
            for (int i = 0; i < 200; i++) {
                byte[] probe = key(rnd.nextInt(3100), rnd);
                if (rnd.nextBoolean()) {
                    probe = Arrays.copyOf(probe, probe.length - 1);
                }
                c.seek(probe);
                Map.Entry<byte[], byte[]> want = model.ceilingEntry(probe);
                for (int j = 0; j < 5; j++) {
                    if (want == null) {
                        assertFalse(c.isValid(), where + ": seek past the end");
                        break;
                    }
                    assertTrue(c.isValid(), where + ": seek " + new String(probe));
                    assertArrayEquals(want.getKey(), c.key(), where + ": seek key");
                    assertArrayEquals(want.getValue(), c.value(), where + ": seek value");
                    c.next();
                    want = model.higherEntry(want.getKey());
                }
            }
        }
        assertEquals(model.size(), countLive(db), where);
    }

    private static int countLive(RemixDB db) {
        int n = 0;
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                n++;
            }
        }
        return n;
    }
}
