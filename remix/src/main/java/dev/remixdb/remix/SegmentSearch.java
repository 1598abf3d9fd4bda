package dev.remixdb.remix;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The search inside one segment of a REMIX (REMIX §3.2), over the run cursors of one
 * {@link RemixCursor}: placing a run's cursor at a slot by counting selector occurrences, the
 * binary search over the slots with the "same block first" narrowing, and the hash-tag match.
 * Not thread-safe; owned by its cursor.
 */
final class SegmentSearch {
    private final Remix remix;
    private final SelectorCounter counter;
    private final MemorySegment records;
    private final int recordSize;
    private final int segmentSize;
    private final RunCursor[] cursors;
    private final int[] occurrences;
    /** During a binary search, the slot each run's cursor was last placed on (-1: none). */
    private final int[] probedSlot;
    boolean sameBlockFirst = true;
    /** Whether run cursors are made with {@link Run#newScanCursor()}. */
    boolean scan;
    /** Whether run cursors are made with {@link Run#newCachedCursor()}. */
    boolean cachedOnly;
    private long comparisons;

    SegmentSearch(Remix remix, SelectorCounter counter, RunCursor[] cursors) {
        this.remix = remix;
        this.counter = counter;
        this.records = remix.records();
        this.recordSize = remix.recordSize();
        this.segmentSize = remix.segmentSize();
        this.cursors = cursors;
        this.probedSlot = new int[cursors.length];
        this.occurrences = new int[segmentSize];  // slots of one segment: per cursor, so no bigger
    }

    /** Run {@code r}'s cursor, made on first use; it is unpositioned until {@link #probe}. */
    private RunCursor cursor(int r) {
        RunCursor c = cursors[r];
        if (c == null) {
            c = scan ? remix.run(r).newScanCursor() : cachedOnly ? remix.run(r).newCachedCursor() : remix.run(r).newCursor();
            cursors[r] = c;
        }
        return c;
    }

    /** Full key comparisons made so far. */
    long comparisons() {
        return comparisons;
    }

    /** Whether the last binary search left run {@code r}'s cursor on slot {@code at}. */
    boolean leftCursorAt(int r, int at) {
        return probedSlot[r] == at;
    }

    private int selectorAt(long index) {
        return records.get(ValueLayout.JAVA_BYTE, index) & 0xFF;
    }

    /**
     * Places run {@code r}'s cursor at the key of slot {@code at} of segment {@code s}: the segment's
     * cursor offset for {@code r}, advanced by the occurrences of {@code r} before the slot.
     */
    RunCursor probe(long s, int at, int r) {
        RunCursor c = cursor(r);
        c.seekTo(remix.cursorOffset(s, r));
        int k = counter.count(records, s * recordSize, at, r);
        if (k > 0) {
            c.skip(k);
        }
        return c;
    }

    /**
     * The slot of the newest version of {@code key} in segment {@code s}, or -1, looking only at the
     * slots whose tag matches (all versions of a key share a segment, REMIX §4.1); only those are
     * compared in full. On a hit, the probe has left that run's cursor on the slot.
     */
    int findByTag(long s, int used, MemorySegment key, long off, int len) {
        long base = s * recordSize;
        long matches = counter.matchTags(records, base, records, base + segmentSize, used, Keys.tag(key, off, len));
        while (matches != 0) {
            int j = Long.numberOfTrailingZeros(matches);
            matches &= matches - 1;
            int r = Selectors.run(selectorAt(base + j));
            RunCursor c = probe(s, j, r);
            comparisons++;
            if (c.compareKey(key, off, len) == 0) {
                return j;
            }
        }
        return -1;
    }

    /** The first slot in {@code [0, used)} of segment {@code s} whose key is {@code >= key}. */
    int binarySearch(long s, int used, MemorySegment key, long off, int len) {
        Arrays.fill(probedSlot, -1);
        long base = s * recordSize;
        int lo = 0;
        int hi = used;
        while (lo < hi) {
            int m = (lo + hi) >>> 1;
            int r = Selectors.run(selectorAt(base + m));
            RunCursor c = probe(s, m, r);
            probedSlot[r] = m;
            comparisons++;
            if (c.compareKey(key, off, len) < 0) {
                lo = m + 1;
                if (sameBlockFirst && lo < hi) {
                    long range = narrowAfter(c, r, base, m, hi, key, off, len);
                    lo = (int) (range >>> 32);
                    hi = (int) range;
                }
            } else {
                hi = m;
                if (sameBlockFirst && lo < hi) {
                    long range = narrowBefore(c, r, base, m, lo, key, off, len);
                    lo = (int) (range >>> 32);
                    hi = (int) range;
                }
            }
        }
        return lo;
    }

    /**
     * After slot {@code m} (run {@code r}, key < target) the next keys of run {@code r} in the same
     * block are already in memory: binary search among their slots in {@code (m, hi)} first.
     * Returns the narrowed (lo, hi) packed as two ints.
     */
    private long narrowAfter(RunCursor c, int r, long base, int m, int hi, MemorySegment key, long off, int len) {
        int address = c.address();
        int block = RunAddress.block(address);
        int index = RunAddress.index(address);
        int avail = remix.run(r).keyCount(block) - index - 1;
        int n = 0;
        for (int j = m + 1; j < hi && n < avail; j++) {
            if (Selectors.run(selectorAt(base + j)) == r) {
                occurrences[n++] = j;
            }
        }
        int lo2 = 0;
        int hi2 = n;
        while (lo2 < hi2) {
            int q = (lo2 + hi2) >>> 1;
            c.seekTo(RunAddress.of(block, index + 1 + q));
            probedSlot[r] = occurrences[q];
            comparisons++;
            if (c.compareKey(key, off, len) < 0) {
                lo2 = q + 1;
            } else {
                hi2 = q;
            }
        }
        int lo = lo2 > 0 ? occurrences[lo2 - 1] + 1 : m + 1;
        int newHi = lo2 < n ? occurrences[lo2] : hi;
        return ((long) lo << 32) | newHi;
    }

    /** Mirror of {@link #narrowAfter}: the earlier keys of run {@code r}'s block, in {@code [lo, m)}. */
    private long narrowBefore(RunCursor c, int r, long base, int m, int lo, MemorySegment key, long off, int len) {
        int address = c.address();
        int block = RunAddress.block(address);
        int index = RunAddress.index(address);
        int n = 0;
        for (int j = m - 1; j >= lo && n < index; j--) {
            if (Selectors.run(selectorAt(base + j)) == r) {
                occurrences[n++] = j;  // nearest first: key index (index - 1 - n)
            }
        }
        // Keys decrease with q; find the first q whose key is < target.
        int lo2 = 0;
        int hi2 = n;
        while (lo2 < hi2) {
            int q = (lo2 + hi2) >>> 1;
            c.seekTo(RunAddress.of(block, index - 1 - q));
            probedSlot[r] = occurrences[q];
            comparisons++;
            if (c.compareKey(key, off, len) < 0) {
                hi2 = q;
            } else {
                lo2 = q + 1;
            }
        }
        int newLo = lo2 < n ? occurrences[lo2] + 1 : lo;
        int hi = lo2 > 0 ? occurrences[lo2 - 1] : m;
        return ((long) newLo << 32) | hi;
    }

}
