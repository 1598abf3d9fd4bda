package dev.remixdb.bench.baseline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.bench.data.Dataset;
import dev.remixdb.bench.data.DatasetGenerator;
import dev.remixdb.bench.data.KeyFormat;
import dev.remixdb.bench.data.Locality;
import dev.remixdb.remix.Keys;
import dev.remixdb.remix.MemoryRun;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixConfig;
import dev.remixdb.remix.RemixCursor;
import dev.remixdb.remix.RunCursor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The baselines answer exactly as the REMIX does on the same runs, so that the benchmark compares
 * equal work: seeks (to present, absent, first and past-the-end keys), 50-key scans, and gets
 * (present and absent) through Bloom filters and without them.
 */
class BaselineAgreementTest {
    private static final int RUNS = 4;
    private static final long KEYS_PER_RUN = 1500;

    @ParameterizedTest
    @EnumSource(Locality.class)
    void mergingIteratorSeeksAndScansLikeTheRemix(Locality locality) {
        try (Dataset d = DatasetGenerator.generate(RUNS, KEYS_PER_RUN, locality, 7);
             Remix remix = Remix.build(d.runs(), new RemixConfig(32, true));
             RemixCursor full = remix.cursor(RemixCursor.Mode.LIVE, RemixCursor.Search.FULL);
             RemixCursor partial = remix.cursor(RemixCursor.Mode.LIVE, RemixCursor.Search.PARTIAL);
             MergingIterator merging = new MergingIterator(d.runs(), false);
             MergingIterator counting = new MergingIterator(d.runs(), true);
             Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(KeyFormat.KEY_BYTES);
            for (MemorySegment k : probeKeys(d, key, arena)) {
                List<byte[]> want = scan(full, k, 50);
                assertSameScan(want, scan(partial, k, 50), "partial", k);
                assertSameScan(want, scan(merging, k, 50), "merging", k);
                assertSameScan(want, scan(counting, k, 50), "counting merging", k);
            }
            assertTrue(counting.comparisons() > 0);
        }
    }

    @ParameterizedTest
    @EnumSource(Locality.class)
    void runByRunGetsAnswerLikeTheRemix(Locality locality) {
        try (Dataset d = DatasetGenerator.generate(RUNS, KEYS_PER_RUN, locality, 9);
             Remix tagged = Remix.build(d.runs(), new RemixConfig(32, true));
             Remix untagged = Remix.build(d.runs(), new RemixConfig(16, false));
             RemixCursor withTags = tagged.cursor(RemixCursor.Mode.LIVE);
             RemixCursor noTags = untagged.cursor(RemixCursor.Mode.LIVE);
             RunByRunLookup plain = new RunByRunLookup(d.runs(), null, false);
             RunByRunLookup bloom = new RunByRunLookup(d.runs(), filters(d), true);
             Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(KeyFormat.KEY_BYTES);
            MemorySegment a = arena.allocate(KeyFormat.VALUE_BYTES);
            MemorySegment b = arena.allocate(KeyFormat.VALUE_BYTES);
            int hits = 0;
            for (MemorySegment k : probeKeys(d, key, arena)) {
                boolean want = withTags.get(k, 0, KeyFormat.KEY_BYTES);
                assertEquals(want, noTags.get(k, 0, KeyFormat.KEY_BYTES), "no-tags REMIX get");
                assertEquals(want, plain.get(k, 0, KeyFormat.KEY_BYTES), "get without filters");
                assertEquals(want, bloom.get(k, 0, KeyFormat.KEY_BYTES), "get with Bloom filters");
                if (want) {
                    hits++;
                    withTags.copyValue(a, 0);
                    bloom.copyValue(b, 0);
                    assertEquals(-1, a.mismatch(b), "Bloom get value");
                    plain.copyValue(b, 0);
                    assertEquals(-1, a.mismatch(b), "plain get value");
                    assertEquals(withTags.runId(), bloom.foundRun());
                }
            }
            assertTrue(hits > 50, "too few present keys probed: " + hits);
            // With filters, far fewer runs are searched than without.
            assertTrue(bloom.runsSearched() < plain.runsSearched(), bloom.runsSearched() + " vs " + plain.runsSearched());
        }
    }

