package dev.remixdb.remix.vector;

import dev.remixdb.remix.SelectorCounter;
import dev.remixdb.remix.Selectors;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Selector counting with the incubating Vector API: load a segment's selectors, mask the run bits,
 * compare with the run id and count the lanes that match (the paper's "SIMD: load, mask, compare,
 * movemask, popcount"). Loaded by name from {@code SelectorCounters} only when the
 * {@code jdk.incubator.vector} module is present, so nothing else depends on it.
 */
public final class VectorSelectorCounter implements SelectorCounter {
    private static final VectorSpecies<Byte> SPECIES = ByteVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();
    private static final byte RUN_MASK = (byte) Selectors.RUN_MASK;

    /** The lane count this implementation uses (16 for SSE, 32 for AVX2, 64 for AVX-512). */
    public static int lanes() {
        return LANES;
    }

    @Override
    public int count(MemorySegment selectors, long from, int n, int run) {
        byte r = (byte) run;
        int matches = 0;
        int i = 0;
        for (; i + LANES <= n; i += LANES) {
            ByteVector v = ByteVector.fromMemorySegment(SPECIES, selectors, from + i, ByteOrder.LITTLE_ENDIAN);
            matches += v.and(RUN_MASK).compare(VectorOperators.EQ, r).trueCount();
        }
        if (i < n) {
            VectorMask<Byte> tail = SPECIES.indexInRange(i, n);
            ByteVector v = ByteVector.fromMemorySegment(SPECIES, selectors, from + i, ByteOrder.LITTLE_ENDIAN, tail);
            matches += v.and(RUN_MASK).compare(VectorOperators.EQ, r, tail).trueCount();
        }
        return matches;
    }

    @Override
    public long matchTags(MemorySegment selectors, long selectorFrom, MemorySegment tags, long tagFrom, int n, byte tag) {
        long mask = 0;
        for (int i = 0; i < n; i += LANES) {
            VectorMask<Byte> lanes = SPECIES.indexInRange(i, n);
            ByteVector t = ByteVector.fromMemorySegment(SPECIES, tags, tagFrom + i, ByteOrder.LITTLE_ENDIAN, lanes);
            ByteVector s = ByteVector.fromMemorySegment(SPECIES, selectors, selectorFrom + i, ByteOrder.LITTLE_ENDIAN, lanes);
            VectorMask<Byte> hit = t.compare(VectorOperators.EQ, tag, lanes)
                    .and(s.and((byte) Selectors.STALE).compare(VectorOperators.EQ, (byte) 0))
                    .and(s.compare(VectorOperators.NE, (byte) Selectors.PLACEHOLDER));
            mask |= hit.toLong() << i;
        }
        return mask;
    }

    @Override
    public String name() {
        return "vector-" + SPECIES.vectorBitSize();
    }
}
