package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.chart.ChartKit;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
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
    private static final int HEAD_H = 60;
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

    private static Path write(Path file, BufferedImage img) throws IOException {
        ChartKit.writePng(img, file);
        return file;
    }

    private static List<String> stores(Results r) {
        List<String> out = new ArrayList<>();
        for (String s : Store.NAMES) {
            if (r.records().stream().anyMatch(x -> s.equals(x.get("store")))) {
                out.add(s);
            }
        }
        return out;
    }

    private static List<Color> colors(List<String> stores) {
        return stores.stream().map(s -> STORE_COLORS.get(Store.NAMES.indexOf(s))).toList();
    }

    private static BufferedImage throughput(Results r, DbOptions o) {
        List<String> phases = r.phases();
        List<String> stores = stores(r);
        int cols = Math.max(1, Math.min(COLS, phases.size()));
        int rows = Math.max(1, (phases.size() + cols - 1) / cols);
        BufferedImage img = ChartKit.canvas(cols * PANEL_W, HEAD_H + rows * PANEL_H);
        Graphics2D g = ChartKit.graphics(img);
        try {
            heading(g, "RemixDB vs RocksDB: throughput per phase (ops/s, higher is better)", o);
            for (int i = 0; i < phases.size(); i++) {
                String p = phases.get(i);
                double[][] v = new double[1][stores.size()];
                for (int s = 0; s < stores.size(); s++) {
                    v[0][s] = Results.num(r.find(p, stores.get(s)), "opsPerSec");
                }
                double ratio = r.ratio(p, "opsPerSec");
                String title = p + (Double.isFinite(ratio) ? "  (ours/rocksdb " + Units.ratio(ratio) + ")" : "");
                ChartKit.bars(g, (i % cols) * PANEL_W, HEAD_H + (i / cols) * PANEL_H, PANEL_W, PANEL_H, title, "ops/s",
                        List.of(""), stores, colors(stores), v);
            }
        } finally {
            g.dispose();
        }
        return img;
    }

    private static BufferedImage latency(Results r, DbOptions o) {
        List<String> phases = r.phases();
        List<String> stores = stores(r);
        int cols = Math.max(1, Math.min(COLS, phases.size()));
        int rows = Math.max(1, (phases.size() + cols - 1) / cols);
        BufferedImage img = ChartKit.canvas(cols * PANEL_W, HEAD_H + rows * PANEL_H);
        Graphics2D g = ChartKit.graphics(img);
        List<String> fields = List.of("p50Micros", "p99Micros", "p999Micros");
        try {
            heading(g, "RemixDB vs RocksDB: latency per operation (microseconds, lower is better)", o);
            for (int i = 0; i < phases.size(); i++) {
                String p = phases.get(i);
                double[][] v = new double[fields.size()][stores.size()];
                for (int f = 0; f < fields.size(); f++) {
                    for (int s = 0; s < stores.size(); s++) {
                        v[f][s] = Results.num(r.find(p, stores.get(s)), fields.get(f));
                    }
                }
                ChartKit.bars(g, (i % cols) * PANEL_W, HEAD_H + (i / cols) * PANEL_H, PANEL_W, PANEL_H, p, "us",
                        List.of("p50", "p99", "p99.9"), stores, colors(stores), v);
            }
        } finally {
            g.dispose();
        }
        return img;
    }

    private static BufferedImage io(Results r, DbOptions o) {
        List<String> phases = r.phases();
        List<String> stores = stores(r);
        List<String> writePhases = phases.stream()
                .filter(p -> r.records().stream().anyMatch(x -> p.equals(x.get("phase")) && x.get("writeAmplification") != null))
                .toList();
        int w = Math.max(2 * PANEL_W, Math.max(writePhases.size(), phases.size()) * 90 + 120);
        BufferedImage img = ChartKit.canvas(w, HEAD_H + 3 * PANEL_H);
        Graphics2D g = ChartKit.graphics(img);
        try {
            heading(g, "RemixDB vs RocksDB: disk and memory (lower is better)", o);
            ChartKit.bars(g, 0, HEAD_H, w, PANEL_H, "write amplification: bytes written to disk / user bytes", "x",
                    writePhases, stores, colors(stores), table(r, writePhases, stores, "writeAmplification", 1));
            ChartKit.bars(g, 0, HEAD_H + PANEL_H, w, PANEL_H,
                    "space amplification after the phase: directory size / live key+value bytes", "x", phases, stores,
                    colors(stores), table(r, phases, stores, "spaceAmplification", 1));
            ChartKit.bars(g, 0, HEAD_H + 2 * PANEL_H, w, PANEL_H, "peak resident memory of the process so far (MiB)",
                    "MiB", phases, stores, colors(stores), table(r, phases, stores, "peakRssBytes", 1048576.0));
        } finally {
            g.dispose();
        }
        return img;
    }

    private static double[][] table(Results r, List<String> phases, List<String> stores, String field, double div) {
        double[][] v = new double[phases.size()][stores.size()];
        for (int p = 0; p < phases.size(); p++) {
            for (int s = 0; s < stores.size(); s++) {
                v[p][s] = Results.num(r.find(phases.get(p), stores.get(s)), field) / div;
            }
        }
        return v;
    }

    private static void heading(Graphics2D g, String title, DbOptions o) {
        g.setColor(Color.BLACK);
        g.setFont(ChartKit.HEADING);
        g.drawString(title, 16, 26);
        g.setFont(ChartKit.SMALL);
        g.drawString(String.format(Locale.ROOT, "%,d keys (16 B), %d B values, %s keys, %d thread(s), each store in "
                        + "its own JVM (-Xmx%s);  %s", o.keys(), o.valueSize(), o.dist().label(), o.threads(), o.heap(),
                Units.machine()), 16, 48);
    }
}
