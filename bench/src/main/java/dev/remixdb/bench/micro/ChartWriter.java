package dev.remixdb.bench.micro;

import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.chart.ChartSheet;
import dev.remixdb.bench.chart.Charts;
import dev.remixdb.bench.data.Locality;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * Draws a {@link MicroReport} as one PNG in the layout of the paper's figures: a row per locality
 * (Figures 11 and 12) with a panel per phase, ops/s against H for each index; a last row with the D
 * sweep (Figure 13) as bars and REMIX bytes/key against H. Linear axes from zero, like the paper.
 */
public final class ChartWriter {
    private static final int PANEL_W = 600;
    private static final int PANEL_H = 390;
    private static final List<String> INDEXES =
            List.of("remix-full", "remix-tagseek", "remix-partial", "remix-notags", "bloom", "merging");
    private static final List<Color> INDEX_COLORS = List.of(new Color(0x1F77B4), new Color(0x17BECF),
            new Color(0xFF7F0E), new Color(0x9467BD), new Color(0x2CA02C), new Color(0xD62728));
    private static final List<Color> D_COLORS = List.of(new Color(0x9ECAE1), new Color(0x3182BD), new Color(0x08519C));

    private ChartWriter() {}

    /** A line of points (x, y). */
    private record Series(String name, Color color, boolean dashed, List<double[]> points) {}

    /** Writes the chart to {@code file} as PNG, creating its folder. */
    public static void write(MicroReport r, Path file) throws IOException {
        sheet(r).writePng(file);
    }

    /** The chart's panels and heading. */
    static ChartSheet sheet(MicroReport r) {
        MicroOptions o = r.options();
        ChartSheet sheet = new ChartSheet("REMIX micro-benchmark (FAST'21 \u00a75.1): throughput, higher is better",
                String.format(Locale.ROOT, "%s profile, %,d keys/run, 16 B keys, 100 B values, D=%d;  %s",
                        o.quick() ? "quick" : "full", o.keysPerRun(), o.segment(), MachineInfo.oneLine()), 3);
        List<Locality> locs = o.localities();
        for (int row = 0; row < Math.min(2, locs.size()); row++) {
            Locality l = locs.get(row);
            int fig = l == Locality.WEAK ? 11 : 12;
            for (Phase p : Phase.values()) {
                String title = String.format("Fig. %d%c  %s, %s locality", fig, (char) ('a' + p.ordinal()), p.label(),
                        l.label());
                sheet.add(opsPanel(title, r, p, l.label()));
            }
        }
        sheet.add(sweepPanel(r, Phase.SEEK));
        sheet.add(sweepPanel(r, Phase.SEEK_NEXT50));
        sheet.add(sizePanel(r));
        return sheet;
    }

    private static Chart<?, ?> opsPanel(String title, MicroReport r, Phase p, String loc) {
        List<Series> series = new ArrayList<>();
        double max = 0;
        for (int i = 0; i < INDEXES.size(); i++) {
            String index = INDEXES.get(i);
            List<double[]> pts = new ArrayList<>();
            for (Result x : r.results()) {
                if (x.phase() == p && x.locality().equals(loc) && x.index().equals(index)
                        && (!x.isRemix() || x.segment() == r.options().segment())) {
                    pts.add(new double[] {x.runs(), x.opsPerSec()});
                    max = Math.max(max, x.opsPerSec());
                }
            }
            if (!pts.isEmpty()) {
                pts.sort((a, b) -> Double.compare(a[0], b[0]));
                series.add(new Series(index, INDEX_COLORS.get(i), index.equals("remix-partial"), pts));
            }
        }
        double scale = max >= 1e6 ? 1e6 : 1e3;
        for (Series s : series) {
            for (double[] pt : s.points()) {
                pt[1] /= scale;
            }
        }
        return linePanel(title, scale == 1e6 ? "Mops/s" : "Kops/s", series);
    }

