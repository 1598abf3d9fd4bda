package dev.remixdb.bench.micro;

import dev.remixdb.bench.baseline.MergingIterator;
import dev.remixdb.bench.baseline.RunByRunLookup;
import dev.remixdb.remix.Run;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The SSTable baseline without filters: seeks and scans with a {@link MergingIterator}; a get searches
 * the runs newest first without Bloom filters (REMIX Figure 11c, "without Bloom filters").
 */
final class MergingTarget implements Target {
    private final MergingIterator iterator;
    private final RunByRunLookup lookup;

    MergingTarget(List<? extends Run> runs, boolean countSearch) {
        this.iterator = new MergingIterator(runs, countSearch);
        this.lookup = new RunByRunLookup(runs, null, countSearch);
    }

    @Override
    public String index() {
        return "merging";
    }

    @Override
    public boolean supports(Phase phase) {
        return true;
    }

    @Override
    public int seek(MemorySegment key, int len, MemorySegment out) {
        iterator.seek(key, 0, len);
        return iterator.isValid() ? iterator.copyKey(out, 0) : -1;
    }

    @Override
    public int seekNext(MemorySegment key, int len, int n, MemorySegment out) {
        MergingIterator it = iterator;
        it.seek(key, 0, len);
        long at = 0;
        int copied = 0;
        while (it.isValid()) {
            at += it.copyKey(out, at);
            at += it.copyValue(out, at);
            if (++copied == n) {
                break;
            }
            it.next();
        }
        return copied;
    }

    @Override
    public int get(MemorySegment key, int len, MemorySegment out) {
        return lookup.get(key, 0, len) ? lookup.copyValue(out, 0) : -1;
    }

    @Override
    public long comparisons() {
        return iterator.comparisons() + lookup.comparisons();
    }

    @Override
    public void close() {
        iterator.close();
        lookup.close();
    }
}
