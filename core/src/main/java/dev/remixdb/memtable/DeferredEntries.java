package dev.remixdb.memtable;

import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Entries a {@link Memtable} holds but has not put in its ordered index yet (see
 * {@link Memtable#addDeferred}), in the order they came, and the sort that links them in key order.
 *
 * <p>Why: inserting random keys one at a time costs a search of the index each, which in a
 * restore's profile was 70% of the time. Sorted first, the same entries go in ascending, where each
 * insert lands at the end of the leaf the previous one filled (one comparison, see
 * {@link LeafTree}), and the sort itself mostly compares longs in one array.
 *
 * <p>The sort: every key's 8 bytes after the prefix all of them share, with the entry's arrival
 * index in the low bits, in one {@code long[]} sorted as numbers; the few runs of entries whose
 * high bits tie (equal keys, or keys alike for longer than those bits) are then ordered by comparing
 * their keys in full, a later arrival first (it gets the higher sequence number).
 */
final class DeferredEntries {
    private static final long[] NONE = {};
    /** Runs of tied entries up to this length are sorted by insertion. */
    private static final int INSERTION_SORT_MAX = 24;

    private long[] handles = NONE;
    private int count;

    int count() {
        return count;
    }

    long handle(int i) {
        return handles[i];
    }

    void add(long handle) {
        if (count == handles.length) {
            handles = Arrays.copyOf(handles, Math.max(1024, count + (count >> 1)));
        }
        handles[count++] = handle;
    }

    /** Forgets every entry (they are linked now), and the array with them. */
    void clear() {
        handles = NONE;
        count = 0;
    }

    /** The arrival indexes of the entries, ordered by key ascending, then later arrival first. */
    int[] order(Entries entries) {
        int n = count;
        if (n == 0) {
            return new int[0];
        }
        // Keys are read in arrival order: the order they were written into the chunks, so the
        // passes over them stream through memory.
        long first = handles[0];
        MemorySegment firstSeg = entries.segment(first);
        long firstOff = entries.keyOffset(first);
        int firstLen = entries.keyLength(first);
        int shared = firstLen;
        for (int i = 1; i < n && shared > 0; i++) {
            long e = handles[i];
            shared = Math.min(shared, Keys.commonPrefix(firstSeg, firstOff, firstLen,
                    entries.segment(e), entries.keyOffset(e), entries.keyLength(e)));
        }
        int bits = 32 - Integer.numberOfLeadingZeros(n - 1);
        long low = bits == 0 ? 0 : (1L << bits) - 1;
        long[] packed = new long[n];
        for (int i = 0; i < n; i++) {
            long e = handles[i];
            long head = Keys.head(entries.segment(e), entries.keyOffset(e), entries.keyLength(e), shared);
            // Flipping the top bit makes the signed sort order the unsigned order of the heads.
            packed[i] = ((head ^ Long.MIN_VALUE) & ~low) | i;
        }
        Arrays.sort(packed);
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = (int) (packed[i] & low);
        }
        for (int from = 0; from < n; ) {
            long high = packed[from] & ~low;
            int to = from + 1;
            while (to < n && (packed[to] & ~low) == high) {
                to++;
            }
            if (to - from > 1) {
                sortTies(entries, order, from, to);
            }
            from = to;
        }
        return order;
    }

    /** Orders {@code order[from, to)} by comparing keys in full (merge sort above a few entries). */
    private void sortTies(Entries entries, int[] order, int from, int to) {
        if (to - from <= INSERTION_SORT_MAX) {
            for (int i = from + 1; i < to; i++) {
                int x = order[i];
                int j = i - 1;
                while (j >= from && compare(entries, order[j], x) > 0) {
                    order[j + 1] = order[j];
                    j--;
                }
                order[j + 1] = x;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        sortTies(entries, order, from, mid);
        sortTies(entries, order, mid, to);
        if (compare(entries, order[mid - 1], order[mid]) <= 0) {
            return;
        }
        int[] left = Arrays.copyOfRange(order, from, mid);
        int i = 0;
        int j = mid;
        int k = from;
        while (i < left.length && j < to) {
            order[k++] = compare(entries, left[i], order[j]) <= 0 ? left[i++] : order[j++];
        }
        while (i < left.length) {
            order[k++] = left[i++];
        }
    }

    /** Key ascending, then the later arrival first. */
    private int compare(Entries entries, int a, int b) {
        long x = handles[a];
        long y = handles[b];
        int c = Keys.compare(entries.segment(x), entries.keyOffset(x), entries.keyLength(x),
                entries.segment(y), entries.keyOffset(y), entries.keyLength(y));
        return c != 0 ? c : Integer.compare(b, a);
    }
}
