package dev.remixdb.bench.micro;

import dev.remixdb.bench.Json;
import dev.remixdb.bench.MachineInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a {@link MicroReport} as JSON, by hand (no library): machine, date, args (the command line),
 * settings, results (one object per measurement, with speedups) and remixSizes. One result per line,
 * so the file also greps well.
 */
public final class JsonReport {
    private JsonReport() {}

    /** The JSON text. */
    public static String render(MicroReport r, List<String> argv) {
        StringBuilder b = new StringBuilder(16_384);
        b.append("{\n");
        b.append("  \"machine\": ").append(Json.value(MachineInfo.describe())).append(",\n");
        b.append("  \"date\": ").append(Json.string(r.started())).append(",\n");
        b.append("  \"args\": [");
        for (int i = 0; i < argv.size(); i++) {
            b.append(i == 0 ? "" : ", ").append(Json.string(argv.get(i)));
        }
        b.append("],\n");
        b.append("  \"settings\": ").append(Json.value(r.options().describe())).append(",\n");
        b.append("  \"wallSeconds\": ").append(Json.number(r.wallSeconds())).append(",\n");
        b.append("  \"results\": [\n");
        for (int i = 0; i < r.results().size(); i++) {
            Result x = r.results().get(i);
            b.append("    {\"phase\": ").append(Json.string(x.phase().label()))
                    .append(", \"index\": ").append(Json.string(x.index()))
                    .append(", \"runs\": ").append(x.runs())
                    .append(", \"locality\": ").append(Json.string(x.locality()))
                    .append(", \"segment\": ").append(x.isRemix() ? Integer.toString(x.segment()) : "null")
                    .append(", \"keys\": ").append(x.keys())
                    .append(", \"opsPerSec\": ").append(Json.number(x.opsPerSec()))
                    .append(", \"minOpsPerSec\": ").append(Json.number(x.minOpsPerSec()))
                    .append(", \"maxOpsPerSec\": ").append(Json.number(x.maxOpsPerSec()))
                    .append(", \"keyComparisonsPerOp\": ").append(Json.number(x.keyComparisonsPerOp()))
                    .append(", \"speedupVsMerging\": ").append(Json.number(r.speedup(x, "merging")))
                    .append(", \"speedupVsBloom\": ").append(Json.number(r.speedup(x, "bloom")))
                    .append(", \"ops\": ").append(x.ops())
                    .append(", \"seconds\": ").append(Json.number(x.seconds()))
                    .append(", \"copiedFrom\": ").append(Json.string(x.copiedFrom()))
                    .append('}').append(i + 1 < r.results().size() ? ",\n" : "\n");
        }
        b.append("  ],\n");
        b.append("  \"remixSizes\": [\n");
        for (int i = 0; i < r.sizes().size(); i++) {
            RemixSize s = r.sizes().get(i);
            b.append("    {\"locality\": ").append(Json.string(s.locality()))
                    .append(", \"runs\": ").append(s.runs())
                    .append(", \"segment\": ").append(s.segment())
                    .append(", \"tags\": ").append(s.tags())
                    .append(", \"keys\": ").append(s.keys())
                    .append(", \"segments\": ").append(s.segments())
                    .append(", \"anchorBytesAvg\": ").append(Json.number(s.anchorAverage()))
                    .append(", \"metadataBytes\": ").append(s.metadataBytes())
                    .append(", \"bytesPerKey\": ").append(Json.number(s.bytesPerKey()))
                    .append(", \"formulaBytesPerKey\": ").append(Json.number(s.formulaBytesPerKey()))
                    .append(", \"buildSeconds\": ").append(Json.number(s.buildSeconds()))
                    .append('}').append(i + 1 < r.sizes().size() ? ",\n" : "\n");
        }
        b.append("  ]\n}\n");
        return b.toString();
    }

    /** Writes the JSON to {@code file}, creating its folder. */
    public static void write(MicroReport r, List<String> argv, Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Files.writeString(file, render(r, argv), StandardCharsets.UTF_8);
    }
}
