package dev.remixdb.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Keys, values, permutations and the Zipfian generator: what makes both stores see the same workload. */
class DbBenchWorkloadTest {

    @Test
    void keysAreSixteenHexDigits() {
        SplittableRandom r = new SplittableRandom(1);
        byte[] k = new byte[16];
        for (int i = 0; i < 10_000; i++) {
            long x = i < 100 ? i : r.nextLong() >>> 1;
            Keys.format(x, k);
            assertEquals(String.format("%016x", x), new String(k, StandardCharsets.US_ASCII));
            assertEquals(x, Keys.parse(k));
        }
        assertEquals(-1, Keys.parse("000000000000000g".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(-1, Keys.parse(new byte[15]));
    }

    @Test
    void missingKeySortsBetweenNeighbours() {
        byte[] missing = new byte[17];
        Keys.formatMissing(41, missing);
        assertTrue(Arrays.compareUnsigned(Keys.of(41), missing) < 0);
        assertTrue(Arrays.compareUnsigned(missing, Keys.of(42)) < 0);
        assertEquals(-1, Keys.parse(missing));
    }

    @Test
    void valuesAreDeterministicAndCarryKeyAndGeneration() {
        Values v = new Values(120, 42);
        byte[] a = v.newBuffer();
        byte[] b = v.newBuffer();
        v.fill(7, 1, a);
        v.fill(7, 1, b);
        assertArrayEquals(a, b);
        assertEquals(7, Values.keyOf(a));
        assertEquals(1, Values.genOf(a));
        assertTrue(v.matches(7, 1, a, b));
        assertFalse(v.matches(7, 2, a, b), "another generation is another value");
        assertFalse(v.matches(8, 1, a, b), "another key is another value");
        v.fill(7, 1, a);
        a[100] ^= 1;
        assertFalse(v.matches(7, 1, a, b), "one flipped bit is caught");
        assertFalse(Arrays.equals(fill(new Values(120, 42), 5), fill(new Values(120, 43), 5)), "the seed matters");
        assertEquals(40, fill(new Values(40, 1), 3).length);
    }

    private static byte[] fill(Values v, long i) {
        byte[] out = v.newBuffer();
        v.fill(i, 1, out);
        return out;
    }

    @Test
    void permutationIsABijectionThatShuffles() {
        for (long n : new long[] {1, 2, 3, 7, 1000, 65_537, 100_003}) {
            Permutation p = new Permutation(n, 42);
            BitSet seen = new BitSet((int) n);
            long inPlace = 0;
            for (long i = 0; i < n; i++) {
                long x = p.apply(i);
                assertTrue(x >= 0 && x < n, n + ": " + x);
                assertFalse(seen.get((int) x), n + ": " + x + " twice");
                seen.set((int) x);
                if (x == i) {
                    inPlace++;
                }
            }
            assertEquals(n, seen.cardinality());
            if (n >= 1000) {
                assertTrue(inPlace < n / 100, "a shuffle leaves few elements in place: " + inPlace);
            }
        }
        assertNotEquals(new Permutation(1000, 1).apply(0), new Permutation(1000, 2).apply(0));
    }

    @Test
    void zipfianRanksFollowTheDistribution() {
        long n = 100_000;
        Zipfian z = new Zipfian(n, 0.99);
        SplittableRandom r = new SplittableRandom(7);
        int samples = 2_000_000;
        long[] counts = new long[20];
        long tail = 0;
        for (int i = 0; i < samples; i++) {
            long rank = z.next(r);
            assertTrue(rank >= 0 && rank < n);
            if (rank < counts.length) {
                counts[(int) rank]++;
            }
            if (rank >= n / 2) {
                tail++;
            }
        }
        // Ranks 0 and 1 are exact in the method; later ranks are approximated, within a few percent.
        assertEquals(z.probability(0), counts[0] / (double) samples, z.probability(0) * 0.02);
        assertEquals(z.probability(1), counts[1] / (double) samples, z.probability(1) * 0.03);
        for (int k : new int[] {4, 9, 19}) {
            assertEquals(z.probability(k), counts[k] / (double) samples, z.probability(k) * 0.25, "rank " + k);
        }
        assertTrue(counts[0] > counts[1] && counts[1] > counts[4] && counts[4] > counts[19]);
        // theta 0.99: rank 0 alone draws about 8% here; the upper half of the ranks under 7%.
        assertTrue(tail > 0 && tail < samples * 0.07, "tail " + tail);
    }

    @Test
    void scrambledZipfianSpreadsHotKeysAndIsReproducible() {
        long n = 100_000;
        Zipfian z = new Zipfian(n, 0.99);
        KeyChooser a = KeyChooser.zipfian(z, 5, 9);
        KeyChooser b = KeyChooser.zipfian(z, 5, 9);
        long[] hits = new long[(int) n];
        for (int i = 0; i < 200_000; i++) {
            long x = a.next();
            assertEquals(x, b.next(), "same seeds, same keys");
            hits[(int) x]++;
        }
        Set<Long> hot = new HashSet<>();
        for (int round = 0; round < 5; round++) {
            int best = 0;
            for (int i = 1; i < n; i++) {
                if (hits[i] > hits[best]) {
                    best = i;
                }
            }
            hot.add((long) best);
            hits[best] = -1;
        }
        long min = hot.stream().mapToLong(Long::longValue).min().orElseThrow();
        long max = hot.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertTrue(max - min > n / 10, "the 5 hottest keys are spread over the key space: " + hot);
    }

    @Test
    void uniformChooserCoversTheRangeAndIsReproducible() {
        KeyChooser a = KeyChooser.uniform(1000, 3);
        KeyChooser b = KeyChooser.uniform(1000, 3);
        BitSet seen = new BitSet(1000);
        for (int i = 0; i < 20_000; i++) {
            long x = a.next();
            assertEquals(x, b.next());
            seen.set((int) x);
        }
        assertEquals(1000, seen.cardinality());
    }

    @Test
    void liveKeysTrackGenerationsAndNeighbours() {
        LiveKeys live = new LiveKeys(10);
        for (int i = 0; i < 10; i++) {
            live.set(i, 1);
        }
        live.remove(3);
        live.remove(4);
        assertEquals(8, live.live());
        assertEquals(5, live.nextLive(3));
        assertEquals(2, live.prevLive(4));
        assertEquals(-1, live.nextLive(10));
        assertEquals(0, live.gen(3));
        int g = live.newGeneration();
        assertEquals(1, g);
        for (int i = 0; i < 300; i++) {
            int next = live.newGeneration();
            assertTrue(next >= 1 && next <= 255);
        }
    }
}
