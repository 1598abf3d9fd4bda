package dev.remixdb.bench.baseline;

import dev.remixdb.remix.Keys;
import dev.remixdb.remix.Run;
import dev.remixdb.remix.RunCursor;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The point-lookup baseline of REMIX §5.1 (Figure 11c): search the runs one by one, newest first,
 * and stop at the first run holding the key, as an LSM-tree GET does over SSTables. With Bloom
 * filters it searches only the runs whose filter says "maybe"; without them it searches every run
 * until the key is found. Not thread-safe; owns only its cursors.
 */
public final class RunByRunLookup implements AutoCloseable {
    private final Run[] runs;
    private final RunCursor[] cursors;
    private final BloomFilter[] filters;
    private final boolean countSearch;
    private long comparisons;
    private long runsSearched;
    private int found = -1;

    /**
     * @param filters     one filter per run (same order), or null to search without filters
     * @param countSearch search runs with {@link RunSearch}, counting comparisons (untimed pass)
     */
    public RunByRunLookup(List<? extends Run> runs, List<BloomFilter> filters, boolean countSearch) {
        this.runs = runs.toArray(new Run[0]);
        this.cursors = new RunCursor[this.runs.length];
        for (int r = 0; r < cursors.length; r++) {
            cursors[r] = this.runs[r].newCursor();
        }
        if (filters != null && filters.size() != this.runs.length) {
            throw new IllegalArgumentException("need one filter per run: " + filters.size() + " for " + this.runs.length);
        }
        this.filters = filters == null ? null : filters.toArray(new BloomFilter[0]);
        this.countSearch = countSearch;
    }

    /** Looks {@code key} up; true when found, and then {@link #copyValue} copies its value. */
    public boolean get(MemorySegment key, long off, int len) {
        found = -1;
        long hash = filters == null ? 0 : Keys.hash64(key, off, len);
        for (int r = runs.length - 1; r >= 0; r--) {
            if (filters != null && !filters[r].mightContain(hash)) {
                continue;
            }
            RunCursor c = cursors[r];
            runsSearched++;
            if (countSearch) {
                comparisons += RunSearch.seek(runs[r], c, key, off, len) + 1;
            } else {
                c.seek(key, off, len);
            }
            if (c.isValid() && c.compareKey(key, off, len) == 0) {
                found = r;
                return true;
            }
        }
        return false;
    }

    /** The run holding the key found by the last {@link #get}. */
    public int foundRun() {
        if (found < 0) {
            throw new IllegalStateException("the last get found nothing");
        }
        return found;
    }

    /** Copies the value found by the last {@link #get} to {@code dst[off]}; returns its length. */
    public int copyValue(MemorySegment dst, long off) {
        RunCursor c = cursors[foundRun()];
        int len = c.valueLength();
        MemorySegment.copy(c.valueSegment(), c.valueOffset(), dst, off, len);
        return len;
    }

    /** Key comparisons counted so far (only when counting searches). */
    public long comparisons() {
        return comparisons;
    }

    /** Runs actually searched so far (filter said maybe, or no filters). */
    public long runsSearched() {
        return runsSearched;
    }

    @Override
    public void close() {
        for (RunCursor c : cursors) {
            c.close();
        }
    }
}
