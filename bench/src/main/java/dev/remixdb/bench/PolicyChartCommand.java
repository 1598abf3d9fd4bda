package dev.remixdb.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.remixdb.bench.chart.ChartSheet;
import dev.remixdb.bench.chart.Charts;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.json.Json;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code policy-chart}: the engine comparison of compaction policies as one chart sheet. It reads
 * the JSON of {@code db --policy NAME} runs (one per policy, same phases) and draws, per phase, each
 * run's RemixDB ops/s and RocksDB's from the first run that has it; then the bytes each run wrote
 * in total and the space amplification after its last phase.
 */
@Command(name = "policy-chart",
        description = {"Charts db --policy runs side by side: ops/s per phase, bytes written, space amplification."},
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
final class PolicyChartCommand implements Callable<Integer> {
    private static final Color[] COLORS = {new Color(0x1F77B4), new Color(0x2CA02C), new Color(0x9467BD),
            new Color(0xFF7F0E), new Color(0x8C564B), new Color(0xD62728)};

    @Parameters(arity = "1..*", paramLabel = "LABEL=FILE",
            description = "A label for the run (e.g. the policy) and the JSON file db --json wrote.")
    List<String> runs;

    @Option(names = "--out", required = true, description = "The PNG file to write.")
    Path out;

    @Option(names = "--title", defaultValue = "Compaction policies in the engine",
            description = "The sheet's title (default: ${DEFAULT-VALUE}).")
    String title;

    @Mixin
    HelpOption help;

    @Override
    public Integer call() throws IOException {
        Map<String, JsonNode> byLabel = new LinkedHashMap<>();
        for (String run : runs) {
            // The last '=': labels may hold one (rangereduce:budget=unlimited), file names do not.
            int eq = run.lastIndexOf('=');
            if (eq <= 0) {
                throw new UsageException("expected LABEL=FILE: " + run);
            }
            Path file = Path.of(run.substring(eq + 1));
            try {
                byLabel.put(run.substring(0, eq), Json.EXACT.readTree(file.toFile()));
            } catch (IOException e) {
                throw new UsageException("cannot read " + file + " (the JSON of a db run): " + e.getMessage());
            }
        }
        List<String> phases = new ArrayList<>();
        for (JsonNode d : byLabel.values()) {
            for (JsonNode r : d.path("results")) {
                String phase = r.path("phase").asText();
                if (!phases.contains(phase)) {
                    phases.add(phase);
                }
            }
        }
        List<String> series = new ArrayList<>(byLabel.keySet());
        series.add("RocksDB");
        List<Color> colors = new ArrayList<>();
        for (int i = 0; i < series.size(); i++) {
            colors.add(i == series.size() - 1 ? new Color(0xD62728) : COLORS[i % (COLORS.length - 1)]);
        }
        double[][] ops = new double[phases.size()][series.size()];
        for (int p = 0; p < phases.size(); p++) {
            int s = 0;
            for (JsonNode d : byLabel.values()) {
                ops[p][s++] = value(d, phases.get(p), "remixdb", "opsPerSec");
            }
            ops[p][s] = Double.NaN;
            for (JsonNode d : byLabel.values()) {
                double v = value(d, phases.get(p), "rocksdb", "opsPerSec");
                if (Double.isFinite(v)) {
                    ops[p][s] = v;
                    break;
                }
            }
        }
        List<String> labels = new ArrayList<>(byLabel.keySet());
        double[][] written = new double[1][labels.size()];
        double[][] space = new double[1][labels.size()];
        int i = 0;
        for (JsonNode d : byLabel.values()) {
            double bytes = 0;
            double sa = Double.NaN;
            for (JsonNode r : d.path("results")) {
                if (r.path("store").asText().equals("remixdb")) {
                    bytes += r.path("bytesWritten").asDouble(0);
                    sa = r.path("spaceAmplification").asDouble(Double.NaN);
                }
            }
            written[0][i] = bytes / (1 << 20);
            space[0][i] = sa;
            i++;
        }
        List<Color> runColors = colors.subList(0, labels.size());
        int width = Math.max(900, phases.size() * 60 * series.size() + 150);
        ChartSheet sheet = new ChartSheet(title, "RemixDB under each policy; RocksDB from the same runs", 1);
        sheet.add(Charts.bars(width, 360, "ops/s per phase (higher is better)", "ops/s", phases, series, colors, ops,
                true));
        sheet.add(Charts.bars(width, 300, "bytes written by RemixDB, whole run (MiB, lower is better)", "MiB",
                List.of("written"), labels, runColors, written, true));
        sheet.add(Charts.bars(width, 300, "space amplification after the last phase (lower is better)", "x",
                List.of("space"), labels, runColors, space, true));
        sheet.writePng(out);
        System.out.println("chart written to " + out);
        return 0;
    }

    /** The field of the phase's result for the store in a db run's JSON, NaN when the run has none. */
    static double value(JsonNode d, String phase, String store, String field) {
        for (JsonNode r : d.path("results")) {
            if (r.path("phase").asText().equals(phase) && r.path("store").asText().equals(store)) {
                return r.path(field).asDouble(Double.NaN);
            }
        }
        return Double.NaN;
    }
}
