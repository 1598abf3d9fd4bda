package dev.remixdb.bench.micro;

import dev.remixdb.bench.baseline.BloomFilter;
import dev.remixdb.bench.baseline.RunByRunLookup;
import dev.remixdb.remix.Run;
import java.lang.foreign.MemorySegment;
import java.util.List;

/** The SSTable point-lookup baseline with one Bloom filter per run (REMIX §5.1); gets only. */
final class BloomTarget implements Target {
    private final RunByRunLookup lookup;

    BloomTarget(List<? extends Run> runs, List<BloomFilter> filters, boolean countSearch) {
        this.lookup = new RunByRunLookup(runs, filters, countSearch);
    }

    @Override
    public String index() {
        return "bloom";
    }

    @Override
    public boolean supports(Phase phase) {
        return phase == Phase.GET;
    }

    @Override
    public int seek(MemorySegment key, int len, MemorySegment out) {
        throw new UnsupportedOperationException("Bloom filters do not help a seek");
    }

    @Override
    public int seekNext(MemorySegment key, int len, int n, MemorySegment out) {
        throw new UnsupportedOperationException("Bloom filters do not help a seek");
    }

    @Override
    public int get(MemorySegment key, int len, MemorySegment out) {
        return lookup.get(key, 0, len) ? lookup.copyValue(out, 0) : -1;
    }

    @Override
    public long comparisons() {
        return lookup.comparisons();
    }

    @Override
    public void close() {
        lookup.close();
    }
}
