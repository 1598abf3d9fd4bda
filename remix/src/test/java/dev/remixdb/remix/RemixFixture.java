package dev.remixdb.remix;

import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.RemixModel.Kv;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A dataset opened as {@link MemoryRun}s, the REMIX built over them and the model of the same data.
 * Closing it closes the REMIX first, then the runs.
 */
final class RemixFixture implements AutoCloseable {
    final Dataset data;
    final List<MemoryRun> runs;
    final Remix remix;
    final RemixModel model;

    private RemixFixture(Dataset data, List<MemoryRun> runs, Remix remix) {
        this.data = data;
        this.runs = runs;
        this.remix = remix;
        this.model = new RemixModel(data);
    }

    static RemixFixture build(Dataset data, RemixConfig config, int blockBytes) {
        List<MemoryRun> runs = openRuns(data, blockBytes);
        try {
            return new RemixFixture(data, runs, Remix.build(runs, config));
        } catch (RuntimeException | Error e) {
            closeAll(runs);
            throw e;
        }
    }

    /** One {@link MemoryRun} per run of {@code data}. */
    static List<MemoryRun> openRuns(Dataset data, int blockBytes) {
        List<MemoryRun> runs = new ArrayList<>();
        try {
            for (List<Kv> run : data.runs()) {
                runs.add(openRun(run, blockBytes));
            }
            return runs;
        } catch (RuntimeException | Error e) {
            closeAll(runs);
            throw e;
        }
    }

    static MemoryRun openRun(List<Kv> run, int blockBytes) {
        MemoryRun.Builder b = MemoryRun.builder().blockBytes(blockBytes);
        for (Kv kv : run) {
            b.add(MemorySegment.ofArray(kv.key()),
                    kv.tombstone() ? MemorySegment.NULL : MemorySegment.ofArray(kv.value()), kv.tombstone());
        }
        return b.build();
    }

    static void closeAll(List<? extends AutoCloseable> resources) {
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                throw new AssertionError("close failed", e);
            }
        }
    }

    @Override
    public void close() {
        remix.close();
        closeAll(runs);
    }
}
