package dev.remixdb.bench.jmh;

import dev.remixdb.bench.data.Dataset;
import dev.remixdb.bench.data.DatasetGenerator;
import dev.remixdb.bench.data.KeyFormat;
import dev.remixdb.bench.data.Locality;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The data the seek and next benchmarks share: H runs as in {@code remix-micro}, a REMIX (D = 32,
 * tags) over them, and buffers. Owns all of it until {@link #close()}.
 */
final class RunsState implements AutoCloseable {
    final Dataset data;
    final Remix remix;
    final Arena arena = Arena.ofConfined();
    final MemorySegment key = arena.allocate(KeyFormat.KEY_BYTES);
    final MemorySegment out = arena.allocate(KeyFormat.KEY_BYTES + KeyFormat.VALUE_BYTES);
    private long rng;

    RunsState(int runs, long keysPerRun, String locality, int segment) {
        this.data = DatasetGenerator.generate(runs, keysPerRun, Locality.parse(locality), 42);
        this.remix = Remix.build(data.runs(), new RemixConfig(segment, true));
        this.rng = 42;
    }

    /** Writes a uniformly random existing key into {@link #key} (SplitMix64; allocation-free). */
    void nextKey() {
        long z = (rng += 0x9E37_79B9_7F4A_7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        z ^= z >>> 31;
        data.keyFormat().writeKey(key, 0, Math.unsignedMultiplyHigh(z, data.keyCount()));
    }

    @Override
    public void close() {
        try {
            remix.close();
        } finally {
            try {
                data.close();
            } finally {
                arena.close();
            }
        }
    }
}
