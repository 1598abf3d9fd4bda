package dev.remixdb.bench.micro;

import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.json.Json;
import dev.remixdb.bench.json.OneLine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A {@link MicroReport} as JSON: machine, date, args (the command line), settings, results (one
 * object per measurement, with speedups) and remixSizes, one result per line so the file also greps
 * well. The records below are the file's objects; their components are its fields, in order.
 */
public final class JsonReport {
    private JsonReport() {}

    /** The whole file. */
    record File(@OneLine Map<String, Object> machine, String date, @OneLine List<String> args,
                @OneLine Map<String, Object> settings, double wallSeconds, List<Row> results, List<Size> remixSizes) {}

    /**
     * One measurement; {@code segment} is null for the baselines, the speedups NaN (written as null)
     * where there is no such baseline.
     */
    record Row(String phase, String index, int runs, String locality, Integer segment, long keys, double opsPerSec,
               double minOpsPerSec, double maxOpsPerSec, double keyComparisonsPerOp, double speedupVsMerging,
               double speedupVsBloom, long ops, double seconds, String copiedFrom) {}

    /** One REMIX built: its size and the paper's formula. */
    record Size(String locality, int runs, int segment, boolean tags, long keys, long segments, double anchorBytesAvg,
                long metadataBytes, double bytesPerKey, double formulaBytesPerKey, double buildSeconds) {}

    /** The file's content. */
    static File of(MicroReport r, List<String> argv) {
        List<Row> rows = r.results().stream().map(x -> new Row(x.phase().label(), x.index(), x.runs(), x.locality(),
                x.isRemix() ? x.segment() : null, x.keys(), x.opsPerSec(), x.minOpsPerSec(), x.maxOpsPerSec(),
                x.keyComparisonsPerOp(), r.speedup(x, "merging"), r.speedup(x, "bloom"), x.ops(), x.seconds(),
                x.copiedFrom())).toList();
        List<Size> sizes = r.sizes().stream().map(s -> new Size(s.locality(), s.runs(), s.segment(), s.tags(), s.keys(),
                s.segments(), s.anchorAverage(), s.metadataBytes(), s.bytesPerKey(), s.formulaBytesPerKey(),
                s.buildSeconds())).toList();
        return new File(MachineInfo.describe(), r.started(), List.copyOf(argv), r.options().describe(), r.wallSeconds(),
                rows, sizes);
    }

    /** The JSON text. */
    public static String render(MicroReport r, List<String> argv) {
        return Json.report(of(r, argv));
    }

    /** Writes the JSON to {@code file}, creating its folder. */
    public static void write(MicroReport r, List<String> argv, Path file) throws IOException {
        Json.writeReport(file, of(r, argv));
    }
}
