package dev.remixdb.bench.micro;

import static dev.remixdb.bench.chart.ChartKit.GRID;
import static dev.remixdb.bench.chart.ChartKit.LABEL;
import static dev.remixdb.bench.chart.ChartKit.SMALL;
import static dev.remixdb.bench.chart.ChartKit.fmt;
import static dev.remixdb.bench.chart.ChartKit.frame;
import static dev.remixdb.bench.chart.ChartKit.legend;
import static dev.remixdb.bench.chart.ChartKit.niceStep;
import static dev.remixdb.bench.chart.ChartKit.noData;
import static dev.remixdb.bench.chart.ChartKit.stroke;
import static dev.remixdb.bench.chart.ChartKit.yAxis;

import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.chart.ChartKit;
import dev.remixdb.bench.data.Locality;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Draws a {@link MicroReport} as one PNG in the layout of the paper's figures: a row per locality
 * (Figures 11 and 12) with a panel per phase, ops/s against H for each index; a last row with the D
 * sweep (Figure 13) as bars and REMIX bytes/key against H. Linear axes from zero, like the paper.
 * Needs no display; the drawing pieces are {@link ChartKit}'s.
 */
public final class ChartWriter {
    private static final int PANEL_W = 600;
    private static final int PANEL_H = 390;
    private static final int TITLE_H = 64;
    private static final int LEGEND_W = 160;
    private static final List<String> INDEXES =
            List.of("remix-full", "remix-tagseek", "remix-partial", "remix-notags", "bloom", "merging");
    private static final List<Color> INDEX_COLORS = List.of(new Color(0x1F77B4), new Color(0x17BECF), new Color(0xFF7F0E),
            new Color(0x9467BD), new Color(0x2CA02C), new Color(0xD62728));
    private static final List<Color> D_COLORS = List.of(new Color(0x9ECAE1), new Color(0x3182BD), new Color(0x08519C));

    private ChartWriter() {}

    /** A line of points (x, y). */
    private record Series(String name, Color color, boolean dashed, List<double[]> points) {}

    /** Writes the chart to {@code file} as PNG, creating its folder. */
    public static void write(MicroReport r, Path file) throws IOException {
        ChartKit.writePng(render(r), file);
    }

    /** The chart as an image. */
    static BufferedImage render(MicroReport r) {
        MicroOptions o = r.options();
        BufferedImage img = ChartKit.canvas(3 * PANEL_W, TITLE_H + 3 * PANEL_H);
        Graphics2D g = ChartKit.graphics(img);
        try {
            g.setFont(ChartKit.HEADING);
            g.drawString("REMIX micro-benchmark (FAST'21 \u00a75.1): throughput, higher is better", 16, 26);
            g.setFont(SMALL);
            g.drawString(String.format(Locale.ROOT, "%s profile, %,d keys/run, 16 B keys, 100 B values, D=%d;  %s",
                    o.quick() ? "quick" : "full", o.keysPerRun(), o.segment(), MachineInfo.oneLine()), 16, 48);
            List<Locality> locs = o.localities();
            for (int row = 0; row < Math.min(2, locs.size()); row++) {
                Locality l = locs.get(row);
                int fig = l == Locality.WEAK ? 11 : 12;
                int col = 0;
                for (Phase p : Phase.values()) {
                    String title = String.format("Fig. %d%c  %s, %s locality", fig, (char) ('a' + p.ordinal()),
                            p.label(), l.label());
                    opsPanel(g, col++ * PANEL_W, TITLE_H + row * PANEL_H, title, r, p, l.label());
                }
            }
            int y = TITLE_H + 2 * PANEL_H;
            sweepPanel(g, 0, y, r, Phase.SEEK);
            sweepPanel(g, PANEL_W, y, r, Phase.SEEK_NEXT50);
            sizePanel(g, 2 * PANEL_W, y, r);
        } finally {
            g.dispose();
        }
        return img;
    }

