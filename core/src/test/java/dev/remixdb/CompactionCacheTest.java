package dev.remixdb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compactions read every key of the tables they merge and index, once, in order: those blocks must
 * not go through the block cache, or each compaction would pull whole partitions in and evict what
 * readers use (RocksDB reads compaction input without filling its cache for the same reason).
 */
class CompactionCacheTest {
    @TempDir
    Path dir;

    @Test
    void compactionsLeaveTheBlockCacheToReaders() throws Exception {
        Options options = Options.builder()
                .memtableBytes(1 << 20)
                .tableBytes(2 << 20)
                .blockCacheBytes(64L << 20)
                .build();
        Random random = new Random(3);
        byte[] value = new byte[400];
        int n = 40_000;
        try (RemixDB db = RemixDB.open(dir, options)) {
            for (int i = 0; i < n; i++) {
                random.nextBytes(value);
                db.put(key(random.nextInt(n)), value.clone());
            }
            // Every memtable to tables, then every partition merged whole: a full REMIX build of each.
            db.compactMemtable();
            db.compactRange(null, null);
            Stats s = db.stats();
            assertTrue(s.compactions().minor() + s.compactions().major() + s.compactions().split() >= 5,
                    "the load should have compacted several times: " + s);
            long data = s.diskBytes();
            assertTrue(data > 8L << 20, "about 16 MB of data expected: " + s);
            assertTrue(s.blockCacheBytes() < data / 8,
                    "compactions filled the block cache with " + s.blockCacheBytes() + " bytes of a store of " + data);

            // Readers still fill it.
            for (int i = 0; i < 2_000; i++) {
                db.get(key(random.nextInt(n)));
            }
            byte[] k = key(7);
            db.put(k, "seven".getBytes(StandardCharsets.UTF_8));
            assertArrayEquals("seven".getBytes(StandardCharsets.UTF_8), db.get(k));
            assertTrue(db.stats().blockCacheBytes() > s.blockCacheBytes(), "gets fill the cache: " + db.stats());
        }
    }

    private static byte[] key(int i) {
        return String.format("key%012d", i).getBytes(StandardCharsets.UTF_8);
    }
}
