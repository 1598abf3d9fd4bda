package dev.remixdb.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.remixdb.bench.chart.ChartSheet;
import dev.remixdb.bench.chart.Charts;
import dev.remixdb.bench.cli.CountConverter;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.json.Json;

import java.awt.Color;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.knowm.xchart.XYChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sweep}: the {@code db} benchmark at several key counts, and how each store's ops/s per
 * phase change with the size of the data (issue 15's scale sweep). Each key count is one ordinary
 * {@code db} run (both stores, each in its own JVM) writing {@code OUT/db-<keys>.json}; the sweep
 * then prints ops/s and the ratio per phase and key count, and charts them against the key count.
 */
@Command(name = "sweep",
        description = {"The db benchmark at several key counts: ops/s per phase against the key count, both stores."},
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
final class SweepCommand implements Callable<Integer> {
    @Option(names = "--keys", split = ",", defaultValue = "1m,4m,16m", converter = CountConverter.class,
            description = "Key counts, in order; k/m suffixes (default ${DEFAULT-VALUE}).")
    List<Long> keys;

    @Option(names = "--phases", defaultValue = "load,readrandom,seekrandom,seeknext50",
            description = "The db phases of every run (default ${DEFAULT-VALUE}).")
    String phases;

    @Option(names = "--out", required = true,
            description = "Directory for each run's JSON and text, the chart, and the stores while they run.")
    Path out;

    @Option(names = "--db-args", defaultValue = "",
            description = "More db options for every run, one string (e.g. \"--cache-mb 256 --memory-limit 3g\").")
    String dbArgs;

    @Option(names = "--cache-fraction", paramLabel = "N", defaultValue = "0",
            description = "Give each run block caches of 1/N of its data (keys x --entry-bytes), as --cache-mb, so "
                    + "that every size is equally out of cache. 0: leave the cache to --db-args. Default: ${DEFAULT-VALUE}.")
    long cacheFraction;

    @Option(names = "--entry-bytes", paramLabel = "N", defaultValue = "136",
            description = "Key + value bytes per entry for --cache-fraction (db's 16-byte keys and 120-byte values: "
                    + "${DEFAULT-VALUE}).")
    long entryBytes;

    @Mixin
    HelpOption help;

    /** The cache of a run of {@code keys} keys under {@code --cache-fraction}, in MiB (at least 1). */
    static long cacheMb(long keys, long entryBytes, long fraction) {
        return Math.max(1, Math.ceilDiv(keys * entryBytes / fraction, 1L << 20));
    }

    @Override
    public Integer call() throws Exception {
        if (cacheFraction < 0 || entryBytes < 1) {
            throw new UsageException("--cache-fraction must be >= 0 and --entry-bytes >= 1");
        }
        if (cacheFraction > 0 && dbArgs.contains("--cache-mb")) {
            throw new UsageException("--cache-fraction sets each run's --cache-mb: leave --cache-mb out of --db-args");
        }
        Files.createDirectories(out);
        Map<Long, JsonNode> runs = new LinkedHashMap<>();
        for (long n : keys) {
            Path json = out.resolve("db-" + n + ".json");
            List<String> args = new ArrayList<>(List.of("db", "--keys", Long.toString(n), "--phases", phases,
                    "--dir", out.resolve("stores-" + n).toString(), "--json", json.toString(), "--no-progress"));
            if (cacheFraction > 0) {
                args.addAll(List.of("--cache-mb", Long.toString(cacheMb(n, entryBytes, cacheFraction))));
            }
            for (String a : dbArgs.trim().split("\\s+")) {
                if (!a.isEmpty()) {
                    args.add(a);
                }
            }
            System.out.printf(Locale.ROOT, "%n==== sweep: %,d keys: bench/run %s%n", n, String.join(" ", args));
            int code = BenchMain.run(args.toArray(String[]::new));
            if (code != 0 || !Files.exists(json)) {
                System.out.printf(Locale.ROOT, "sweep: the run of %,d keys failed (exit code %d); stopping%n", n, code);
                return 1;
            }
            runs.put(n, Json.EXACT.readTree(json.toFile()));
        }
        List<String> phaseList = List.of(phases.split(","));
        System.out.printf(Locale.ROOT, "%nSweep: ops/s per phase (RemixDB / RocksDB = ratio)%n%-12s", "phase");
        for (long n : runs.keySet()) {
            System.out.printf(Locale.ROOT, " %28s", String.format(Locale.ROOT, "%,d keys", n));
        }
        System.out.println();
        for (String phase : phaseList) {
            System.out.printf(Locale.ROOT, "%-12s", phase);
            for (JsonNode d : runs.values()) {
                double ours = ops(d, phase, "remixdb");
                double rocks = ops(d, phase, "rocksdb");
                System.out.printf(Locale.ROOT, " %28s", String.format(Locale.ROOT, "%s / %s = %.2fx",
                        Charts.number(ours), Charts.number(rocks), ours / rocks));
            }
            System.out.println();
        }
        printCostGrowth(runs, phaseList);
        chart(runs, phaseList, out.resolve("sweep.png"));
        System.out.println("chart written to " + out.resolve("sweep.png"));
        return 0;
    }

    /**
     * How much the time of one operation grew from the smallest key count to the largest, per phase
     * and store (issue 15 asks that seeks and gets stay within 2x from 4M keys up).
     */
    private static void printCostGrowth(Map<Long, JsonNode> runs, List<String> phases) {
        if (runs.size() < 2) {
            return;
        }
        long first = runs.keySet().iterator().next();
        long last = first;
        for (long n : runs.keySet()) {
            last = n;
        }
        System.out.printf(Locale.ROOT, "%nTime per operation at %,d keys against %,d keys (1.00x: no growth)%n",
                last, first);
        for (String phase : phases) {
            System.out.printf(Locale.ROOT, "%-12s RemixDB %.2fx, RocksDB %.2fx%n", phase,
                    ops(runs.get(first), phase, "remixdb") / ops(runs.get(last), phase, "remixdb"),
                    ops(runs.get(first), phase, "rocksdb") / ops(runs.get(last), phase, "rocksdb"));
        }
    }

    private static double ops(JsonNode d, String phase, String store) {
        return PolicyChartCommand.value(d, phase, store, "opsPerSec");
    }

    /** One panel per phase: each store's ops/s against log10 of the key count; then the ratios. */
    private static void chart(Map<Long, JsonNode> runs, List<String> phases, Path file) throws java.io.IOException {
        ChartSheet sheet = new ChartSheet("RemixDB vs RocksDB against the key count (db benchmark)",
                "x: log10 of the key count; one db run per key count, both stores in it", 2);
        double[] x = runs.keySet().stream().mapToDouble(n -> Math.log10(n)).toArray();
        Color ours = new Color(0x1F77B4);
        Color rocks = new Color(0xD62728);
        XYChart ratios = Charts.lines(620, 330, "RemixDB / RocksDB per phase", "log10 keys", "x");
        Color[] phaseColors = {new Color(0x1F77B4), new Color(0x2CA02C), new Color(0x9467BD), new Color(0xFF7F0E),
                new Color(0x8C564B), new Color(0xD62728), new Color(0x17BECF)};
        int i = 0;
        for (String phase : phases) {
            double[] a = runs.values().stream().mapToDouble(d -> ops(d, phase, "remixdb")).toArray();
            double[] b = runs.values().stream().mapToDouble(d -> ops(d, phase, "rocksdb")).toArray();
            XYChart panel = Charts.lines(620, 330, phase + ": ops/s", "log10 keys", "ops/s");
            panel.getStyler().setXAxisMin(Math.floor(x[0]));
            Charts.line(panel, "RemixDB", ours, false, x, a);
            Charts.line(panel, "RocksDB", rocks, true, x, b);
            sheet.add(panel);
            double[] r = new double[a.length];
            for (int k = 0; k < a.length; k++) {
                r[k] = a[k] / b[k];
            }
            Charts.line(ratios, phase, phaseColors[i++ % phaseColors.length], false, x, r);
        }
        ratios.getStyler().setXAxisMin(Math.floor(x[0]));
        sheet.add(ratios);
        sheet.writePng(file);
    }
}
