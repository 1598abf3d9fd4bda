package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both {@link SelectorCounter}s (scalar, and vector when the incubator module is present) agree with
 * a naive loop, at odd lengths and offsets, with the data ending exactly at the end of its segment so
 * that a read past the range fails.
 */
class SelectorCounterTest {
    private static final int[] LENGTHS = {0, 1, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64};
    private static final int[] OFFSETS = {0, 1, 3, 7, 8, 13};
    private static final int ROUNDS = 20;

    static Stream<SelectorCounter> counters() {
        List<SelectorCounter> all = new ArrayList<>();
        all.add(SelectorCounters.scalar());
        SelectorCounters.vector().ifPresent(all::add);
        return all.stream();
    }

    @Test
    void theVectorCounterIsAvailableWhenTheIncubatorModuleIs() {
        boolean module = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
        assertEquals(module, SelectorCounters.vector().isPresent());
        if (module && Boolean.parseBoolean(System.getProperty("remixdb.vector", "true"))) {
            // Scalar while the vector loops warm up, then the vector ones: the switch must happen.
            SelectorCounter chosen = SelectorCounters.get();
            long deadline = System.nanoTime() + 130_000_000_000L;  // past the warm-up's own 120 s
            while (!SelectorCounters.vectorInUse() && System.nanoTime() < deadline) {
                assertEquals(3, chosen.count(SELECTORS_3_OF_RUN_1, 0, 5, 1), "counts while warming up");
                Thread.onSpinWait();
            }
            assertTrue(SelectorCounters.vectorInUse(), "still " + chosen.name() + " after 130 s");
            assertTrue(chosen.name().startsWith("vector"), chosen.name());
            assertEquals(3, chosen.count(SELECTORS_3_OF_RUN_1, 0, 5, 1), "counts once warm");
        }
    }

    private static final MemorySegment SELECTORS_3_OF_RUN_1 = MemorySegment.ofArray(new byte[] {1, 2, 1, 0, 1});

    @ParameterizedTest(name = "{0}")
    @MethodSource("counters")
    void countMatchesANaiveLoop(SelectorCounter counter) {
        Random rnd = new Random(41);
        try (Arena arena = Arena.ofConfined()) {
            for (int round = 0; round < ROUNDS; round++) {
                for (int n : LENGTHS) {
                    for (int from : OFFSETS) {
                        MemorySegment selectors = randomSelectors(arena, rnd, from + n);
                        for (int run = 0; run <= Selectors.PLACEHOLDER; run++) {
                            assertEquals(naiveCount(selectors, from, n, run), counter.count(selectors, from, n, run),
                                    counter.name() + ": count(from=" + from + ", n=" + n + ", run=" + run + ")");
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("counters")
    void countWorksOnHeapSegmentsToo(SelectorCounter counter) {
        Random rnd = new Random(42);
        for (int n : LENGTHS) {
            byte[] bytes = new byte[3 + n];
            rnd.nextBytes(bytes);
            MemorySegment selectors = MemorySegment.ofArray(bytes);
            for (int run = 0; run < 64; run++) {
                assertEquals(naiveCount(selectors, 3, n, run), counter.count(selectors, 3, n, run),
                        counter.name() + ": count(n=" + n + ", run=" + run + ")");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("counters")
    void matchTagsMatchesANaiveLoop(SelectorCounter counter) {
        Random rnd = new Random(43);
        try (Arena arena = Arena.ofConfined()) {
            for (int round = 0; round < ROUNDS; round++) {
                for (int n : LENGTHS) {
                    for (int from : OFFSETS) {
                        // Tags start elsewhere than selectors, as in a segment record.
                        int tagFrom = from + 3;
                        MemorySegment selectors = randomSelectors(arena, rnd, from + n);
                        MemorySegment tags = randomTags(arena, rnd, tagFrom + n);
                        for (int tag : new int[] {0, 1, 2, 0x3F, 0x7F, 0x80, 0xFF}) {
                            assertEquals(Long.toBinaryString(naiveMatchTags(selectors, from, tags, tagFrom, n, (byte) tag)),
                                    Long.toBinaryString(counter.matchTags(selectors, from, tags, tagFrom, n, (byte) tag)),
                                    counter.name() + ": matchTags(from=" + from + ", n=" + n + ", tag=" + tag + ")");
                        }
                    }
                }
            }
        }
    }

    /** Selector bytes as a REMIX writes them (run ids, flags, placeholders) mixed with arbitrary bytes. */
    private static MemorySegment randomSelectors(Arena arena, Random rnd, int size) {
        MemorySegment s = arena.allocate(Math.max(1, size)).asSlice(0, size);
        for (int i = 0; i < size; i++) {
            int b = switch (rnd.nextInt(4)) {
                case 0 -> Selectors.PLACEHOLDER;
                case 1 -> rnd.nextInt(256);
                default -> rnd.nextInt(63) | (rnd.nextBoolean() ? Selectors.STALE : 0) | (rnd.nextBoolean() ? Selectors.TOMBSTONE : 0);
            };
            s.set(ValueLayout.JAVA_BYTE, i, (byte) b);
        }
        return s;
    }

    /** Tags from a few values, so that matches are common. */
    private static MemorySegment randomTags(Arena arena, Random rnd, int size) {
        byte[] values = {0, 1, 2, 0x3F, 0x7F, (byte) 0x80, (byte) 0xFF};
        MemorySegment t = arena.allocate(Math.max(1, size)).asSlice(0, size);
        for (int i = 0; i < size; i++) {
            t.set(ValueLayout.JAVA_BYTE, i, values[rnd.nextInt(values.length)]);
        }
        return t;
    }

    private static int naiveCount(MemorySegment selectors, long from, int n, int run) {
        int count = 0;
        for (int i = 0; i < n; i++) {
            if ((selectors.get(ValueLayout.JAVA_BYTE, from + i) & 0x3F) == run) {
                count++;
            }
        }
        return count;
    }

    private static long naiveMatchTags(MemorySegment selectors, long from, MemorySegment tags, long tagFrom, int n, byte tag) {
        long mask = 0;
        for (int i = 0; i < n; i++) {
            int s = selectors.get(ValueLayout.JAVA_BYTE, from + i) & 0xFF;
            boolean newest = (s & 0x80) == 0 && s != 0x3F;
            if (newest && tags.get(ValueLayout.JAVA_BYTE, tagFrom + i) == tag) {
                mask |= 1L << i;
            }
        }
        return mask;
    }
}
