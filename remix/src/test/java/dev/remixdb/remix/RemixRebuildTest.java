package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.remixdb.remix.RemixCursor.Mode;
import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.RemixModel.Kv;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Remix#rebuild} gives exactly the REMIX a fresh build over all runs gives, byte for byte,
 * while reading few old keys: new keys come from the new runs' key sources, old slots are copied.
 */
class RemixRebuildTest {

    /** Old runs with a REMIX already built, and the runs added by the rebuild. */
    record RebuildCase(String name, Dataset old, Dataset added, int blockBytes, RemixConfig config) {
        Dataset all() {
            List<List<Kv>> runs = new ArrayList<>(old.runs());
            runs.addAll(added.runs());
            return new Dataset(runs);
        }

        @Override
        public String toString() {
            return name + ", D=" + config.segmentSize() + (config.tags() ? ", tags" : ", no tags");
        }
    }

    static Stream<RebuildCase> cases() {
        RandomRuns r = new RandomRuns(61);
        List<byte[]> keys = r.mixedKeys(700);
        List<byte[]> low = keys.subList(0, 200);
        List<byte[]> high = keys.subList(500, 700);
        List<Object[]> shapes = new ArrayList<>();
        shapes.add(new Object[] {"a small new run into several old runs", r.runs(keys, 6, 300), r.runs(keys, 1, 30), 64});
        shapes.add(new Object[] {"new keys all before the old ones", r.runs(high, 3, 150), r.runs(low, 2, 100), 128});
        shapes.add(new Object[] {"new keys all after the old ones", r.runs(low, 3, 150), r.runs(high, 2, 100), 128});
        shapes.add(new Object[] {"new runs repeat every old key", sameKeys(r, keys, 4, false), sameKeys(r, keys, 3, true), 256});
        shapes.add(new Object[] {"no old runs", new Dataset(List.of()), r.runs(keys, 3, 200), 64});
        shapes.add(new Object[] {"empty old runs", new Dataset(List.of(List.of(), List.of())), r.runs(keys, 2, 200), 64});
        shapes.add(new Object[] {"no new runs", r.runs(keys, 4, 200), new Dataset(List.of()), 64});
        shapes.add(new Object[] {"an empty new run", r.runs(keys, 4, 200), new Dataset(List.of(List.of())), 64});
        shapes.add(new Object[] {"new runs overlap each other", r.runs(keys, 3, 200), r.runs(keys.subList(100, 300), 5, 150), 64});
        shapes.add(new Object[] {"the run count reaches 16", r.runs(keys, 15, 100), r.runs(keys, 1, 300), 64});
        shapes.add(new Object[] {"100-byte shared prefixes", r.runs(r.prefixedKeys(300), 5, 200), r.runs(r.prefixedKeys(300), 2, 100), 256});
        shapes.add(new Object[] {"new keys just before old keys", unevenGroups(r, 300, 3), justBefore(r, 300), 64});
        shapes.add(new Object[] {"jumbo values", new RandomRuns(62).jumbo(0.2).runs(keys, 3, 100), new RandomRuns(63).jumbo(0.2).runs(keys, 1, 50), 4096});
        List<RebuildCase> cases = new ArrayList<>();
        for (Object[] s : shapes) {
            Dataset old = (Dataset) s[1];
            Dataset added = (Dataset) s[2];
            for (int d : new int[] {16, 32, 64}) {
                if (d >= old.runCount() + added.runCount()) {
                    for (boolean tags : new boolean[] {false, true}) {
                        cases.add(new RebuildCase((String) s[0], old, added, (Integer) s[3], new RemixConfig(d, tags)));
                    }
                }
            }
        }
        RandomRuns r63 = new RandomRuns(64);
        cases.add(new RebuildCase("63 runs", r63.runs(keys, 60, 40), r63.runs(keys, 3, 40), 128, new RemixConfig(64, true)));
        return cases.stream();
    }

