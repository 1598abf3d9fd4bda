package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.chart.ChartSheet;
import dev.remixdb.bench.chart.Charts;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The PNG charts of a db run ({@code --chart DIR}), bars of both stores side by side:
 * {@code db-throughput.png} (ops/s, a panel per phase with its own scale and the ours/RocksDB
 * ratio in the title), {@code db-latency.png} (p50/p99/p99.9 per phase) and {@code db-io.png}
 * (write amplification of the write phases, space amplification and peak RSS after each phase).
 */
final class DbCharts {
    private static final int PANEL_W = 400;
    private static final int PANEL_H = 300;
    private static final int COLS = 4;
    private static final List<Color> STORE_COLORS = List.of(new Color(0x1F77B4), new Color(0xFF7F0E));

    private DbCharts() {}

    /** Writes the three charts into {@code dir}; returns their paths. */
    static List<Path> write(Path dir, Results r, DbOptions o) throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(write(dir.resolve("db-throughput.png"), throughput(r, o)));
        out.add(write(dir.resolve("db-latency.png"), latency(r, o)));
        out.add(write(dir.resolve("db-io.png"), io(r, o)));
        return out;
    }

    private static Path write(Path file, ChartSheet sheet) throws IOException {
        sheet.writePng(file);
        return file;
    }

    private static List<String> stores(Results r) {
        List<String> out = new ArrayList<>();
        for (String s : Store.NAMES) {
            if (r.records().stream().anyMatch(x -> s.equals(x.store()))) {
                out.add(s);
            }
        }
        return out;
    }

    private static List<Color> colors(List<String> stores) {
        return stores.stream().map(s -> STORE_COLORS.get(Store.NAMES.indexOf(s))).toList();
    }

    private static ChartSheet throughput(Results r, DbOptions o) {
        List<String> phases = r.phases();
        List<String> stores = stores(r);
        ChartSheet sheet = new ChartSheet("RemixDB vs RocksDB: throughput per phase (ops/s, higher is better)",
                subtitle(o), Math.max(1, Math.min(COLS, phases.size())));
        for (String p : phases) {
            double ratio = r.ratio(p, Results.OPS_PER_SEC);
            String title = p + (Double.isFinite(ratio) ? "  (ours/rocksdb " + Units.ratio(ratio) + ")" : "");
            sheet.add(Charts.bars(PANEL_W, PANEL_H, title, "ops/s", List.of(p), stores, colors(stores),
                    table(r, List.of(p), stores, Results.OPS_PER_SEC, 1), true));
        }
        return sheet;
    }

    private static ChartSheet latency(Results r, DbOptions o) {
        List<String> phases = r.phases();
        List<String> stores = stores(r);
        List<Results.Metric> metrics = List.of(Results.P50_MICROS, Results.P99_MICROS, Results.P999_MICROS);
        ChartSheet sheet = new ChartSheet("RemixDB vs RocksDB: latency per operation (microseconds, lower is better)",
                subtitle(o), Math.max(1, Math.min(COLS, phases.size())));
        for (String p : phases) {
            double[][] v = new double[metrics.size()][stores.size()];
            for (int m = 0; m < metrics.size(); m++) {
                for (int s = 0; s < stores.size(); s++) {
                    v[m][s] = Results.num(r.find(p, stores.get(s)), metrics.get(m));
                }
            }
            sheet.add(Charts.bars(PANEL_W, PANEL_H, p, "us", List.of("p50", "p99", "p99.9"), stores, colors(stores), v,
                    true));
        }
        return sheet;
    }

    private static ChartSheet io(Results r, DbOptions o) {
        List<String> phases = r.phases();
        List<String> stores = stores(r);
        List<String> writePhases = phases.stream()
                .filter(p -> r.records().stream().anyMatch(x -> p.equals(x.phase()) && x.writeAmplification() != null))
                .toList();
        int w = Math.max(2 * PANEL_W, Math.max(writePhases.size(), phases.size()) * 90 + 120);
        ChartSheet sheet = new ChartSheet("RemixDB vs RocksDB: disk and memory (lower is better)", subtitle(o), 1);
        String waTitle = "write amplification: bytes written to disk / user bytes";
        sheet.add(writePhases.isEmpty() ? Charts.noData(w, PANEL_H, waTitle)
                : Charts.bars(w, PANEL_H, waTitle, "x", writePhases, stores, colors(stores),
                        table(r, writePhases, stores, Results.WRITE_AMPLIFICATION, 1), true));
        sheet.add(Charts.bars(w, PANEL_H, "space amplification after the phase: directory size / live key+value bytes",
                "x", phases, stores, colors(stores), table(r, phases, stores, Results.SPACE_AMPLIFICATION, 1), true));
        sheet.add(Charts.bars(w, PANEL_H, "peak resident memory of the process so far (MiB)", "MiB", phases, stores,
                colors(stores), table(r, phases, stores, Results.PEAK_RSS_BYTES, 1048576.0), true));
        return sheet;
    }

    private static double[][] table(Results r, List<String> phases, List<String> stores, Results.Metric metric,
                                     double div) {
        double[][] v = new double[phases.size()][stores.size()];
        for (int p = 0; p < phases.size(); p++) {
            for (int s = 0; s < stores.size(); s++) {
                v[p][s] = Results.num(r.find(phases.get(p), stores.get(s)), metric) / div;
            }
        }
        return v;
    }

    private static String subtitle(DbOptions o) {
        return String.format(Locale.ROOT, "%,d keys (16 B), %d B values, %s keys, %d thread(s), each store in its own "
                + "JVM (-Xmx%s);  %s", o.keys(), o.valueSize(), o.dist().label(), o.threads(), o.heap(),
                Units.machine());
    }
}
