package dev.remixdb.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.remix.RunAddress;
import dev.remixdb.table.TableFixture.Kv;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** {@link TableCursor} against the entries a table was written from (see {@link CursorChecks}). */
class TableCursorTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} keys, {1}, {2}-byte blocks, cache {3}")
    @CsvSource({
            "0, NONE, 4096, 1048576",
            "1, NONE, 4096, 1048576",
            "1, LZ4, 4096, 1048576",
            "3000, NONE, 4096, 1048576",
            "3000, LZ4, 4096, 65536",
            "2000, NONE, 256, 0",
            "2000, LZ4, 512, 1048576",
    })
    void cursorMatchesModel(int keys, BlockCompression compression, int blockBytes, long cacheBytes) throws IOException {
        Random rnd = new Random(keys * 31L + blockBytes + compression.ordinal());
        List<Kv> kvs = TableFixture.randomKvs(rnd, keys, 0.15);
        try (TableFixture f = new TableFixture(dir, cacheBytes)) {
            Table t = f.table("t", kvs, new TableOptions(blockBytes, compression, true));
            CursorChecks checks = new CursorChecks(t, kvs, keys + " keys " + compression + " " + blockBytes);
            checks.all(rnd);
            checks.scanning().all(rnd);
            assertTrue(f.cache.memoryBytes() <= Math.max(cacheBytes, 4096) + 4096 * 16,
                    "cache memory " + f.cache.memoryBytes());
        }
    }

    @Property(tries = 40, seed = "20261122")
    void randomTables(@ForAll long seed, @ForAll @IntRange(min = 0, max = 400) int keys,
                      @ForAll BlockCompression compression, @ForAll boolean keysBlock,
                      @ForAll @IntRange(min = 8, max = 12) int blockShift) throws IOException {
        Path d = Files.createTempDirectory("table-prop");
        Random rnd = new Random(seed);
        List<Kv> kvs = TableFixture.randomKvs(rnd, keys, rnd.nextDouble() * 0.5);
        try (TableFixture f = new TableFixture(d, rnd.nextBoolean() ? 0 : 1 << 20)) {
            Table t = f.table("t", kvs, new TableOptions(1 << blockShift, compression, keysBlock));
            CursorChecks checks = new CursorChecks(t, kvs, "seed " + seed);
            checks.all(rnd);
            checks.scanning().all(rnd);
        } finally {
            try (var files = Files.list(d)) {
                files.forEach(TableFixture::delete);
            }
            Files.delete(d);
        }
    }

    /**
     * A scan cursor (compaction's) returns what a normal cursor does, uses blocks the cache already
     * holds, and neither adds blocks to the cache nor counts hits or misses.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"NONE", "LZ4"})
    void scanCursorReadsPastTheCache(BlockCompression compression) throws IOException {
        List<Kv> kvs = TableFixture.randomKvs(new Random(11), 3000, 0.1);
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            Table t = f.table("t", kvs, TableOptions.DEFAULT.withCompression(compression));
            int small = 0;
            while (t.blocks().rawLength(small) > dev.remixdb.cache.BlockCache.SLOT_BYTES) {  // a jumbo block is never cached
                small++;
            }
            try (TableCursor warm = t.newCursor()) {  // caches that one block
                warm.seekTo(RunAddress.of(small, 0));
                warm.keySegment();
            }
            long cached = f.cache.blockCount();
            long hits = f.cache.hits();
            long misses = f.cache.misses();
            assertEquals(1, cached);
            int i = 0;
            try (TableCursor c = t.newScanCursor()) {
                for (c.seekTo(RunAddress.of(0, 0)); c.isValid(); c.next(), i++) {
                    Kv kv = kvs.get(i);
                    MemorySegment k = c.keySegment().asSlice(c.keyOffset(), c.keyLength());
                    assertEquals(-1, k.mismatch(MemorySegment.ofArray(kv.key())), "key " + i);
                    assertEquals(kv.tombstone(), c.isTombstone(), "tombstone " + i);
                    if (!kv.tombstone()) {
                        MemorySegment v = c.valueSegment().asSlice(c.valueOffset(), c.valueLength());
                        assertEquals(-1, v.mismatch(MemorySegment.ofArray(kv.value())), "value " + i);
                    }
                }
            }
            assertEquals(kvs.size(), i);
            assertEquals(cached, f.cache.blockCount(), "a scan adds nothing to the cache");
            assertEquals(hits, f.cache.hits());
            assertEquals(misses, f.cache.misses());
        }
    }

    /**
     * Scan cursors read uncached blocks a window at a time: over a table of many windows, with
     * values larger than a window among them (read block by block, as before), every walk, seek and
     * skip returns what the table holds, and nothing reaches the cache.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"NONE", "LZ4"})
    void scanCursorsReadWindowsOfBlocks(BlockCompression compression) throws IOException {
        Random rnd = new Random(17 + compression.ordinal());
        List<Kv> kvs = new ArrayList<>(TableFixture.randomKvs(rnd, 5000, 0.1));
        for (int k = 0; k < 6; k++) {
            int i = rnd.nextInt(kvs.size());
            byte[] big = new byte[ScanWindow.BYTES + rnd.nextInt(-8192, 70_000)];
            rnd.nextBytes(big);
            kvs.set(i, new Kv(kvs.get(i).key(), big));
        }
        try (TableFixture f = new TableFixture(dir, 0)) {
            Table t = f.table("t", kvs, TableOptions.DEFAULT.withCompression(compression));
            assertTrue(t.fileBytes() > 8L * ScanWindow.BYTES, "a table of many windows: " + t.fileBytes());
            new CursorChecks(t, kvs, "windows " + compression).scanning().all(rnd);
            assertEquals(0, f.cache.blockCount(), "a scan cursor caches nothing");
        }
    }

    @Test
    void tableFactsAndBlockStructure() throws IOException {
        Random rnd = new Random(7);
        List<Kv> kvs = TableFixture.randomKvs(rnd, 1500, 0.2);
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            TableInfo info = f.write("t", kvs, TableOptions.DEFAULT);
            Table t = f.open("t");
            assertEquals(info.keyCount(), t.keyCount());
            assertEquals(info.tombstoneCount(), t.tombstoneCount());
            assertEquals(info.blockCount(), t.blockCount());
            assertEquals(Files.size(dir.resolve("t")), t.fileBytes());
            assertEquals(info.fileBytes(), t.fileBytes());
            long sum = 0;
            for (int b = 0; b < t.blockCount(); b++) {
                assertTrue(t.keyCount(b) >= 1 && t.keyCount(b) <= RunAddress.MAX_KEYS_PER_BLOCK);
                sum += t.keyCount(b);
            }
            assertEquals(kvs.size(), sum);
            assertTrue(t.memoryBytes() >= 24L * t.blockCount());
        }
    }

    @Test
    void jumboAndCompressedBlocksAreWritten() throws IOException {
        List<Kv> kvs = TableFixture.randomKvs(new Random(8), 2000, 0.1);
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            Table t = f.table("t", kvs, TableOptions.DEFAULT.withCompression(BlockCompression.LZ4));
            int jumbo = 0;
            int compressed = 0;
            int compressedJumbo = 0;
            int plain = 0;
            for (int b = 0; b < t.blockCount(); b++) {
                boolean big = t.blocks().rawLength(b) > 4096;
                boolean lz4 = t.blocks().compressed(b);
                jumbo += big ? 1 : 0;
                compressed += lz4 && !big ? 1 : 0;
                compressedJumbo += lz4 && big ? 1 : 0;
                plain += !lz4 ? 1 : 0;
                if (big) {
                    assertEquals(1, t.keyCount(b));
                }
            }
            assertTrue(jumbo > 0 && compressed > 0 && compressedJumbo > 0 && plain > 0,
                    jumbo + " jumbo, " + compressed + " compressed, " + compressedJumbo + " compressed jumbo, " + plain + " plain");
            new CursorChecks(t, kvs, "lz4").iterate();
        }
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            Table t = f.table("plain", kvs, TableOptions.DEFAULT);
            for (int b = 0; b < t.blockCount(); b++) {
                assertFalse(t.blocks().compressed(b));
                assertEquals(0, t.blocks().offset(b) % 4096, "uncompressed blocks are page-aligned");
            }
        }
    }

    @Test
    void movingReadsNoBlockUntilAKeyIsNeeded() throws IOException {
        List<Kv> kvs = TableFixture.randomKvs(new Random(9), 2000, 0.1);
        try (TableFixture f = new TableFixture(dir, 0)) {
            Table t = f.table("t", kvs, TableOptions.DEFAULT);
            assertTrue(t.blockCount() > 10);
            try (TableCursor c = t.newCursor()) {
                c.seekTo(RunAddress.of(1, 0));
                c.skip(500);
                c.next();
                c.prev();
                c.skip(-3);
                assertEquals(0, f.cache.misses() + f.cache.hits(), "positioning touched a block");
                int address = c.address();
                c.keyLength();
                c.valueLength();
                c.isTombstone();
                assertEquals(1, f.cache.misses() + f.cache.hits(), "one block read for the current entry");
                assertEquals(RunAddress.advance(t, RunAddress.of(1, 0), 497), address);
            }
        }
    }

    @Test
    void emptyTableHasNoKeys() throws IOException {
        try (TableFixture f = new TableFixture(dir, 0)) {
            TableInfo info = f.write("t", List.of(), TableOptions.DEFAULT);
            assertEquals(0, info.keyCount());
            Table t = f.open("t");
            assertEquals(0, t.blockCount());
            assertEquals(null, t.firstKey());
            try (TableCursor c = t.newCursor()) {
                c.seek(java.lang.foreign.MemorySegment.ofArray(new byte[] {1}), 0, 1);
                assertFalse(c.isValid());
                c.prev();
                assertFalse(c.isValid());
                assertEquals(RunAddress.of(0, 0), c.address());
            }
        }
    }

    @Test
    void useAfterCloseNamesTheTable() throws IOException {
        List<Kv> kvs = TableFixture.randomKvs(new Random(3), 50, 0);
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            Table t = f.table("t", kvs, TableOptions.DEFAULT);
            TableCursor c = t.newCursor();
            c.seekTo(0);
            assertTrue(c.keyLength() >= 0);
            TableCursor closedCursor = t.newCursor();
            closedCursor.close();
            IllegalStateException e0 = assertThrows(IllegalStateException.class, () -> closedCursor.seekTo(0));
            assertTrue(e0.getMessage().contains("closed"), e0.getMessage());
            t.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, c::next);
            assertTrue(e.getMessage().contains(dir.resolve("t").toString()), e.getMessage());
            assertThrows(IllegalStateException.class, c::keySegment);
            assertThrows(IllegalStateException.class, t::newCursor);
            assertThrows(IllegalStateException.class, t::keySource);
            c.close();  // releases its pin; the cache had dropped the table's blocks
            assertEquals(0, f.cache.blockCount());
            t.close();  // idempotent
        }
    }

    @Test
    void badAddressesAreRejected() throws IOException {
        List<Kv> kvs = TableFixture.randomKvs(new Random(5), 100, 0);
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            Table t = f.table("t", kvs, TableOptions.DEFAULT);
            try (TableCursor c = t.newCursor()) {
                assertThrows(IllegalArgumentException.class, () -> c.seekTo(RunAddress.of(0, t.keyCount(0))));
                assertThrows(IllegalArgumentException.class, () -> c.seekTo(RunAddress.of(t.blockCount() + 1, 0)));
                assertThrows(IllegalArgumentException.class, () -> c.seekTo(RunAddress.of(t.blockCount(), 1)));
                c.seekTo(0);
                assertThrows(IllegalArgumentException.class, () -> c.skip(-1));
            }
        }
    }

    @Test
    void concurrentReadersShareTheCache() throws Exception {
        Random rnd = new Random(11);
        List<Kv> kvs = TableFixture.randomKvs(rnd, 3000, 0.1);
        try (TableFixture f = new TableFixture(dir, 64 * 1024);
             ExecutorService pool = Executors.newFixedThreadPool(4)) {
            Table t = f.table("t", kvs, TableOptions.DEFAULT.withCompression(BlockCompression.LZ4));
            List<Future<?>> futures = new ArrayList<>();
            for (int th = 0; th < 4; th++) {
                long seed = th;
                futures.add(pool.submit(() -> {
                    Random r = new Random(seed);
                    try (TableCursor c = t.newCursor()) {
                        for (int k = 0; k < 3000; k++) {
                            Kv kv = kvs.get(r.nextInt(kvs.size()));
                            c.seek(java.lang.foreign.MemorySegment.ofArray(kv.key()), 0, kv.key().length);
                            assertTrue(c.isValid());
                            assertEquals(kv.tombstone(), c.isTombstone());
                            if (!kv.tombstone()) {
                                assertEquals(java.util.Arrays.hashCode(kv.value()), java.util.Arrays.hashCode(
                                        TableFixture.bytes(c.valueSegment(), c.valueOffset(), c.valueLength())));
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> fu : futures) {
                fu.get();
            }
            assertTrue(f.cache.hits() > 0 && f.cache.misses() > 0);
        }
    }
}