    private static void opsPanel(Graphics2D g, int x, int y, String title, MicroReport r, Phase p, String loc) {
        List<Series> series = new ArrayList<>();
        double max = 0;
        for (int i = 0; i < INDEXES.size(); i++) {
            String index = INDEXES.get(i);
            List<double[]> pts = new ArrayList<>();
            for (Result x2 : r.results()) {
                if (x2.phase() == p && x2.locality().equals(loc) && x2.index().equals(index)
                        && (!x2.isRemix() || x2.segment() == r.options().segment())) {
                    pts.add(new double[] {x2.runs(), x2.opsPerSec()});
                    max = Math.max(max, x2.opsPerSec());
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
        linePanel(g, x, y, title, scale == 1e6 ? "Mops/s" : "Kops/s", series);
    }

    private static void sizePanel(Graphics2D g, int x, int y, MicroReport r) {
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
        linePanel(g, x, y, "REMIX bytes/key, D=" + r.options().segment() + ", " + loc + " locality",
                "bytes/key", series);
    }

    private static void linePanel(Graphics2D g, int x, int y, String title, String yLabel, List<Series> series) {
        int left = x + 72;
        int right = x + PANEL_W - LEGEND_W - 10;
        int top = y + 36;
        int bottom = y + PANEL_H - 52;
        frame(g, x, y, PANEL_W, PANEL_H, title);
        if (series.isEmpty()) {
            noData(g, left, right, top, bottom);
            return;
        }
        TreeSet<Double> xs = new TreeSet<>();
        double max = 0;
        for (Series s : series) {
            for (double[] p : s.points()) {
                xs.add(p[0]);
                max = Math.max(max, p[1]);
            }
        }
        double xMax = Math.max(1, xs.last());
        double step = niceStep(max / 5);
        double yMax = Math.max(step, Math.ceil(max / step) * step);
        yAxis(g, left, right, top, bottom, yMax, step, yLabel);
        g.setFont(SMALL);
        FontMetrics fm = g.getFontMetrics();
        for (double v : xs) {
            int px = left + (int) Math.round((right - left) * v / xMax);
            g.setColor(GRID);
            g.drawLine(px, top, px, bottom);
            g.setColor(Color.BLACK);
            g.drawLine(px, bottom, px, bottom + 4);
            String s = fmt(v);
            g.drawString(s, px - fm.stringWidth(s) / 2, bottom + 18);
        }
        g.setFont(LABEL);
        String xl = "runs (H)";
        g.drawString(xl, (left + right) / 2 - g.getFontMetrics().stringWidth(xl) / 2, bottom + 38);
        for (Series s : series) {
            g.setColor(s.color());
            g.setStroke(stroke(s.dashed()));
            int[] px = new int[s.points().size()];
            int[] py = new int[px.length];
            for (int i = 0; i < px.length; i++) {
                double[] p = s.points().get(i);
                px[i] = left + (int) Math.round((right - left) * p[0] / xMax);
                py[i] = bottom - (int) Math.round((bottom - top) * p[1] / yMax);
            }
            g.drawPolyline(px, py, px.length);
            g.setStroke(new BasicStroke(1f));
            for (int i = 0; i < px.length; i++) {
                g.fillOval(px[i] - 4, py[i] - 4, 8, 8);
            }
        }
        legend(g, right + 14, top, series.stream().map(Series::name).toList(),
                series.stream().map(Series::color).toList(), series.stream().map(Series::dashed).toList(), true);
    }

    private static void sweepPanel(Graphics2D g, int x, int y, MicroReport r, Phase p) {
        MicroOptions o = r.options();
        String title = String.format("Fig. 13  %s vs segment size D, H=%d", p.label(), o.sweepRuns());
        int left = x + 72;
        int right = x + PANEL_W - LEGEND_W - 10;
        int top = y + 36;
        int bottom = y + PANEL_H - 52;
        frame(g, x, y, PANEL_W, PANEL_H, title);
        List<Integer> ds = new ArrayList<>(new TreeSet<>(o.sweepSegments()));
        List<String> groups = new ArrayList<>();
        List<double[]> values = new ArrayList<>();
        double max = 0;
        for (Locality l : o.localities()) {
            for (String index : List.of("remix-full", "remix-partial")) {
                double[] v = new double[ds.size()];
                boolean any = false;
                for (Result x2 : r.results()) {
                    int di = ds.indexOf(x2.segment());
                    if (x2.phase() == p && x2.runs() == o.sweepRuns() && x2.index().equals(index)
                            && x2.locality().equals(l.label()) && di >= 0) {
                        v[di] = x2.opsPerSec();
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
            noData(g, left, right, top, bottom);
            return;
        }
        double scale = max >= 1e6 ? 1e6 : 1e3;
        double step = niceStep(max / scale / 5);
        double yMax = Math.max(step, Math.ceil(max / scale / step) * step);
        yAxis(g, left, right, top, bottom, yMax, step, scale == 1e6 ? "Mops/s" : "Kops/s");
        int gw = (right - left) / groups.size();
        int bw = Math.max(4, (gw - 16) / ds.size());
        g.setFont(SMALL);
        FontMetrics fm = g.getFontMetrics();
        for (int gi = 0; gi < groups.size(); gi++) {
            int gx = left + gi * gw + (gw - bw * ds.size()) / 2;
            for (int di = 0; di < ds.size(); di++) {
                double v = values.get(gi)[di] / scale;
                int h = (int) Math.round((bottom - top) * v / yMax);
                g.setColor(D_COLORS.get(Math.min(di, D_COLORS.size() - 1)));
                g.fillRect(gx + di * bw, bottom - h, bw - 2, h);
            }
            g.setColor(Color.BLACK);
            String s = groups.get(gi);
            g.drawString(s, left + gi * gw + gw / 2 - fm.stringWidth(s) / 2, bottom + 18);
        }
        List<String> names = ds.stream().map(d -> "D=" + d).toList();
        List<Color> colors = new ArrayList<>();
        for (int i = 0; i < ds.size(); i++) {
            colors.add(D_COLORS.get(Math.min(i, D_COLORS.size() - 1)));
        }
        legend(g, right + 14, top, names, colors, names.stream().map(n -> false).toList(), false);
    }
}
