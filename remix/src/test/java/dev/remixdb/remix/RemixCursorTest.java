package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.remix.RemixCursor.Mode;
import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.RemixModel.Entry;
import dev.remixdb.remix.RemixModel.Kv;
import dev.remixdb.remix.Scenarios.Case;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A REMIX cursor shows the same sorted view as a plain merge of its runs (the model), in every mode,
 * with every in-segment search strategy, every segment size and with or without hash tags: seeking
 * to every key, just before and just after it, then walking forwards and backwards.
 */
class RemixCursorTest {

    static Stream<Arguments> casesAndModes() {
        return Scenarios.cases().flatMap(c -> Stream.of(Mode.values()).map(m -> Arguments.of(c, m)));
    }

    static Stream<Arguments> casesModesAndStrategies() {
        return casesAndModes().flatMap(a -> Stream.of(SeekStrategy.values())
                .map(s -> Arguments.of(a.get()[0], a.get()[1], s)));
    }

    private static void check(Case c, Mode mode, SeekStrategy strategy, CheckBody body) {
        try (RemixFixture f = c.open()) {
            body.run(new CursorChecker(f.remix, f.model, mode, strategy, c.toString()), CursorChecker.probes(f.model.keys()));
        }
    }

    private interface CheckBody {
        void run(CursorChecker checker, List<byte[]> probes);
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("casesAndModes")
    void iterationForwardAndBackwardMatchesTheModel(Case c, Mode mode) {
        check(c, mode, SeekStrategy.FULL, (checker, probes) -> checker.assertIteration());
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("casesModesAndStrategies")
    void seekLandsOnTheFirstEntryAtOrAfterEachProbe(Case c, Mode mode, SeekStrategy strategy) {
        check(c, mode, strategy, (checker, probes) -> checker.assertSeeks(probes));
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("casesModesAndStrategies")
    void seekForPrevLandsOnTheLastKeyAtOrBeforeEachProbe(Case c, Mode mode, SeekStrategy strategy) {
        check(c, mode, strategy, (checker, probes) -> checker.assertSeekForPrevs(probes));
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("casesModesAndStrategies")
    void getFindsEveryKeyAndNoAbsentKey(Case c, Mode mode, SeekStrategy strategy) {
        check(c, mode, strategy, (checker, probes) -> checker.assertGets(probes));
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @MethodSource("casesModesAndStrategies")
    void randomNextAndPrevAfterAnyPositioningMatchTheModel(Case c, Mode mode, SeekStrategy strategy) {
        check(c, mode, strategy, (checker, probes) -> checker.assertRandomWalks(probes, c.toString().hashCode(), 300, 12));
    }

    /**
     * In ALL_VERSIONS mode the last entry at or before a key that has several versions is its oldest
     * version, so that seekForPrev then prev visits every version {@code <= key}, as a backward scan
     * must (the mirror of seek, which lands on the newest version).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(SeekStrategy.class)
    void seekForPrevInAllVersionsModeLandsOnTheOldestVersion(SeekStrategy strategy) {
        byte[] k = {'k'};
        Dataset data = new Dataset(List.of(
                List.of(Kv.put(new byte[] {'a'}, new byte[] {0}), Kv.put(k, new byte[] {0})),
                List.of(Kv.put(new byte[] {'a'}, new byte[] {1}), Kv.put(k, new byte[] {1})),
                List.of(Kv.put(k, new byte[] {2}))));
        try (RemixFixture f = RemixFixture.build(data, RemixConfig.DEFAULT, 4096);
             RemixCursor c = strategy.open(f.remix, Mode.ALL_VERSIONS)) {
            c.seekForPrev(MemorySegment.ofArray(k), 0, k.length);
            List<String> backward = new ArrayList<>();
            for (; c.isValid(); c.prev()) {
                backward.add(CursorChecker.actual(c).toString());
            }
            List<String> expected = new ArrayList<>();
            for (Entry e : f.model.view(Mode.ALL_VERSIONS).entries().reversed()) {
                expected.add(e.toString());
            }
            assertEquals(expected, backward, "seekForPrev('k') then prev() in ALL_VERSIONS mode");
        }
    }

    /** A REMIX is shared by readers: cursors on two threads at once each see the whole view. */
    @Test
    void cursorsOnSeveralThreadsSeeTheSameView() throws Exception {
        Case c = Scenarios.cases().filter(x -> x.scenario().name().startsWith("16 runs")).findFirst().orElseThrow();
        try (RemixFixture f = c.open(); ExecutorService pool = Executors.newFixedThreadPool(2)) {
            List<byte[]> probes = CursorChecker.probes(f.model.keys());
            List<Future<?>> done = new ArrayList<>();
            for (Mode mode : Mode.values()) {
                for (SeekStrategy strategy : SeekStrategy.values()) {
                    CursorChecker checker = new CursorChecker(f.remix, f.model, mode, strategy, c + ", concurrent");
                    done.add(pool.submit(() -> {
                        checker.assertIteration();
                        checker.assertSeeks(probes);
                        checker.assertGets(probes);
                    }));
                }
            }
            for (Future<?> d : done) {
                try {
                    d.get();
                } catch (ExecutionException e) {
                    throw new AssertionError(e.getCause().getMessage(), e.getCause());
                }
            }
        }
    }

    /** Moving forward or backward reads selectors only: no key is compared (REMIX §3.3). */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void nextAndPrevCompareNoKeys(Mode mode) {
        Case c = Scenarios.cases().filter(x -> x.scenario().name().startsWith("16 runs")).findFirst().orElseThrow();
        try (RemixFixture f = c.open(); RemixCursor cursor = f.remix.cursor(mode)) {
            cursor.seekToFirst();
            while (cursor.isValid()) {
                cursor.key();
                cursor.next();
            }
            cursor.seekToLast();
            while (cursor.isValid()) {
                cursor.key();
                cursor.prev();
            }
            assertEquals(0, cursor.keyComparisons());
        }
    }

    /**
     * A full seek is a binary search: at most about 2 log2(D) key comparisons inside a segment
     * (anchors are not counted), far fewer than a scan of the segment.
     */
    @Test
    void fullSeekComparesLogarithmicallyFewKeys() {
        Dataset data = new RandomRuns(21).tombstones(0).runs(new RandomRuns(21).mixedKeys(3000), 8, 2000);
        try (RemixFixture f = RemixFixture.build(data, new RemixConfig(64, false), 4096);
             RemixCursor cursor = f.remix.cursor(Mode.ALL_VERSIONS, RemixCursor.Search.FULL)) {
            List<byte[]> probes = CursorChecker.probes(f.model.keys());
            long worst = 0;
            for (byte[] p : probes) {
                long before = cursor.keyComparisons();
                cursor.seek(p);
                worst = Math.max(worst, cursor.keyComparisons() - before);
            }
            assertTrue(worst <= 2 * 6 + 2, "worst in-segment comparisons per seek with D=64: " + worst);
        }
    }

    /**
     * With hash tags a point lookup compares full keys only on tag matches: about one comparison per
     * hit and well under one per miss (C RemixDB README: ~1.06 and ~0.12).
     */
    @Test
    void getWithTagsComparesAboutOneKeyPerHitAndFewPerMiss() {
        RandomRuns r = new RandomRuns(22).tombstones(0);
        Dataset data = r.runs(r.mixedKeys(4000), 8, 2000);
        try (RemixFixture f = RemixFixture.build(data, new RemixConfig(32, true), 4096);
             RemixCursor cursor = f.remix.cursor(Mode.NEWEST)) {
            List<byte[]> keys = f.model.keys();
            for (byte[] k : keys) {
                assertTrue(cursor.get(k));
            }
            double perHit = (double) cursor.keyComparisons() / keys.size();
            long missComparisons = 0;
            int misses = 0;
            for (byte[] k : keys) {
                byte[] absent = RemixModel.successor(k);
                if (f.model.versions(absent).isEmpty()) {
                    long before = cursor.keyComparisons();
                    assertFalse(cursor.get(absent));
                    missComparisons += cursor.keyComparisons() - before;
                    misses++;
                }
            }
            double perMiss = (double) missComparisons / misses;
            assertTrue(perHit < 1.2, "key comparisons per hit: " + perHit);
            assertTrue(perMiss < 0.3, "key comparisons per miss: " + perMiss);
        }
    }

    /**
     * A seek to an existing key tries its hash tag first: about one comparison instead of a binary
     * search, landing where the binary search lands.
     */
    @Test
    void tagSeekFindsExistingKeysWithAboutOneComparison() {
        RandomRuns r = new RandomRuns(23).tombstones(0);
        Dataset data = r.runs(r.mixedKeys(4000), 8, 2000);
        try (RemixFixture f = RemixFixture.build(data, new RemixConfig(32, true), 4096);
             RemixCursor tagged = f.remix.cursor(Mode.LIVE).tagSeek(true);
             RemixCursor plain = f.remix.cursor(Mode.LIVE).tagSeek(false)) {
            List<byte[]> keys = f.model.keys();
            for (byte[] k : keys) {
                tagged.seek(k);
                plain.seek(k);
                assertArrayEquals(plain.keyBytes(), tagged.keyBytes());
            }
            double withTags = (double) tagged.keyComparisons() / keys.size();
            double without = (double) plain.keyComparisons() / keys.size();
            assertTrue(withTags < 1.2, "key comparisons per seek with tags: " + withTags);
            assertTrue(without > 3, "key comparisons per seek by binary search: " + without);
        }
    }

    @Test
    void keyAndValueAreAvailableAsViewsAndCopies() {
        byte[] key = {1, 2, 3};
        byte[] value = {9, 8, 7, 6};
        Dataset data = new Dataset(List.of(List.of(Kv.put(key, value))));
        try (RemixFixture f = RemixFixture.build(data, RemixConfig.DEFAULT, 4096);
             RemixCursor c = f.remix.cursor(Mode.LIVE);
             Arena arena = Arena.ofConfined()) {
            assertTrue(c.get(key));
            assertArrayEquals(key, c.key().toArray(ValueLayout.JAVA_BYTE));
            assertArrayEquals(value, c.value().toArray(ValueLayout.JAVA_BYTE));
            assertEquals(3, c.keyLength());
            assertEquals(4, c.valueLength());
            MemorySegment dst = arena.allocate(16);
            assertEquals(3, c.copyKey(dst, 2));
            assertArrayEquals(key, dst.asSlice(2, 3).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(4, c.copyValue(dst, 7));
            assertArrayEquals(value, dst.asSlice(7, 4).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void liveModeHidesADeletedKeyThatOlderRunsStillHold() {
        byte[] k = {'k'};
        Dataset data = new Dataset(List.of(
                List.of(Kv.put(k, new byte[] {1})),
                List.of(Kv.delete(k))));
        try (RemixFixture f = RemixFixture.build(data, RemixConfig.DEFAULT, 4096)) {
            try (RemixCursor live = f.remix.cursor(Mode.LIVE)) {
                assertFalse(live.get(k));
                assertFalse(live.isValid());
                live.seekToFirst();
                assertFalse(live.isValid());
            }
            try (RemixCursor newest = f.remix.cursor(Mode.NEWEST)) {
                assertTrue(newest.get(k));
                assertTrue(newest.isTombstone());
                assertEquals(1, newest.runId());
            }
            try (RemixCursor all = f.remix.cursor(Mode.ALL_VERSIONS)) {
                all.seekToFirst();
                assertTrue(all.isTombstone());
                all.next();
                assertTrue(all.isStale());
                assertArrayEquals(new byte[] {1}, all.valueBytes());
            }
        }
    }

    @Test
    void nextAndPrevOnAnUnpositionedCursorAreRefused() {
        Dataset data = new Dataset(List.of(List.of(Kv.put(new byte[] {1}, new byte[0]))));
        try (RemixFixture f = RemixFixture.build(data, RemixConfig.DEFAULT, 4096);
             RemixCursor c = f.remix.cursor(Mode.LIVE)) {
            assertThrows(IllegalStateException.class, c::next);
            assertThrows(IllegalStateException.class, c::prev);
            assertThrows(IllegalStateException.class, c::keyBytes);
            c.seekToFirst();
            c.next();
            assertFalse(c.isValid());
            assertThrows(IllegalStateException.class, c::next);
            assertThrows(IllegalStateException.class, c::prev);
        }
    }
}
