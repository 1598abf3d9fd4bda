package dev.remixdb.bench;

import dev.remixdb.bench.chart.ChartSheet;
import dev.remixdb.bench.chart.Charts;
import dev.remixdb.bench.cli.Check;
import dev.remixdb.bench.cli.CountConverter;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.compaction.CompactionPolicies;
import dev.remixdb.compaction.CompactionPolicy;
import dev.remixdb.compaction.GarneringPolicy;
import dev.remixdb.compaction.PolicySimulator;
import dev.remixdb.compaction.PolicySimulator.Report;
import dev.remixdb.compaction.PolicySimulator.Sample;
import dev.remixdb.compaction.PolicySimulator.Workload;
import dev.remixdb.compaction.RangeReducePolicy;

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
 * {@code policies}: replays workloads through each compaction policy in {@link PolicySimulator}
 * (no I/O) and prints, per workload and policy, write amplification, runs per partition, space
 * amplification and compaction debt; then the scale sweep (runs per partition against the number
 * of keys) and Garnering's level count against plain leveling's. Charts with {@code --chart DIR}.
 */
@Command(name = "policies",
        description = {"Compaction policies compared in the simulator (no I/O).",
                "Write amplification, runs per partition, space amplification and compaction debt, over time",
                "and against the key count.",
                "",
                "Workloads: load (fresh random keys), zipf (Zipfian overwrites of --keys keys), deletes",
                "(uniform writes of --keys keys, 30%% of them deletes, one 50-entry scan per write), scanmix (uniform",
                "overwrites of --keys keys, nine 50-entry scans per write). Entries are 136 bytes (16 B keys, 120 B",
                "values), memtables and tables 64 MiB, as in 'db'.",
                ""},
        optionListHeading = "Options:%n",
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class PoliciesCommand implements Callable<Integer> {
    private static final int ENTRY = 136;
    private static final long MIB = 1 << 20;

    @Option(names = "--quick", description = "Small profile: 2M operations, 400k keys, no scale sweep beyond 100M.")
    boolean quick;

    @Option(names = "--ops", paramLabel = "N", converter = CountConverter.class,
            description = "Writes per workload; k/m suffixes. Default: 20m (--quick: 2m).")
    Long ops;

    @Option(names = "--keys", paramLabel = "N", converter = CountConverter.class,
            description = "Distinct keys of the zipf and deletes workloads. Default: 4m (--quick: 400k).")
    Long keys;

    @Option(names = "--workloads", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "load,zipf,deletes,scanmix", description = "Workloads, in this order. Default: ${DEFAULT-VALUE}.")
    List<String> workloads;

    @Option(names = "--policies", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "remixdb,garnering,leveling,rangereduce,garnering+rangereduce",
            description = {"Policies: remixdb, garnering, leveling (Garnering with c = 1), rangereduce (over remixdb),",
                    "garnering+rangereduce. Default: ${DEFAULT-VALUE}."})
    List<String> policies;

    @Option(names = "--scale", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            converter = CountConverter.class,
            description = "Key counts of the scale sweep (a random load each). Default: 1m,10m,100m,1g (--quick: 1m,10m,100m).")
    List<Long> scale;

    @Option(names = "--chart", paramLabel = "DIR", description = "Write policies-*.png charts into DIR.")
    Path chart;

    @Option(names = "--seed", paramLabel = "N", converter = CountConverter.class, defaultValue = "1",
            description = "Seed of the key sequences. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Mixin
    HelpOption help;

    /** Width of the policy column: the longest name given, at least 21. */
    private int nameWidth = 21;

    @Override
    public Integer call() throws Exception {
        long operations = Check.range("--ops", ops != null ? ops : quick ? 2_000_000 : 20_000_000, 1, 1_000_000_000);
        long distinct = Check.range("--keys", keys != null ? keys : quick ? 400_000 : 4_000_000, 1, 1_000_000_000);
        List<String> names = Check.words(policies);
        Map<String, CompactionPolicy> byName = new LinkedHashMap<>();
        for (String n : names) {
            byName.put(n, policy(n));
            nameWidth = Math.max(nameWidth, n.length());
        }
        List<Long> sweep = scale != null ? scale
                : quick ? List.of(1_000_000L, 10_000_000L, 100_000_000L)
                : List.of(1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L);

        System.out.println("Compaction policies in the simulator (no I/O)");
        System.out.println("machine:  " + MachineInfo.oneLine());
        System.out.printf(Locale.ROOT, "settings: %,d writes per workload, %,d distinct keys, %d B entries, 64 MiB "
                + "memtables and tables, abort share 0.15, 5 REMIX bytes per key%n", operations, distinct, ENTRY);
        for (Map.Entry<String, CompactionPolicy> e : byName.entrySet()) {
            System.out.println("  " + e.getKey() + ": " + e.getValue());
        }
        Map<String, Map<String, Report>> results = new LinkedHashMap<>();
        for (String workload : Check.words(workloads)) {
            Workload w = workload(workload, operations, distinct);
            System.out.printf(Locale.ROOT, "%n%s%n", describe(workload, w));
            System.out.printf(Locale.ROOT, "%-" + nameWidth + "s %6s %8s %7s %7s %5s %6s %7s %12s %12s  %s%n", "policy", "WA", "WA+REMIX",
                    "tables", "sorted", "max", "parts", "space", "debt (end)", "debt (avg)", "abort/minor/major/split/idle");
            Map<String, Report> row = new LinkedHashMap<>();
            for (Map.Entry<String, CompactionPolicy> e : byName.entrySet()) {
                Report r = PolicySimulator.run(e.getValue(), w);
                row.put(e.getKey(), r);
                Sample end = r.last();
                System.out.printf(Locale.ROOT, "%-" + nameWidth + "s %6.2f %8.2f %7.2f %7.2f %5d %6d %7.3f %,12d %,12.0f  %d/%d/%d/%d/%d%n",
                        e.getKey(), r.writeAmplification(), r.writeAmplificationWithRemix(), r.avgRuns(),
                        r.avgSortedRuns(), r.maxRuns(), r.partitions(), end.spaceAmplification(), end.debtEntries(),
                        r.avgDebtEntries(), r.aborts(), r.minors(), r.majors(), r.splits(), r.idleMerges());
            }
            results.put(workload, row);
        }
        System.out.println("""

                tables: tables (REMIX runs) per partition, averaged over flushes; sorted: of those, the ones that
                overlap (a seek or scan merges these; one merge's output tables do not overlap); max: most tables
                in a partition; space: table bytes per live byte at the end; debt: stale versions + tombstones;
                idle: partitions merged with no new data at a flush (RangeReduce); RangeReduce's extra merges
                stay within its budget of optional bytes (10% of the other table bytes by default).""");

        Map<String, List<double[]>> scaled = scaleSweep(byName, sweep);
        levelCurve();
        if (chart != null) {
            Files.createDirectories(chart);
            writeCharts(results, scaled, sweep);
        }
        return 0;
    }

    /** A built-in policy ({@link CompactionPolicies#named}), or {@code leveling}: Garnering with c = 1. */
    private static CompactionPolicy policy(String name) {
        if (name.equals("leveling")) {
            return GarneringPolicy.builder().shrink(1).build();
        }
        try {
            return CompactionPolicies.named(name);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--policies: " + e.getMessage() + " or leveling");
        }
    }

    private static Workload workload(String name, long operations, long distinct) {
        Workload base = new Workload(operations, 0, ENTRY, 64 * MIB, 64 * MIB, 0.15, 5, 1);
        return switch (name) {
            case "load" -> base;
            case "zipf" -> base.withDistinctKeys(distinct).withZipf(0.99);
            case "deletes" -> base.withDistinctKeys(distinct).withDeletes(0.3).withScans(1);
            case "scanmix" -> base.withDistinctKeys(distinct).withScans(9);
            default -> throw new UsageException("--workloads: unknown workload '" + name
                    + "'; workloads: load, zipf, deletes, scanmix");
        };
    }

    private static String describe(String name, Workload w) {
        return switch (name) {
            case "load" -> String.format(Locale.ROOT, "load: %,d inserts of fresh random keys", w.operations());
            case "zipf" -> String.format(Locale.ROOT, "zipf: %,d writes of %,d keys, Zipfian (theta 0.99, scrambled)",
                    w.operations(), w.distinctKeys());
            case "deletes" -> String.format(Locale.ROOT, "deletes: %,d writes of %,d keys, uniform, 30%% deletes, "
                    + "a 50-entry scan per write", w.operations(), w.distinctKeys());
            default -> String.format(Locale.ROOT, "scanmix: %,d overwrites of %,d keys, uniform, nine 50-entry scans "
                    + "per write", w.operations(), w.distinctKeys());
        };
    }

    /**
     * Runs per partition against the key count, for a random load. The structure (tables,
     * partitions, merges) depends on bytes, not on entries, so a large key count is simulated with
     * at most 2M entries, each standing for {@code keys / 2M} keys of 136 bytes.
     */
    private Map<String, List<double[]>> scaleSweep(Map<String, CompactionPolicy> policies, List<Long> sweep) {
        System.out.printf(Locale.ROOT, "%nScale: a random load of N keys of %d B (entries scaled above 2M keys)%n", ENTRY);
        System.out.printf(Locale.ROOT, "%-" + nameWidth + "s %14s %7s %7s %6s %6s%n", "policy", "keys", "tables", "sorted", "parts", "WA");
        Map<String, List<double[]>> out = new LinkedHashMap<>();
        for (Map.Entry<String, CompactionPolicy> e : policies.entrySet()) {
            if (e.getValue() instanceof RangeReducePolicy) {
                continue; // a load has no scans: the same as its base policy
            }
            List<double[]> points = new ArrayList<>();
            for (long n : sweep) {
                long entries = Math.min(n, 2_000_000);
                long entryBytes = Math.max(ENTRY, Math.round((double) ENTRY * n / entries));
                Workload w = new Workload(entries, 0, (int) Math.min(Integer.MAX_VALUE, entryBytes), 64 * MIB,
                        64 * MIB, 0.15, 5.0 * n / entries, seed);
                Report r = PolicySimulator.run(e.getValue(), w);
                Sample end = r.last();
                points.add(new double[] {n, end.avgRuns(), end.avgSortedRuns(), end.partitions(), r.writeAmplification()});
                System.out.printf(Locale.ROOT, "%-" + nameWidth + "s %,14d %7.2f %7.2f %6d %6.2f%n", e.getKey(), n, end.avgRuns(),
                        end.avgSortedRuns(), end.partitions(), r.writeAmplification());
            }
            out.put(e.getKey(), points);
        }
        System.out.println("(at the end of each load; partitions split as they fill, so runs per partition stay bounded)");
        return out;
    }

    /** Levels that Garnering's capacity curve needs for N / B, against plain leveling (c = 1), T = 2. */
    private static void levelCurve() {
        GarneringPolicy garnering = GarneringPolicy.defaults();
        GarneringPolicy leveling = GarneringPolicy.builder().shrink(1).build();
        System.out.printf(Locale.ROOT, "%nLevels of one LSM-tree of N / B buffers, T = %.0f (Autumn equations 5 and 6)%n",
                garnering.sizeRatio());
        System.out.printf(Locale.ROOT, "%12s %10s %10s %14s%n", "N / B", "leveling", "garnering", "sqrt fit");
        double[] fit = sqrtFit(garnering);
        for (int e = 2; e <= 12; e++) {
            double n = Math.pow(10, e);
            int g = garnering.levels(n);
            System.out.printf(Locale.ROOT, "%12s %10d %10d %14.2f%n", "1e" + e, leveling.levels(n), g,
                    fit[0] * Math.sqrt(Math.log(n)) + fit[1]);
        }
        System.out.printf(Locale.ROOT, "fit: levels = %.3f * sqrt(ln(N/B)) %+.3f (least squares over 1e2..1e12)%n",
                fit[0], fit[1]);
    }

    /** Least-squares a, b of levels = a * sqrt(ln x) + b over x = 10^2..10^12. */
    private static double[] sqrtFit(GarneringPolicy policy) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int m = 0;
        for (int e = 2; e <= 12; e++) {
            double n = Math.pow(10, e);
            double x = Math.sqrt(Math.log(n));
            double y = policy.levels(n);
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
            m++;
        }
        double a = (m * sxy - sx * sy) / (m * sxx - sx * sx);
        return new double[] {a, (sy - a * sx) / m};
    }

    private static final Color[] COLORS = {new Color(0x1F77B4), new Color(0xD62728), new Color(0x2CA02C),
            new Color(0x9467BD), new Color(0xFF7F0E)};

    private void writeCharts(Map<String, Map<String, Report>> results, Map<String, List<double[]>> scaled,
                             List<Long> sweep) throws Exception {
        int w = 620;
        int h = 330;
        for (Map.Entry<String, Map<String, Report>> wl : results.entrySet()) {
            ChartSheet sheet = new ChartSheet("Compaction policies, workload '" + wl.getKey() + "' (simulated)",
                    "x: writes so far", 2);
            XYChart runs = Charts.lines(w, h, "Sorted runs per partition (read cost)", "writes", "runs");
            XYChart wa = Charts.lines(w, h, "Write amplification so far", "writes", "x");
            XYChart space = Charts.lines(w, h, "Space amplification", "writes", "x");
            XYChart debt = Charts.lines(w, h, "Compaction debt (stale + tombstones)", "writes", "entries");
            int i = 0;
            for (Map.Entry<String, Report> e : wl.getValue().entrySet()) {
                List<Sample> s = e.getValue().samples();
                double[] x = s.stream().mapToDouble(Sample::operations).toArray();
                Color c = COLORS[i++ % COLORS.length];
                Charts.line(runs, e.getKey(), c, false, x, s.stream().mapToDouble(Sample::avgSortedRuns).toArray());
                Charts.line(wa, e.getKey(), c, false, x, s.stream().mapToDouble(Sample::writeAmplification).toArray());
                Charts.line(space, e.getKey(), c, false, x, s.stream().mapToDouble(Sample::spaceAmplification).toArray());
                Charts.line(debt, e.getKey(), c, false, x, s.stream().mapToDouble(Sample::debtEntries).toArray());
            }
            sheet.add(runs).add(wa).add(space).add(debt);
            Path file = chart.resolve("policies-" + wl.getKey() + ".png");
            sheet.writePng(file);
            System.out.println("chart: " + file);
        }
        ChartSheet sheet = new ChartSheet("Runs per partition against the key count (simulated random loads)",
                "x: log10 of the key count", 2);
        XYChart sorted = Charts.lines(w, h, "Sorted runs per partition", "log10 keys", "runs");
        XYChart tables = Charts.lines(w, h, "Tables per partition", "log10 keys", "tables");
        int i = 0;
        for (Map.Entry<String, List<double[]>> e : scaled.entrySet()) {
            double[] x = e.getValue().stream().mapToDouble(p -> Math.log10(p[0])).toArray();
            Color c = COLORS[i++ % COLORS.length];
            Charts.line(sorted, e.getKey(), c, false, x, e.getValue().stream().mapToDouble(p -> p[2]).toArray());
            Charts.line(tables, e.getKey(), c, false, x, e.getValue().stream().mapToDouble(p -> p[1]).toArray());
        }
        XYChart levels = Charts.lines(w, h, "Levels of one LSM-tree, T = 2", "log10 (N / B)", "levels");
        GarneringPolicy garnering = GarneringPolicy.defaults();
        GarneringPolicy leveling = GarneringPolicy.builder().shrink(1).build();
        double[] fit = sqrtFit(garnering);
        double[] xs = new double[11];
        double[] lv = new double[11];
        double[] gv = new double[11];
        double[] fv = new double[11];
        for (int e = 2; e <= 12; e++) {
            double n = Math.pow(10, e);
            xs[e - 2] = e;
            lv[e - 2] = leveling.levels(n);
            gv[e - 2] = garnering.levels(n);
            fv[e - 2] = fit[0] * Math.sqrt(Math.log(n)) + fit[1];
        }
        Charts.line(levels, "leveling (c = 1)", COLORS[2], false, xs, lv);
        Charts.line(levels, "garnering (c = 0.8)", COLORS[1], false, xs, gv);
        Charts.line(levels, String.format(Locale.ROOT, "%.2f sqrt(ln x) %+.2f", fit[0], fit[1]), COLORS[1], true, xs, fv);
        sheet.add(sorted).add(tables).add(levels);
        Path file = chart.resolve("policies-scale.png");
        sheet.writePng(file);
        System.out.println("chart: " + file);
    }
}