    @ParameterizedTest
    @EnumSource(Locality.class)
    void runSearchLandsWhereTheRunsOwnSeekDoes(Locality locality) {
        try (Dataset d = DatasetGenerator.generate(RUNS, KEYS_PER_RUN, locality, 11);
             Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(KeyFormat.KEY_BYTES);
            for (MemoryRun run : d.runs()) {
                try (RunCursor own = run.newCursor(); RunCursor counted = run.newCursor()) {
                    for (MemorySegment k : probeKeys(d, key, arena)) {
                        own.seek(k, 0, KeyFormat.KEY_BYTES);
                        int comparisons = RunSearch.seek(run, counted, k, 0, KeyFormat.KEY_BYTES);
                        assertEquals(own.isValid(), counted.isValid());
                        assertEquals(own.address(), counted.address());
                        assertTrue(comparisons > 0);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Locality.class)
    void bloomFiltersHaveNoFalseNegativesAndAboutOnePercentFalsePositives(Locality locality) {
        try (Dataset d = DatasetGenerator.generate(2, 10_000, locality, 13)) {
            MemoryRun run = d.runs().getFirst();
            BloomFilter f = BloomFilter.of(run, 10);
            assertEquals(7, f.probes());
            int n = 0;
            try (RunCursor c = run.newCursor()) {
                for (c.seekTo(0); c.isValid(); c.next()) {
                    long h = Keys.hash64(c.keySegment(), c.keyOffset(), c.keyLength());
                    assertTrue(f.mightContain(h), "false negative");
                    n++;
                }
            }
            // The keys of the other run were never added: count how many the filter lets through.
            int falsePositives = 0;
            int absent = 0;
            try (RunCursor c = d.runs().get(1).newCursor()) {
                for (c.seekTo(0); c.isValid(); c.next()) {
                    absent++;
                    if (f.mightContain(Keys.hash64(c.keySegment(), c.keyOffset(), c.keyLength()))) {
                        falsePositives++;
                    }
                }
            }
            double rate = (double) falsePositives / absent;
            assertTrue(rate < 0.02, "false-positive rate " + rate);
            assertEquals(run.keyCount(), n);
        }
    }

    @Test
    void emptyFilterRejectsEverything() {
        BloomFilter f = BloomFilter.create(100, 10);
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 1000; i++) {
            assertFalse(f.mightContain(r.nextLong()));
        }
    }

    private static List<BloomFilter> filters(Dataset d) {
        List<BloomFilter> fs = new ArrayList<>();
        for (MemoryRun r : d.runs()) {
            fs.add(BloomFilter.of(r, 10));
        }
        return fs;
    }

    /** Present keys, absent keys between them, a key before all and one after all (as fresh segments). */
    private static List<MemorySegment> probeKeys(Dataset d, MemorySegment scratch, Arena arena) {
        KeyFormat c = d.keyFormat();
        List<MemorySegment> keys = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(3);
        MemorySegment before = arena.allocate(KeyFormat.KEY_BYTES);
        before.fill((byte) '0');
        before.set(ValueLayout.JAVA_BYTE, KeyFormat.KEY_BYTES - 1, (byte) ' ');
        keys.add(before);
        for (long i : new long[] {0, 1, d.keyCount() - 2, d.keyCount() - 1}) {
            keys.add(key(c, i, false, arena));
            keys.add(key(c, i, true, arena));
        }
        for (int j = 0; j < 160; j++) {
            keys.add(key(c, r.nextLong(d.keyCount()), (j & 1) == 1, arena));
        }
        MemorySegment after = arena.allocate(KeyFormat.KEY_BYTES);
        after.fill((byte) 'g');
        keys.add(after);
        return keys;
    }

    private static MemorySegment key(KeyFormat c, long i, boolean absent, Arena arena) {
        MemorySegment k = arena.allocate(KeyFormat.KEY_BYTES);
        if (absent) {
            c.writeAbsentKey(k, 0, i);
        } else {
            c.writeKey(k, 0, i);
        }
        return k;
    }

    private static List<byte[]> scan(RemixCursor c, MemorySegment key, int n) {
        List<byte[]> out = new ArrayList<>();
        c.seek(key, 0, KeyFormat.KEY_BYTES);
        while (c.isValid() && out.size() < n) {
            out.add(c.keyBytes());
            out.add(c.valueBytes());
            c.next();
        }
        return out;
    }

    private static List<byte[]> scan(MergingIterator it, MemorySegment key, int n) {
        List<byte[]> out = new ArrayList<>();
        it.seek(key, 0, KeyFormat.KEY_BYTES);
        while (it.isValid() && out.size() < n) {
            RunCursor c = it.current();
            out.add(c.keySegment().asSlice(c.keyOffset(), c.keyLength()).toArray(ValueLayout.JAVA_BYTE));
            out.add(c.valueSegment().asSlice(c.valueOffset(), c.valueLength()).toArray(ValueLayout.JAVA_BYTE));
            it.next();
        }
        return out;
    }

    private static void assertSameScan(List<byte[]> want, List<byte[]> got, String who, MemorySegment key) {
        assertEquals(want.size(), got.size(), who + " scan length from " + new String(key.toArray(ValueLayout.JAVA_BYTE)));
        for (int i = 0; i < want.size(); i++) {
            assertArrayEquals(want.get(i), got.get(i), who + " entry " + i);
        }
    }
}
