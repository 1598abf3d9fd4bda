package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.remixdb.remix.RemixCursor.Mode;
import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.RemixModel.Kv;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Property-based versions of the cursor, structure and rebuild tests: random runs (duplicates
 * across runs, tombstones, empty keys and runs, 100-byte shared prefixes, jumbo values) must give a
 * REMIX whose every view matches the model. jqwik prints the seed of a failing try and shrinks it.
 */
class RemixPropertiesTest {
    private static final byte[] ALPHABET = {0x00, 0x01, 0x61, 0x7F, (byte) 0x80, (byte) 0xFF};

    @Property(tries = 150)
    void cursorsMatchTheModel(@ForAll("runs16") Dataset data, @ForAll("segmentSizes") int d, @ForAll boolean tags,
                              @ForAll("blockSizes") int blockBytes, @ForAll Mode mode, @ForAll SeekStrategy strategy) {
        try (RemixFixture f = RemixFixture.build(data, new RemixConfig(d, tags), blockBytes)) {
            checkCursors(f, mode, strategy);
        }
    }

    @Property(tries = 20)
    void sixtyThreeRunsMatchTheModel(@ForAll("runs63") Dataset data, @ForAll boolean tags, @ForAll Mode mode,
                                     @ForAll SeekStrategy strategy) {
        try (RemixFixture f = RemixFixture.build(data, new RemixConfig(64, tags), 128)) {
            RemixInvariants.assertValid(f.remix, f.data, f.runs);
            checkCursors(f, mode, strategy);
        }
    }

    @Property(tries = 100)
    void structureMatchesTheRuns(@ForAll("runs16") Dataset data, @ForAll("segmentSizes") int d, @ForAll boolean tags,
                                 @ForAll("blockSizes") int blockBytes) {
        try (RemixFixture f = RemixFixture.build(data, new RemixConfig(d, tags), blockBytes)) {
            RemixInvariants.assertValid(f.remix, f.data, f.runs);
        }
    }

    @Property(tries = 300)
    void rebuildEqualsAFreshBuild(@ForAll("runs16") Dataset data, @ForAll @IntRange(min = 0, max = 16) int oldRunCount,
                                  @ForAll("segmentSizes") int d, @ForAll boolean tags, @ForAll("blockSizes") int blockBytes) {
        int split = Math.min(oldRunCount, data.runCount());
        RemixConfig config = new RemixConfig(d, tags);
        List<MemoryRun> runs = RemixFixture.openRuns(data, blockBytes);
        RebuildStats stats = new RebuildStats();
        try (Remix old = Remix.build(runs.subList(0, split), config);
             Remix rebuilt = Remix.rebuild(old, runs.subList(split, runs.size()), stats);
             Remix fresh = Remix.build(runs, config)) {
            RemixRebuildTest.assertSameStructure(fresh, rebuilt);
            long added = data.runs().subList(split, data.runCount()).stream().mapToLong(List::size).sum();
            assertEquals(added, stats.newKeysRead(), stats.toString());
        } finally {
            RemixFixture.closeAll(runs);
        }
    }

    private static void checkCursors(RemixFixture f, Mode mode, SeekStrategy strategy) {
        CursorChecker checker = new CursorChecker(f.remix, f.model, mode, strategy, "property");
        List<byte[]> probes = CursorChecker.probes(f.model.keys());
        checker.assertIteration();
        checker.assertSeeks(probes);
        checker.assertSeekForPrevs(probes);
        checker.assertGets(probes);
        checker.assertRandomWalks(probes, new Random(probes.size()).nextLong(), 50, 10);
    }

    @Provide
    Arbitrary<Integer> segmentSizes() {
        return Arbitraries.of(16, 32, 64);
    }

    @Provide
    Arbitrary<Integer> blockSizes() {
        return Arbitraries.of(64, 200, 4096);
    }

    @Provide
    Arbitrary<Dataset> runs16() {
        return run(60).list().ofMaxSize(16).map(Dataset::new);
    }

    @Provide
    Arbitrary<Dataset> runs63() {
        return run(12).list().ofSize(63).map(Dataset::new);
    }

    /** A sorted run of distinct keys. */
    private static Arbitrary<List<Kv>> run(int maxKeys) {
        return entry().list().ofMaxSize(maxKeys).uniqueElements(kv -> HexFormat.of().formatHex(kv.key()))
                .map(kvs -> {
                    List<Kv> sorted = new ArrayList<>(kvs);
                    sorted.sort((a, b) -> Arrays.compareUnsigned(a.key(), b.key()));
                    return sorted;
                });
    }

    private static Arbitrary<Kv> entry() {
        Arbitrary<Boolean> tombstone = Arbitraries.integers().between(0, 4).map(i -> i == 0);
        return Combinators.combine(key(), value(), tombstone).as((k, v, t) -> t ? Kv.delete(k) : Kv.put(k, v));
    }

    /**
     * Short keys over a small alphabet (so runs share keys), some behind a 100-byte shared prefix,
     * some behind one of two 8-byte words (so anchors agree on whole words).
     */
    private static Arbitrary<byte[]> key() {
        Arbitrary<byte[]> shortKeys = Arbitraries.of(0, 1, 2, 3, 4, 5).list().ofMaxSize(4).map(idx -> {
            byte[] k = new byte[idx.size()];
            for (int i = 0; i < k.length; i++) {
                k[i] = ALPHABET[idx.get(i)];
            }
            return k;
        });
        Arbitrary<byte[]> prefixed = shortKeys.map(k -> {
            byte[] p = Arrays.copyOf(RandomRuns.SHARED_PREFIX, RandomRuns.SHARED_PREFIX.length + k.length);
            System.arraycopy(k, 0, p, RandomRuns.SHARED_PREFIX.length, k.length);
            return p;
        });
        Arbitrary<byte[]> worded = Combinators.combine(Arbitraries.of((byte) 0x00, (byte) 0xFF), shortKeys).as((w, k) -> {
            byte[] p = new byte[8 + k.length];
            Arrays.fill(p, 0, 8, w);
            System.arraycopy(k, 0, p, 8, k.length);
            return p;
        });
        return Arbitraries.frequencyOf(Tuple.of(8, shortKeys), Tuple.of(2, prefixed), Tuple.of(2, worded));
    }

    /** Mostly 0-20 bytes; now and then larger than a 4 KiB block. */
    private static Arbitrary<byte[]> value() {
        Arbitrary<byte[]> small = Arbitraries.bytes().array(byte[].class).ofMaxSize(20);
        Arbitrary<byte[]> jumbo = Arbitraries.integers().between(4097, 6000).map(n -> {
            byte[] v = new byte[n];
            new Random(n).nextBytes(v);
            return v;
        });
        return Arbitraries.frequencyOf(Tuple.of(30, small), Tuple.of(1, jumbo));
    }
}
