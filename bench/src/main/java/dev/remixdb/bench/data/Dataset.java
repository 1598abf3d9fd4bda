package dev.remixdb.bench.data;

import dev.remixdb.bench.Closeables;
import dev.remixdb.remix.MemoryRun;
import java.util.List;

/**
 * H sorted runs in native memory holding keys {@code 0 .. keyCount-1} of a {@link KeyCodec}, each key
 * in exactly one run. Owns the runs: {@link #close()} frees them.
 */
public final class Dataset implements AutoCloseable {
    private final List<MemoryRun> runs;
    private final KeyCodec codec;
    private final Locality locality;

    Dataset(List<MemoryRun> runs, KeyCodec codec, Locality locality) {
        this.runs = List.copyOf(runs);
        this.codec = codec;
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
        return codec.count();
    }

    /** The codec that makes key and value {@code i} of this dataset. */
    public KeyCodec codec() {
        return codec;
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
