package dev.remixdb.bench.baseline;

import dev.remixdb.remix.Run;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.remix.RunCursor;
import java.lang.foreign.MemorySegment;

/**
 * A seek in one run that counts its key comparisons: binary search over the blocks' last keys (what
 * an SSTable's block index does), then over the keys of the chosen block. It lands where
 * {@link RunCursor#seek} lands; the baselines use it only in the untimed pass that counts
 * comparisons, and the run's own seek when timed.
 */
public final class RunSearch {
    private RunSearch() {}

    /** Positions {@code c} (a cursor of {@code run}) at the first key {@code >= key}; returns the comparisons made. */
    public static int seek(Run run, RunCursor c, MemorySegment key, long off, int len) {
        int comparisons = 0;
        int lo = 0;
        int hi = run.blockCount();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            c.seekTo(RunAddress.of(mid, run.keyCount(mid) - 1));
            comparisons++;
            if (c.compareKey(key, off, len) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo == run.blockCount()) {
            c.seekTo(run.endAddress());
            return comparisons;
        }
        int l = 0;
        int h = run.keyCount(lo) - 1;
        while (l < h) {
            int mid = (l + h) >>> 1;
            c.seekTo(RunAddress.of(lo, mid));
            comparisons++;
            if (c.compareKey(key, off, len) < 0) {
                l = mid + 1;
            } else {
                h = mid;
            }
        }
        c.seekTo(RunAddress.of(lo, l));
        return comparisons;
    }
}
