package dev.remixdb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.remixdb.compaction.CompactionPlan;
import dev.remixdb.compaction.CompactionPolicy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan counters ({@link Stats#scanSkipped()}, {@link Stats#scanReturned()}) that feed the
 * compaction policy: exact against counts made by hand from the writes, on stores whose data all
 * sits in tables (the policies here never keep data in memory).
 */
class ScanCountersTest {
    @TempDir
    Path dir;

    /** New data always becomes new tables: every version stays until a merge. */
    private static final CompactionPolicy MINOR_ONLY = p -> p.newKeys() == 0 ? CompactionPlan.ABORT : CompactionPlan.MINOR;

    /** Every flush merges the whole partition: no stale version or tombstone survives. */
    private static final CompactionPolicy MERGE_ALL = p -> p.newKeys() == 0 ? CompactionPlan.ABORT
            : p.tableCount() == 0 ? CompactionPlan.MINOR : CompactionPlan.major(p.tableCount());

    private static Options options(CompactionPolicy policy) {
        return Options.builder().memtableBytes(1 << 20).tableBytes(1 << 20).compactionPolicy(policy).build();
    }

    private static byte[] key(int i) {
        return String.format("k%03d", i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void forwardScansCountStaleVersionsAndTombstones() throws Exception {
        try (RemixDB db = RemixDB.open(dir, options(MINOR_ONLY))) {
            for (int i = 0; i < 100; i++) {
                db.put(key(i), new byte[] {1});
            }
            db.compactMemtable();
            for (int i = 0; i < 50; i++) {
                db.put(key(i), new byte[] {2});
            }
            for (int i = 50; i < 60; i++) {
                db.delete(key(i));
            }
            db.compactMemtable();
            assertEquals(0, db.stats().scanSkipped(), "no scan yet");
            int seen = 0;
            try (Cursor c = db.cursor()) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    seen++;
                }
            }
            assertEquals(90, seen);
            // 50 overwritten keys leave 50 stale versions; 10 deleted keys leave 10 stale puts and 10 tombstones.
            Stats s = db.stats();
            assertEquals(70, s.scanSkipped(), s.toString());
            assertEquals(90, s.scanReturned(), s.toString());

            // Backward, a key's stale versions are walked to reach its newest, so only tombstones count.
            try (Cursor c = db.cursor()) {
                for (c.seekToLast(); c.isValid(); c.prev()) {
                    seen++;
                }
            }
            s = db.stats();
            assertEquals(70 + 10, s.scanSkipped(), s.toString());
            assertEquals(90 + 90, s.scanReturned(), s.toString());
        }
    }

    @Test
    void aMergeStartsTheCountsOver() throws Exception {
        try (RemixDB db = RemixDB.open(dir, options(MERGE_ALL))) {
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 100; i++) {
                    db.put(key(i), new byte[] {(byte) round});
                }
                db.compactMemtable();
            }
            db.delete(key(7));
            db.compactMemtable();
            try (Cursor c = db.cursor()) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    c.key();
                }
            }
            // The merges dropped every old version and the tombstone: nothing to pass over.
            assertEquals(0, db.stats().scanSkipped());
            assertEquals(99, db.stats().scanReturned());
            db.put(key(8), new byte[] {9});
            db.compactMemtable();
            assertEquals(0, db.stats().scanReturned(), "a new partition, new counts");
        }
    }

    @Test
    void randomWritesAgainstTheModel() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        try (RemixDB db = RemixDB.open(dir, options(MINOR_ONLY))) {
            for (int flush = 0; flush < 12; flush++) {
                for (int i = 0; i < 300; i++) {
                    byte[] k = key(rnd.nextInt(400));
                    if (rnd.nextInt(4) == 0) {
                        db.delete(k);
                        model.remove(k);
                    } else {
                        byte[] v = new byte[rnd.nextInt(20)];
                        rnd.nextBytes(v);
                        db.put(k, v);
                        model.put(k, v);
                    }
                }
                db.compactMemtable();
            }
            Stats before = db.stats();
            try (Cursor c = db.cursor()) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    c.value();
                }
            }
            Stats after = db.stats();
            // Every version in the tables is either returned (the newest, when a put) or passed over.
            assertEquals(model.size(), after.scanReturned(), "seed " + seed);
            assertEquals(before.keys() - model.size(), after.scanSkipped(), "seed " + seed + ": " + after);
        }
    }

    @Test
    void rangeReduceMergesAPartitionWhoseScansMeetDebt() throws Exception {
        // No budget limit: this test is about the Bounded-Merge test (IdleMergeTest covers the budget).
        // Idle merges held back: an idle pass (on a timer) could merge the partition before the flush.
        CompactionPolicy rr = new GatedIdleMerges(dev.remixdb.compaction.RangeReducePolicy.builder(MINOR_ONLY)
                .minDebtFraction(0).minScanned(100).budget(Double.POSITIVE_INFINITY).build());
        try (RemixDB db = RemixDB.open(dir, options(rr))) {
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 300; i++) {
                    db.put(key(i), new byte[] {(byte) round});
                }
                db.compactMemtable();
            }
            // No scan yet: the base policy's Minor, and 300 stale versions stay.
            assertEquals(0, db.stats().compactions().major());
            try (Cursor c = db.cursor()) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    c.key();
                }
            }
            assertEquals(300, db.stats().scanSkipped());
            db.put(key(0), new byte[] {7});
            db.compactMemtable();
            Stats s = db.stats();
            assertEquals(1, s.compactions().major(), "the scans' debt turned the Minor into a merge: " + s);
            assertEquals(300, s.keys(), "one version per key is left: " + s);
            assertEquals(1, s.tables(), s.toString());
            assertArrayEqualsValue(db.get(key(0)), 7);
            assertArrayEqualsValue(db.get(key(299)), 1);
        }
    }

    private static void assertArrayEqualsValue(byte[] value, int expected) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {(byte) expected}, value);
    }
}