    /** {@code runs} runs that each hold every key of {@code keys} (values, or tombstones when {@code delete}). */
    private static Dataset sameKeys(RandomRuns r, List<byte[]> keys, int runs, boolean delete) {
        List<List<Kv>> out = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            out.add(keys.stream().map(k -> delete ? Kv.delete(k) : Kv.put(k, r.value())).toList());
        }
        return new Dataset(out);
    }

    private static byte[] digits(int i) {
        return String.format("k%03d", i).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Keys k000.. each held by a random non-empty subset of {@code runs} runs: groups of 1 to
     * {@code runs} versions, so segments end with placeholders at varied places.
     */
    private static Dataset unevenGroups(RandomRuns r, int keys, int runs) {
        List<List<Kv>> out = new ArrayList<>();
        for (int j = 0; j < runs; j++) {
            out.add(new ArrayList<>());
        }
        for (int i = 0; i < keys; i++) {
            int mask = 1 + r.random().nextInt((1 << runs) - 1);
            for (int j = 0; j < runs; j++) {
                if ((mask & (1 << j)) != 0) {
                    out.get(j).add(r.entry(digits(i)));
                }
            }
        }
        return new Dataset(out);
    }

    /**
     * One run with, for a third of the keys k000.., the key just below it that shares all but its
     * last byte (k01/ff before k010): where a segment starts at such an old key, its anchor grows.
     */
    private static Dataset justBefore(RandomRuns r, int keys) {
        List<Kv> run = new ArrayList<>();
        for (int i = 1; i < keys; i++) {
            if (r.random().nextInt(3) == 0) {
                byte[] k = digits(i);
                k[k.length - 1]--;
                byte[] below = Arrays.copyOf(k, k.length + 1);
                below[k.length] = (byte) 0xFF;
                run.add(r.entry(below));
            }
        }
        return new Dataset(List.of(run));
    }

    /** The two REMIXes have the same shape and the same bytes in every section. */
    static void assertSameStructure(Remix expected, Remix actual) {
        assertEquals(expected.runCount(), actual.runCount(), "run count");
        assertEquals(expected.segmentSize(), actual.segmentSize(), "segment size");
        assertEquals(expected.hasTags(), actual.hasTags(), "tags");
        assertEquals(expected.segmentCount(), actual.segmentCount(), "segment count");
        assertEquals(expected.keyCount(), actual.keyCount(), "key count");
        assertSameBytes("anchor offsets", expected.anchorOffsets(), actual.anchorOffsets());
        assertSameBytes("anchor bytes", expected.anchorBytes(), actual.anchorBytes());
        assertSameBytes("segment records (selectors, tags, cursor offsets)", expected.records(), actual.records());
    }

    private static void assertSameBytes(String section, MemorySegment expected, MemorySegment actual) {
        long at = expected.mismatch(actual);
        if (at >= 0) {
            fail(section + " differ at byte " + at + " (sizes " + expected.byteSize() + " and " + actual.byteSize() + ")");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void rebuildEqualsAFreshBuildOverAllRuns(RebuildCase c) {
        Dataset all = c.all();
        List<MemoryRun> runs = RemixFixture.openRuns(all, c.blockBytes());
        List<MemoryRun> oldRuns = runs.subList(0, c.old().runCount());
        List<MemoryRun> newRuns = runs.subList(c.old().runCount(), runs.size());
        try {
            // Old keys read through the data blocks, then from the key sources: the same REMIX.
            for (boolean fromKeysBlocks : new boolean[] {false, true}) {
                RebuildStats stats = new RebuildStats();
                String name = c + (fromKeysBlocks ? ", old keys from key sources" : ", old keys from cursors");
                try (Remix old = Remix.build(oldRuns, c.config());
                     Remix rebuilt = RemixRebuilder.rebuild(old, newRuns, stats, fromKeysBlocks);
                     Remix fresh = Remix.build(runs, c.config())) {
                    assertSameStructure(fresh, rebuilt);
                    RemixInvariants.assertValid(rebuilt, all, runs);
                    assertEquals(c.added().keyCount(), stats.newKeysRead(), "new keys read: " + stats);
                    assertEquals(old.keyCount(), stats.oldSlotsReused(), "every old slot is copied once: " + stats);
                    assertEquals(fromKeysBlocks ? stats.oldKeysRead() : 0, stats.oldKeysFromKeysBlocks(), name + ": " + stats);
                    RemixModel model = new RemixModel(all);
                    new CursorChecker(rebuilt, model, Mode.ALL_VERSIONS, SeekStrategy.FULL, name).assertIteration();
                    new CursorChecker(rebuilt, model, Mode.LIVE, SeekStrategy.FULL, name)
                            .assertGets(CursorChecker.probes(model.keys()));
                }
            }
        } finally {
            RemixFixture.closeAll(runs);
        }
    }

    /** Old keys come from keys blocks only when every old run has one and together they fit in memory. */
    @Test
    void keysBlocksAreUsedOnlyWhenEveryRunHasOneAndTheyFit() {
        long max = RemixRebuilder.MAX_KEYS_BLOCK_BYTES;
        assertTrue(RemixRebuilder.keysBlocksFit(List.of()));
        assertTrue(RemixRebuilder.keysBlocksFit(List.of(withKeysBlock(10), withKeysBlock(max - 10))));
        assertFalse(RemixRebuilder.keysBlocksFit(List.of(withKeysBlock(10), withKeysBlock(-1))));
        assertFalse(RemixRebuilder.keysBlocksFit(List.of(withKeysBlock(max), withKeysBlock(1))));
    }

    private static Run withKeysBlock(long bytes) {
        return new Run() {
            @Override
            public int blockCount() {
                return 0;
            }

            @Override
            public int keyCount(int block) {
                throw new IndexOutOfBoundsException(block);
            }

            @Override
            public long keyCount() {
                return 0;
            }

            @Override
            public RunCursor newCursor() {
                throw new UnsupportedOperationException();
            }

            @Override
            public long keysBlockBytes() {
                return bytes;
            }
        };
    }

    /**
     * A new key that lands just before an old segment's first key changes the key before it, so the
     * old anchor cannot be reused: here segment 0 has one free slot, which takes the new key "bbba",
     * and the next segment still starts at "bbbb", whose anchor must grow from "b" to "bbbb".
     */
    @Test
    void anAnchorAfterANewKeyIsRecomputed() {
        byte[] first = "bbbb".getBytes(StandardCharsets.US_ASCII);
        List<Kv> run0 = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            run0.add(Kv.put(String.format("a%02d", i).getBytes(StandardCharsets.US_ASCII), new byte[0]));
        }
        run0.add(Kv.put(first, new byte[] {0}));
        List<Kv> run1 = List.of(Kv.put(first, new byte[] {1}));
        List<Kv> added = List.of(Kv.put("bbba".getBytes(StandardCharsets.US_ASCII), new byte[] {2}));
        List<MemoryRun> runs = RemixFixture.openRuns(new Dataset(List.of(run0, run1, added)), 4096);
        RemixConfig config = new RemixConfig(16, false);
        try (Remix old = Remix.build(runs.subList(0, 2), config);
             Remix rebuilt = Remix.rebuild(old, runs.subList(2, 3), null);
             Remix fresh = Remix.build(runs, config)) {
            assertEquals(2, old.segmentCount());
            assertEquals("b", new String(RemixInvariants.anchor(old, 1), StandardCharsets.US_ASCII));
            assertEquals("bbbb", new String(RemixInvariants.anchor(rebuilt, 1), StandardCharsets.US_ASCII));
            assertSameStructure(fresh, rebuilt);
        } finally {
            RemixFixture.closeAll(runs);
        }
    }

    /** Adding runs one rebuild at a time ends in the REMIX one build over all of them gives. */
    @Test
    void aChainOfRebuildsEqualsOneBuild() {
        RandomRuns r = new RandomRuns(65);
        Dataset all = r.runs(r.mixedKeys(600), 12, 250);
        List<MemoryRun> runs = RemixFixture.openRuns(all, 64);
        List<Remix> chain = new ArrayList<>();
        try {
            RemixConfig config = new RemixConfig(16, true);
            chain.add(Remix.build(runs.subList(0, 1), config));
            for (int i = 1; i < runs.size(); i++) {
                chain.add(Remix.rebuild(chain.getLast(), runs.subList(i, i + 1), null));
                try (Remix fresh = Remix.build(runs.subList(0, i + 1), config)) {
                    assertSameStructure(fresh, chain.getLast());
                }
            }
        } finally {
            RemixFixture.closeAll(chain);
            RemixFixture.closeAll(runs);
        }
    }

    /** A rebuild makes a new REMIX; the old one stays usable until closed, and closing the new one does not touch it. */
    @Test
    void theOldRemixStaysUsable() {
        RandomRuns r = new RandomRuns(66);
        Dataset old = r.runs(r.mixedKeys(400), 3, 200);
        Dataset all = new Dataset(Stream.concat(old.runs().stream(), r.runs(r.mixedKeys(400), 2, 200).runs().stream()).toList());
        List<MemoryRun> runs = RemixFixture.openRuns(all, 64);
        try (Remix oldRemix = Remix.build(runs.subList(0, 3), RemixConfig.DEFAULT)) {
            Remix.rebuild(oldRemix, runs.subList(3, 5), null).close();
            RemixModel model = new RemixModel(old);
            CursorChecker checker = new CursorChecker(oldRemix, model, Mode.NEWEST, SeekStrategy.FULL, "old REMIX after rebuild");
            checker.assertIteration();
            checker.assertSeeks(CursorChecker.probes(model.keys()));
        } finally {
            RemixFixture.closeAll(runs);
        }
    }

    /**
     * The point of a rebuild (REMIX §4.3, C RemixDB's CKB): adding 100 keys to a REMIX of 100,000
     * reads the 100 new keys from the key source and only a small fraction of the old keys.
     */
    @Test
    void addingASmallRunReadsFewOldKeys() {
        int oldRuns = 4;
        int perRun = 25_000;
        List<List<Kv>> data = new ArrayList<>();
        for (int r = 0; r < oldRuns; r++) {
            List<Kv> run = new ArrayList<>();
            for (int i = 0; i < perRun; i++) {
                run.add(Kv.put(intKey(2L * (i * oldRuns + r)), new byte[8]));
            }
            data.add(run);
        }
        Random rnd = new Random(67);
        TreeSet<Long> fresh = new TreeSet<>();
        while (fresh.size() < 100) {
            fresh.add((long) rnd.nextInt(2 * oldRuns * perRun));  // odd: new keys; even: new versions of old keys
        }
        data.add(fresh.stream().map(k -> Kv.put(intKey(k), new byte[8])).toList());
        Dataset all = new Dataset(data);
        List<MemoryRun> runs = RemixFixture.openRuns(all, 4096);
        RebuildStats stats = new RebuildStats();
        try (Remix old = Remix.build(runs.subList(0, oldRuns), RemixConfig.DEFAULT);
             Remix rebuilt = Remix.rebuild(old, runs.subList(oldRuns, oldRuns + 1), stats);
             Remix freshBuild = Remix.build(runs, RemixConfig.DEFAULT)) {
            assertSameStructure(freshBuild, rebuilt);
            assertEquals(100, stats.newKeysRead(), stats.toString());
            assertEquals(oldRuns * perRun, stats.oldSlotsReused(), stats.toString());
            assertTrue(stats.oldKeysRead() < 10_000, "old keys read to add 100 keys to 100,000: " + stats);
        } finally {
            RemixFixture.closeAll(runs);
        }
    }

    private static byte[] intKey(long k) {
        return ByteBuffer.allocate(8).putLong(k).array();
    }

    @Test
    void moreRunsThanTheSegmentSizeAreRefused() {
        List<List<Kv>> data = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            data.add(List.of(Kv.put(new byte[] {(byte) i}, new byte[0])));
        }
        List<MemoryRun> runs = RemixFixture.openRuns(new Dataset(data), 64);
        try (Remix old = Remix.build(runs.subList(0, 16), new RemixConfig(16, false))) {
            assertThrows(IllegalArgumentException.class, () -> Remix.rebuild(old, runs.subList(16, 17), null).close());
        } finally {
            RemixFixture.closeAll(runs);
        }
    }

    @Test
    void aNewRunOutOfOrderIsRefused() {
        List<Kv> unsorted = List.of(Kv.put(new byte[] {1}, new byte[0]), Kv.put(new byte[] {3}, new byte[0]),
                Kv.put(new byte[] {2}, new byte[0]));
        try (MemoryRun base = RemixFixture.openRun(List.of(Kv.put(new byte[] {2}, new byte[0])), 64);
             Remix old = Remix.build(List.of(base), RemixConfig.DEFAULT)) {
            assertThrows(IllegalArgumentException.class,
                    () -> Remix.rebuild(old, List.of(new ArrayRun(unsorted, 2)), null).close());
        }
    }

    @Test
    void aClosedRemixCannotBeRebuilt() {
        try (MemoryRun base = RemixFixture.openRun(List.of(Kv.put(new byte[] {2}, new byte[0])), 64)) {
            Remix old = Remix.build(List.of(base), RemixConfig.DEFAULT);
            old.close();
            assertThrows(IllegalStateException.class, () -> Remix.rebuild(old, List.of(), null).close());
        }
    }
}
