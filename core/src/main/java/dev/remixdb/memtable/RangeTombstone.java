package dev.remixdb.memtable;

import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A range delete held by a memtable: every version older than {@code seq} of every key in
 * [{@code from}, {@code to}) is deleted ({@code to} null: to the end of the key space). It lives on
 * the heap, one object per range delete (not per key), until its memtable is compacted: the
 * compaction merges every partition the range overlaps and leaves the covered versions out, after
 * which nothing older is left for it to hide.
 */
public record RangeTombstone(byte[] from, byte[] to, long seq) {
    /** Whether {@code key} is in the range. */
    public boolean covers(MemorySegment key, long offset, int length) {
        return Keys.compare(MemorySegment.ofArray(from), 0, from.length, key, offset, length) <= 0
                && (to == null || Keys.compare(key, offset, length, MemorySegment.ofArray(to), 0, to.length) < 0);
    }

    /** Whether {@code key} is in the range. */
    public boolean covers(byte[] key) {
        return Arrays.compareUnsigned(from, key) <= 0 && (to == null || Arrays.compareUnsigned(key, to) < 0);
    }

    /** Whether the range meets [{@code lower}, {@code upper}) ({@code upper} null: open). */
    public boolean overlaps(byte[] lower, byte[] upper) {
        return overlaps(from, to, lower, upper);
    }

    /**
     * Whether [{@code from}, {@code to}) meets [{@code lower}, {@code upper}); a null {@code from},
     * {@code to} or {@code upper} is open.
     */
    public static boolean overlaps(byte[] from, byte[] to, byte[] lower, byte[] upper) {
        return (upper == null || from == null || Arrays.compareUnsigned(from, upper) < 0)
                && (to == null || Arrays.compareUnsigned(to, lower) > 0);
    }

    /**
     * Whether a version with sequence number {@code versionSeq} of {@code key} is hidden by one of
     * {@code ranges} visible at {@code readSeq} (a range delete newer than the version, not newer
     * than the read).
     */
    public static boolean hides(RangeTombstone[] ranges, MemorySegment key, long offset, int length, long versionSeq,
                                long readSeq) {
        for (RangeTombstone r : ranges) {
            if (r.seq > versionSeq && r.seq <= readSeq && r.covers(key, offset, length)) {
                return true;
            }
        }
        return false;
    }
}
