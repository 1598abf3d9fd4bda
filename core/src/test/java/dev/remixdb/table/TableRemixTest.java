package dev.remixdb.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.io.BlockFile;
import dev.remixdb.io.BlockRead;
import dev.remixdb.io.BlockReader;
import dev.remixdb.io.FileChannelBlockReader;
import dev.remixdb.remix.RebuildStats;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixConfig;
import dev.remixdb.remix.RemixCursor;
import dev.remixdb.remix.RemixCursor.Mode;
import dev.remixdb.table.TableFixture.Kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Tables as the runs of a {@link Remix}: proves that {@link Table} keeps the {@code Run} contract. */
class TableRemixTest {
    @TempDir
    Path dir;

    /** Four tables drawn from one key universe, so keys have up to four versions; run i is newer than run i-1. */
    private static List<List<Kv>> datasets(Random rnd) {
        List<Kv> universe = TableFixture.randomKvs(rnd, 2500, 0);
        List<List<Kv>> runs = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            List<Kv> run = new ArrayList<>();
            for (Kv kv : universe) {
                if (rnd.nextInt(100) < 40) {
                    run.add(new Kv(kv.key(), rnd.nextInt(100) < 20 ? null : TableFixture.randomValue(rnd)));
                }
            }
            runs.add(run);
        }
        return runs;
    }

    /** Newest version of each key: the run that holds it last wins. */
    private static TreeMap<byte[], Kv> newest(List<List<Kv>> runs) {
        TreeMap<byte[], Kv> model = new TreeMap<>(Arrays::compareUnsigned);
        for (List<Kv> run : runs) {
            for (Kv kv : run) {
                model.put(kv.key(), kv);
            }
        }
        return model;
    }

    @ParameterizedTest
    @EnumSource(BlockCompression.class)
    void scanAndGetMatchTheModel(BlockCompression compression) throws IOException {
        Random rnd = new Random(42 + compression.ordinal());
        List<List<Kv>> runs = datasets(rnd);
        TreeMap<byte[], Kv> model = newest(runs);
        try (TableFixture f = new TableFixture(dir, 256 * 1024)) {
            List<Table> tables = new ArrayList<>();
            for (int r = 0; r < runs.size(); r++) {
                tables.add(f.table("t" + r, runs.get(r), TableOptions.DEFAULT.withCompression(compression)));
            }
            try (Remix remix = Remix.build(tables, RemixConfig.DEFAULT)) {
                try (RemixCursor c = remix.cursor(Mode.NEWEST)) {
                    c.seekToFirst();
                    for (Kv kv : model.values()) {
                        assertTrue(c.isValid());
                        assertEntry(kv, c);
                        c.next();
                    }
                    assertFalse(c.isValid());
                }
                try (RemixCursor c = remix.cursor(Mode.LIVE)) {
                    c.seekToFirst();
                    for (Kv kv : model.values()) {
                        if (!kv.tombstone()) {
                            assertTrue(c.isValid());
                            assertEntry(kv, c);
                            c.next();
                        }
                    }
                    assertFalse(c.isValid());
                    for (Map.Entry<byte[], Kv> e : model.entrySet()) {
                        Kv kv = e.getValue();
                        assertEquals(!kv.tombstone(), c.get(kv.key()));
                        if (!kv.tombstone()) {
                            assertArrayEquals(kv.value(), c.valueBytes());
                        }
                        byte[] absent = Arrays.copyOf(kv.key(), kv.key().length + 1);
                        absent[absent.length - 1] = 0x37;
                        assertEquals(model.containsKey(absent) && !model.get(absent).tombstone(), c.get(absent));
                    }
                }
            }
        }
    }

    @Test
    void rebuildFromTheKeysBlockEqualsAFreshBuild() throws IOException {
        Random rnd = new Random(99);
        List<List<Kv>> runs = datasets(rnd);
        CountingReader counting = new CountingReader(new FileChannelBlockReader());
        try (TableFixture f = new TableFixture(dir, 256 * 1024)) {
            List<Table> tables = openCounted(f, runs, counting, 100);
            Table newest = tables.getLast();
            try (Remix old = Remix.build(tables.subList(0, 3), RemixConfig.DEFAULT)) {
                counting.reads.clear();
                RebuildStats stats = new RebuildStats();
                try (Remix rebuilt = Remix.rebuild(old, List.of(newest), stats)) {
                    assertEquals(runs.getLast().size(), stats.newKeysRead());
                    // The new table's keys came from its keys block alone: no read of its data blocks.
                    long newTableReads = 0;
                    for (BlockRead r : counting.reads) {
                        if (r.file().path().equals(newest.path())) {
                            assertEquals(newest.keysBlockOffset(), r.offset(), "rebuild read a data block of the new table");
                            newTableReads++;
                        }
                    }
                    assertEquals(1, newTableReads);
                    // About one new key per three old ones lands in every old segment: the old keys
                    // came from the old tables' keys blocks too, one read each, no data block.
                    assertTrue(stats.oldKeysRead() > 0, stats.toString());
                    assertEquals(stats.oldKeysRead(), stats.oldKeysFromKeysBlocks(), stats.toString());
                    assertOnlyKeysBlocksRead(counting, tables.subList(0, 3), "reads of an old table");
                    try (Remix fresh = Remix.build(tables, RemixConfig.DEFAULT)) {
                        assertEquals(scan(fresh), scan(rebuilt));
                    }
                }
            } finally {
                for (Table t : tables) {
                    t.close();
                }
            }
        }
    }

    /** Each of {@code tables} was read once since {@code counting} was cleared: its keys block. */
    private static void assertOnlyKeysBlocksRead(CountingReader counting, List<Table> tables, String what) {
        for (Table t : tables) {
            List<Long> offsets = counting.reads.stream()
                    .filter(r -> r.file().path().equals(t.path())).map(BlockRead::offset).toList();
            assertEquals(List.of(t.keysBlockOffset()), offsets, t.path() + ": " + what);
        }
    }

    /**
     * A build over tables takes their keys from the keys blocks, one read per table and no data
     * block (a compaction that just wrote the tables does not read them all again), and indexes
     * every version as the model says.
     */
    @Test
    void aBuildReadsOnlyTheKeysBlocks() throws IOException {
        Random rnd = new Random(7);
        List<List<Kv>> runs = datasets(rnd);
        CountingReader counting = new CountingReader(new FileChannelBlockReader());
        try (TableFixture f = new TableFixture(dir, 256 * 1024)) {
            List<Table> tables = openCounted(f, runs, counting, 200);
            try {
                counting.reads.clear();
                try (Remix remix = Remix.build(tables, RemixConfig.DEFAULT)) {
                    assertOnlyKeysBlocksRead(counting, tables, "reads of a table by a build");
                    List<String> expected = new ArrayList<>();
                    TreeMap<byte[], List<Integer>> versions = new TreeMap<>(Arrays::compareUnsigned);
                    for (int r = runs.size() - 1; r >= 0; r--) {
                        for (Kv kv : runs.get(r)) {
                            versions.computeIfAbsent(kv.key(), k -> new ArrayList<>()).add(r);
                        }
                    }
                    for (Map.Entry<byte[], List<Integer>> e : versions.entrySet()) {
                        for (int run : e.getValue()) {
                            expected.add(Arrays.toString(e.getKey()) + "@" + run);
                        }
                    }
                    List<String> actual = new ArrayList<>();
                    try (RemixCursor c = remix.cursor(Mode.ALL_VERSIONS)) {
                        for (c.seekToFirst(); c.isValid(); c.next()) {
                            actual.add(Arrays.toString(c.keyBytes()) + "@" + c.runId());
                        }
                    }
                    assertEquals(expected, actual, "every version, newest run first");
                }
            } finally {
                for (Table t : tables) {
                    t.close();
                }
            }
        }
    }

    /** Writes one table per run (files t0, t1, ...) and opens them numbered from {@code firstNumber}, reading through {@code counting}. */
    private List<Table> openCounted(TableFixture f, List<List<Kv>> runs, CountingReader counting, long firstNumber)
            throws IOException {
        List<Table> tables = new ArrayList<>();
        for (int r = 0; r < runs.size(); r++) {
            f.write("t" + r, runs.get(r), TableOptions.DEFAULT);
            tables.add(Table.open(firstNumber + r, dir.resolve("t" + r), counting, f.cache));
        }
        return tables;
    }

    private static List<String> scan(Remix remix) {
        List<String> out = new ArrayList<>();
        try (RemixCursor c = remix.cursor(Mode.ALL_VERSIONS)) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                out.add(Arrays.toString(c.keyBytes()) + "@" + c.runId() + (c.isTombstone() ? "T" : "")
                        + (c.isStale() ? "S" : "") + "=" + Arrays.hashCode(c.valueBytes()));
            }
        }
        return out;
    }

    private static void assertEntry(Kv kv, RemixCursor c) {
        assertArrayEquals(kv.key(), c.keyBytes());
        assertEquals(kv.tombstone(), c.isTombstone());
        assertArrayEquals(kv.tombstone() ? new byte[0] : kv.value(), c.valueBytes());
    }

    /** Records every read it passes on. */
    private static final class CountingReader implements BlockReader {
        final BlockReader inner;
        final List<BlockRead> reads = new CopyOnWriteArrayList<>();

        CountingReader(BlockReader inner) {
            this.inner = inner;
        }

        @Override
        public BlockFile open(Path path) throws IOException {
            return inner.open(path);
        }

        @Override
        public CompletableFuture<Void> read(List<BlockRead> batch) {
            reads.addAll(batch);
            return inner.read(batch);
        }

        @Override
        public void readFully(BlockFile file, long offset, MemorySegment dst) throws IOException {
            reads.add(new BlockRead(file, offset, dst));
            inner.readFully(file, offset, dst);
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
