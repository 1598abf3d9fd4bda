package dev.remixdb.bench.data;

import dev.remixdb.bench.Closeables;
import dev.remixdb.remix.MemoryRun;
import java.util.List;

/**
 * H sorted runs in native memory holding keys {@code 0 .. keyCount-1} of a {@link KeyFormat}, each key
 * in exactly one run. Owns the runs: {@link #close()} frees them.
 */
public final class Dataset implements AutoCloseable {
    private final List<MemoryRun> runs;
    private final KeyFormat keyFormat;
    private final Locality locality;

    Dataset(List<MemoryRun> runs, KeyFormat keyFormat, Locality locality) {
        this.runs = List.copyOf(runs);
        this.keyFormat = keyFormat;
        this.locality = locality;
    }

    /** The runs, oldest (id 0) first. */
    public List<MemoryRun> runs() {
        return runs;
    }

    /** H, the number of runs. */
    public int runCount() {
        return runs.size();
    }

    /** Total number of keys over all runs. */
    public long keyCount() {
        return keyFormat.count();
    }

    /** The key format that makes key and value {@code i} of this dataset. */
    public KeyFormat keyFormat() {
        return keyFormat;
    }

    /** How keys were spread over the runs. */
    public Locality locality() {
        return locality;
    }

    /** Native memory held by the runs. */
    public long memoryBytes() {
        long sum = 0;
        for (MemoryRun r : runs) {
            sum += r.memoryBytes();
        }
        return sum;
    }

    /** Frees every run; later failures are added to the first as suppressed. */
    @Override
    public void close() {
        Closeables.closeAll(runs);
    }
}
