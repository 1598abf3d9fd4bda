package dev.remixdb.bench.baseline;

import dev.remixdb.remix.Keys;
import dev.remixdb.remix.Run;
import dev.remixdb.remix.RunCursor;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The baseline of REMIX §2 and §5.1: a merging iterator over H runs, as in LevelDB and RocksDB. A seek
 * does a binary search in every run and builds a binary min-heap of the H cursors; a next advances
 * the smallest cursor and sifts it down, comparing keys of several runs.
 *
 * <p>Equal keys in several runs come out newest (highest run id) first, all of them: like LevelDB's
 * {@code MergingIterator}, it does not hide older versions (the benchmark datasets have none).
 * Not thread-safe; owns only its cursors.
 */
public final class MergingIterator implements AutoCloseable {
    private final Run[] runs;
    private final RunCursor[] cursors;
    private final int[] heap;
    private final boolean countSearch;
    private int size;
    private long comparisons;

    /**
     * An iterator over {@code runs} (run i has id i).
     *
     * @param countSearch seek with {@link RunSearch}, counting every comparison, instead of the runs'
     *                    own (uncounted) seek; for the untimed counting pass
     */
    public MergingIterator(List<? extends Run> runs, boolean countSearch) {
        this.runs = runs.toArray(new Run[0]);
        this.cursors = new RunCursor[this.runs.length];
        for (int r = 0; r < cursors.length; r++) {
            cursors[r] = this.runs[r].newCursor();
        }
        this.heap = new int[Math.max(1, cursors.length)];
        this.countSearch = countSearch;
    }

    /** Positions at the first key {@code >= key[off, off+len)}. */
    public void seek(MemorySegment key, long off, int len) {
        size = 0;
        for (int r = 0; r < cursors.length; r++) {
            RunCursor c = cursors[r];
            if (countSearch) {
                comparisons += RunSearch.seek(runs[r], c, key, off, len);
            } else {
                c.seek(key, off, len);
            }
            if (c.isValid()) {
                heap[size++] = r;
            }
        }
        for (int i = (size >>> 1) - 1; i >= 0; i--) {
            siftDown(i);
        }
    }

    /** Whether the iterator is at a key. */
    public boolean isValid() {
        return size > 0;
    }

    /** Moves to the next key of the merged order. */
    public void next() {
        if (size == 0) {
            throw new IllegalStateException("MergingIterator is not positioned at a key");
        }
        RunCursor c = cursors[heap[0]];
        c.next();
        if (!c.isValid()) {
            heap[0] = heap[--size];
        }
        if (size > 1) {
            siftDown(0);
        }
    }

    /** The cursor of the run holding the current key (valid until the iterator moves). */
    public RunCursor current() {
        if (size == 0) {
            throw new IllegalStateException("MergingIterator is not positioned at a key");
        }
        return cursors[heap[0]];
    }

    /** The id of the run holding the current key. */
    public int runId() {
        current();
        return heap[0];
    }

    /** Copies the current key to {@code dst[off]}; returns its length. */
    public int copyKey(MemorySegment dst, long off) {
        RunCursor c = current();
        int len = c.keyLength();
        MemorySegment.copy(c.keySegment(), c.keyOffset(), dst, off, len);
        return len;
    }

    /** Copies the current value to {@code dst[off]}; returns its length. */
    public int copyValue(MemorySegment dst, long off) {
        RunCursor c = current();
        int len = c.valueLength();
        MemorySegment.copy(c.valueSegment(), c.valueOffset(), dst, off, len);
        return len;
    }

    /** Key comparisons made so far: heap comparisons, plus run searches when counting them. */
    public long comparisons() {
        return comparisons;
    }

    private void siftDown(int i) {
        int x = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && before(heap[right], heap[child])) {
                child = right;
            }
            if (!before(heap[child], x)) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = x;
    }

    /** Whether run a's key sorts before run b's: smaller key, or the same key in a newer run. */
    private boolean before(int a, int b) {
        comparisons++;
        RunCursor x = cursors[a];
        RunCursor y = cursors[b];
        int c = Keys.compare(x.keySegment(), x.keyOffset(), x.keyLength(),
                y.keySegment(), y.keyOffset(), y.keyLength());
        return c < 0 || (c == 0 && a > b);
    }

    @Override
    public void close() {
        for (RunCursor c : cursors) {
            c.close();
        }
        size = 0;
    }
}
