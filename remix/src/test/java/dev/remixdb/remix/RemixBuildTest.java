package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.remix.RemixCursor.Mode;
import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.RemixModel.Kv;
import dev.remixdb.remix.Scenarios.Case;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Building a REMIX: its structure, and the inputs it must refuse. */
class RemixBuildTest {
    private static final byte[] K = {'k'};

    static List<Case> cases() {
        return Scenarios.cases().toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void structureMatchesTheRuns(Case c) {
        try (RemixFixture f = c.open()) {
            RemixInvariants.assertValid(f.remix, f.data, f.runs);
            assertEquals(c.config().segmentSize(), f.remix.segmentSize());
            assertEquals(c.config().tags(), f.remix.hasTags());
        }
    }

    @Test
    void aRemixNeedsOnlyTheRunInterface() {
        RandomRuns r = new RandomRuns(31);
        Dataset data = r.runs(r.mixedKeys(400), 5, 200);
        List<Run> runs = data.runs().stream().<Run>map(kvs -> new ArrayRun(kvs, 7)).toList();
        try (Remix remix = Remix.build(runs, new RemixConfig(16, true))) {
            RemixInvariants.assertValid(remix, data, runs);
            RemixModel model = new RemixModel(data);
            for (Mode mode : Mode.values()) {
                CursorChecker checker = new CursorChecker(remix, model, mode, SeekStrategy.FULL, "ArrayRuns");
                checker.assertIteration();
                checker.assertSeeks(CursorChecker.probes(model.keys()));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {16, 32, 64})
    void theStaleCountIsEveryVersionButTheNewest(int segmentSize) {
        RandomRuns r = new RandomRuns(segmentSize);
        Dataset data = r.runs(r.mixedKeys(500), 6, 300);
        long versions = 0;
        java.util.Set<String> distinct = new java.util.HashSet<>();
        for (List<Kv> run : data.runs()) {
            versions += run.size();
            for (Kv kv : run) {
                distinct.add(java.util.HexFormat.of().formatHex(kv.key()));
            }
        }
        try (RemixFixture f = RemixFixture.build(data, new RemixConfig(segmentSize, true), 256)) {
            assertEquals(versions - distinct.size(), f.remix.staleCount());
            assertEquals(versions - distinct.size(), f.remix.staleCount(), "the second call gives the same count");
        }
    }

    @Test
    void aRunOutOfOrderIsRefused() {
        List<Kv> unsorted = List.of(Kv.put(new byte[] {1}, new byte[0]), Kv.put(new byte[] {3}, new byte[0]),
                Kv.put(new byte[] {2}, new byte[0]));
        List<Kv> sorted = List.of(Kv.put(new byte[] {2}, new byte[0]));
        assertThrows(IllegalArgumentException.class,
                () -> Remix.build(List.of(new ArrayRun(sorted, 4), new ArrayRun(unsorted, 2)), RemixConfig.DEFAULT).close());
    }

    @Test
    void aRunWithADuplicateKeyIsRefused() {
        List<Kv> duplicate = List.of(Kv.put(new byte[] {1}, new byte[0]), Kv.delete(new byte[] {1}));
        assertThrows(IllegalArgumentException.class,
                () -> Remix.build(List.of(new ArrayRun(duplicate, 1)), RemixConfig.DEFAULT).close());
    }

    @ParameterizedTest(name = "D={0}")
    @ValueSource(ints = {16, 32, 64})
    void moreRunsThanTheSegmentSizeAreRefused(int d) {
        List<MemoryRun> runs = new ArrayList<>();
        try {
            for (int i = 0; i <= d; i++) {
                runs.add(MemoryRun.builder().put(K, new byte[] {(byte) i}).build());
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Remix.build(runs, new RemixConfig(d, false)).close());
            assertTrue(e.getMessage().contains(String.valueOf(d + 1)) || e.getMessage().contains("63"),
                    "the message names the offending count: " + e.getMessage());
        } finally {
            RemixFixture.closeAll(runs);
        }
    }

    @Test
    void exactlySixtyThreeRunsOfOneKeyFitInSegmentsOf64() {
        List<List<Kv>> runs = new ArrayList<>();
        for (int i = 0; i < 63; i++) {
            runs.add(List.of(Kv.put(K, new byte[] {(byte) i})));
        }
        try (RemixFixture f = RemixFixture.build(new Dataset(runs), new RemixConfig(64, true), 64);
             RemixCursor c = f.remix.cursor(Mode.LIVE)) {
            RemixInvariants.assertValid(f.remix, f.data, f.runs);
            assertTrue(c.get(K));
            assertEquals(62, c.runId());
        }
    }

    @ParameterizedTest(name = "D={0}")
    @ValueSource(ints = {0, 8, 24, 48, 128})
    void unsupportedSegmentSizesAreRefused(int d) {
        assertThrows(IllegalArgumentException.class, () -> new RemixConfig(d, true));
    }

    @Test
    void theConfigForARunCountHasRoomForEveryVersion() {
        for (int runs = 0; runs <= Selectors.MAX_RUNS; runs++) {
            RemixConfig config = RemixConfig.forRuns(runs, true);
            assertTrue(config.segmentSize() >= runs, runs + " runs: " + config);
            assertEquals(runs <= 32 ? 32 : 64, config.segmentSize(), runs + " runs");
        }
    }

    @Test
    void aRemixOfNoRunsIsEmpty() {
        try (Remix remix = Remix.build(List.of(), RemixConfig.DEFAULT); RemixCursor c = remix.cursor(Mode.ALL_VERSIONS)) {
            assertEquals(0, remix.keyCount());
            assertEquals(0, remix.segmentCount());
            c.seekToFirst();
            assertFalse(c.isValid());
            c.seekToLast();
            assertFalse(c.isValid());
            assertFalse(c.get(K));
            c.seek(K);
            assertFalse(c.isValid());
        }
    }

    /** A cursor operation and its name for failure messages. */
    private record Op(String name, Consumer<RemixCursor> action) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** The operations that position or move a cursor. */
    private static List<Op> moves() {
        MemorySegment k = MemorySegment.ofArray(K);
        return List.of(new Op("seekToFirst", RemixCursor::seekToFirst), new Op("seekToLast", RemixCursor::seekToLast),
                new Op("seek(byte[])", c -> c.seek(K)), new Op("seek(segment)", c -> c.seek(k, 0, 1)),
                new Op("seekForPrev(segment)", c -> c.seekForPrev(k, 0, 1)),
                new Op("seekForPrev(byte[])", c -> c.seekForPrev(K)), new Op("get(byte[])", c -> c.get(K)),
                new Op("get(segment)", c -> c.get(k, 0, 1)), new Op("next", RemixCursor::next),
                new Op("prev", RemixCursor::prev));
    }

    /** Every cursor operation. */
    private static List<Op> operations() {
        List<Op> ops = new ArrayList<>(moves());
        ops.addAll(List.of(new Op("keyBytes", RemixCursor::keyBytes), new Op("valueBytes", RemixCursor::valueBytes),
                new Op("key", RemixCursor::key), new Op("value", RemixCursor::value),
                new Op("isTombstone", RemixCursor::isTombstone), new Op("isStale", RemixCursor::isStale),
                new Op("runId", RemixCursor::runId)));
        return ops;
    }

    private static Dataset threeKeys() {
        return new Dataset(List.of(List.of(Kv.put(new byte[] {'a'}, new byte[] {1}), Kv.put(K, new byte[] {2}),
                Kv.put(new byte[] {'z'}, new byte[] {3}))));
    }

    @Test
    void everyOperationOnAClosedCursorThrowsIllegalState() {
        try (RemixFixture f = RemixFixture.build(threeKeys(), RemixConfig.DEFAULT, 4096)) {
            for (Op op : operations()) {
                RemixCursor c = f.remix.cursor(Mode.LIVE);
                assertTrue(c.get(K));
                c.close();
                c.close();  // idempotent
                assertThrows(IllegalStateException.class, () -> op.action().accept(c), op + " after close");
                assertFalse(c.isValid());
            }
        }
    }

    /** Closing a REMIX under a cursor must not crash the JVM or return freed memory: the cursor refuses to move. */
    @Test
    void movingACursorOfAClosedRemixThrowsIllegalState() {
        for (Op op : moves()) {
            try (RemixFixture f = RemixFixture.build(threeKeys(), RemixConfig.DEFAULT, 4096)) {
                RemixCursor c = f.remix.cursor(Mode.LIVE);
                assertTrue(c.get(K));
                f.remix.close();
                assertThrows(IllegalStateException.class, () -> op.action().accept(c), op + " after Remix.close");
                assertThrows(IllegalStateException.class, () -> f.remix.cursor(Mode.LIVE));
                c.close();
            }
        }
    }

    /** STYLE.md: use after close raises an IllegalStateException naming the resource. */
    @Test
    void useOfAClosedRemixIsReportedByName() {
        List<String> unnamed = new ArrayList<>();
        for (Op op : moves()) {
            try (RemixFixture f = RemixFixture.build(threeKeys(), RemixConfig.DEFAULT, 4096)) {
                RemixCursor c = f.remix.cursor(Mode.LIVE);
                assertTrue(c.get(K));
                f.remix.close();
                String message = String.valueOf(
                        assertThrows(IllegalStateException.class, () -> op.action().accept(c)).getMessage());
                if (!message.toLowerCase(Locale.ROOT).contains("remix")) {
                    unnamed.add(op + ": \"" + message + "\"");
                }
            }
        }
        assertEquals(Collections.emptyList(), unnamed, "after Remix.close, messages that do not name the REMIX");
    }

    @Test
    void closingARemixTwiceIsHarmless() {
        try (RemixFixture f = RemixFixture.build(threeKeys(), RemixConfig.DEFAULT, 4096)) {
            f.remix.close();
            f.remix.close();
        }
    }
}