    private static Chart<?, ?> sizePanel(MicroReport r) {
        List<Series> series = new ArrayList<>();
        String loc = r.options().localities().getFirst().label();
        for (boolean tags : new boolean[] {true, false}) {
            List<double[]> measured = new ArrayList<>();
            List<double[]> formula = new ArrayList<>();
            for (RemixSize s : r.sizes()) {
                if (s.tags() == tags && s.segment() == r.options().segment() && s.locality().equals(loc)) {
                    measured.add(new double[] {s.runs(), s.bytesPerKey()});
                    formula.add(new double[] {s.runs(), s.formulaBytesPerKey()});
                }
            }
            if (!measured.isEmpty()) {
                Color c = tags ? INDEX_COLORS.get(0) : INDEX_COLORS.get(2);
                String t = tags ? "tags" : "no tags";
                series.add(new Series(t + ", measured", c, false, measured));
                series.add(new Series(t + ", formula", c, true, formula));
            }
        }
        return linePanel("REMIX bytes/key, D=" + r.options().segment() + ", " + loc + " locality", "bytes/key", series);
    }

    private static Chart<?, ?> linePanel(String title, String yTitle, List<Series> series) {
        if (series.isEmpty()) {
            return Charts.noData(PANEL_W, PANEL_H, title);
        }
        XYChart c = Charts.lines(PANEL_W, PANEL_H, title, "runs (H)", yTitle);
        for (Series s : series) {
            double[] xs = s.points().stream().mapToDouble(pt -> pt[0]).toArray();
            double[] ys = s.points().stream().mapToDouble(pt -> pt[1]).toArray();
            Charts.line(c, s.name(), s.color(), s.dashed(), xs, ys);
        }
        return c;
    }

    /** Figure 13: a group of bars (one per D) for each locality and in-segment search. */
    private static Chart<?, ?> sweepPanel(MicroReport r, Phase p) {
        MicroOptions o = r.options();
        String title = String.format("Fig. 13  %s vs segment size D, H=%d", p.label(), o.sweepRuns());
        List<Integer> ds = new ArrayList<>(new TreeSet<>(o.sweepSegments()));
        List<String> groups = new ArrayList<>();
        List<double[]> values = new ArrayList<>();
        double max = 0;
        for (Locality l : o.localities()) {
            for (String index : List.of("remix-full", "remix-partial")) {
                double[] v = new double[ds.size()];
                java.util.Arrays.fill(v, Double.NaN);
                boolean any = false;
                for (Result x : r.results()) {
                    int di = ds.indexOf(x.segment());
                    if (x.phase() == p && x.runs() == o.sweepRuns() && x.index().equals(index)
                            && x.locality().equals(l.label()) && di >= 0) {
                        v[di] = x.opsPerSec();
                        max = Math.max(max, v[di]);
                        any = true;
                    }
                }
                if (any) {
                    groups.add(l.label() + " " + index.substring("remix-".length()));
                    values.add(v);
                }
            }
        }
        if (groups.isEmpty() || ds.size() < 2) {
            return Charts.noData(PANEL_W, PANEL_H, title);
        }
        double scale = max >= 1e6 ? 1e6 : 1e3;
        double[][] scaled = new double[groups.size()][ds.size()];
        for (int g = 0; g < groups.size(); g++) {
            for (int d = 0; d < ds.size(); d++) {
                scaled[g][d] = values.get(g)[d] / scale;
            }
        }
        List<Color> colors = new ArrayList<>();
        for (int i = 0; i < ds.size(); i++) {
            colors.add(D_COLORS.get(Math.min(i, D_COLORS.size() - 1)));
        }
        return Charts.bars(PANEL_W, PANEL_H, title, scale == 1e6 ? "Mops/s" : "Kops/s", groups,
                ds.stream().map(d -> "D=" + d).toList(), colors, scaled, false);
    }
}
