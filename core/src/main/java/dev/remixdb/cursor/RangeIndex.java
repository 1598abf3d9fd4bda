package dev.remixdb.cursor;

import dev.remixdb.memtable.RangeTombstone;
import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The range deletes a cursor sees, cut into disjoint pieces for lookups in O(log n): the key space
 * is split at every range's start and end, and each piece records the newest range delete covering
 * it (its sequence number and which source holds it). A version of a key is hidden when the newest
 * range covering the key is newer than the version. Built once per cursor, from a few memtables'
 * range deletes (at most a few hundred: a memtable holding many is frozen early).
 */
final class RangeIndex {
    /** Piece i is [starts[i], starts[i + 1]) (the last one is open above). */
    private final byte[][] starts;
    /** The newest covering range's sequence number per piece, -2 where none covers it. */
    private final long[] newest;
    /** The index of the source holding that range, per piece. */
    private final int[] holder;

    private RangeIndex(byte[][] starts, long[] newest, int[] holder) {
        this.starts = starts;
        this.newest = newest;
        this.holder = holder;
    }

    /**
     * The index of the ranges visible at {@code readSeq} in {@code rangesBySource} (aligned with the
     * merger's sources), or null when there are none.
     */
    static RangeIndex of(RangeTombstone[][] rangesBySource, long readSeq) {
        List<RangeTombstone> visible = new ArrayList<>();
        List<Integer> owners = new ArrayList<>();
        for (int i = 0; i < rangesBySource.length; i++) {
            for (RangeTombstone r : rangesBySource[i]) {
                if (r.seq() <= readSeq) {
                    visible.add(r);
                    owners.add(i);
                }
            }
        }
        if (visible.isEmpty()) {
            return null;
        }
        List<byte[]> bounds = new ArrayList<>();
        for (RangeTombstone r : visible) {
            bounds.add(r.from());
            if (r.to() != null) {
                bounds.add(r.to());
            }
        }
        bounds.sort(Arrays::compareUnsigned);
        List<byte[]> unique = new ArrayList<>();
        for (byte[] b : bounds) {
            if (unique.isEmpty() || Arrays.compareUnsigned(unique.getLast(), b) != 0) {
                unique.add(b);
            }
        }
        byte[][] starts = unique.toArray(byte[][]::new);
        long[] newest = new long[starts.length];
        int[] holder = new int[starts.length];
        Arrays.fill(newest, -2);
        for (int k = 0; k < starts.length; k++) {
            byte[] end = k + 1 < starts.length ? starts[k + 1] : null;
            for (int j = 0; j < visible.size(); j++) {
                RangeTombstone r = visible.get(j);
                boolean coversStart = Arrays.compareUnsigned(r.from(), starts[k]) <= 0;
                boolean coversEnd = r.to() == null || (end != null && Arrays.compareUnsigned(r.to(), end) >= 0);
                if (coversStart && coversEnd && r.seq() > newest[k]) {
                    newest[k] = r.seq();
                    holder[k] = owners.get(j);
                }
            }
        }
        return new RangeIndex(starts, newest, holder);
    }

    /** The piece holding {@code key}, or -1 when the key is below every range. */
    int piece(MemorySegment key, long offset, int length) {
        int lo = 0;
        int hi = starts.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Keys.compare(MemorySegment.ofArray(starts[mid]), 0, starts[mid].length, key, offset, length) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Whether a range delete in piece {@code p} is newer than a version with {@code seq}. */
    boolean hides(int p, long seq) {
        return p >= 0 && newest[p] > seq;
    }

    /** The source holding the newest range delete of piece {@code p}. */
    int holder(int p) {
        return holder[p];
    }

    /** Piece {@code p}'s first key. */
    byte[] start(int p) {
        return starts[p];
    }

    /** Piece {@code p}'s end (exclusive), null for the last one. */
    byte[] end(int p) {
        return p + 1 < starts.length ? starts[p + 1] : null;
    }
}
