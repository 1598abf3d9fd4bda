package dev.remixdb.remix;

import dev.remixdb.util.NativeBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Selector counting without the Vector API: eight selectors at a time in one {@code long}
 * (SIMD within a register), the remainder byte by byte.
 */
public final class ScalarSelectorCounter implements SelectorCounter {
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long LOW6 = 0x3F3F_3F3F_3F3F_3F3FL;
    private static final long HIGH = 0x8080_8080_8080_8080L;

    @Override
    public int count(MemorySegment selectors, long from, int n, int run) {
        long pattern = ONES * run;
        int matches = 0;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long x = (selectors.get(NativeBuffer.LONG, from + i) ^ pattern) & LOW6;
            // Each byte of x is 0..63, so adding 0x7F sets its high bit exactly when it is non-zero
            // and never carries into the next byte.
            long nonZero = ((x + 0x7F7F_7F7F_7F7F_7F7FL) | x) & HIGH;
            matches += 8 - Long.bitCount(nonZero);
        }
        for (; i < n; i++) {
            if ((selectors.get(ValueLayout.JAVA_BYTE, from + i) & Selectors.RUN_MASK) == run) {
                matches++;
            }
        }
        return matches;
    }

    @Override
    public long matchTags(MemorySegment selectors, long selectorFrom, MemorySegment tags, long tagFrom, int n, byte tag) {
        long mask = 0;
        for (int i = 0; i < n; i++) {
            if (tags.get(ValueLayout.JAVA_BYTE, tagFrom + i) == tag) {
                int s = selectors.get(ValueLayout.JAVA_BYTE, selectorFrom + i) & 0xFF;
                if ((s & Selectors.STALE) == 0 && s != Selectors.PLACEHOLDER) {
                    mask |= 1L << i;
                }
            }
        }
        return mask;
    }

    @Override
    public String name() {
        return "scalar";
    }
}
