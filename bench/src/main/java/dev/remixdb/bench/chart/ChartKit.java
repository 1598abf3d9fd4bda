package dev.remixdb.bench.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The drawing pieces every PNG chart of the bench module shares: canvas, panel frame, y axis with
 * round steps, legend, PNG output. The charts themselves ({@code micro.ChartWriter},
 * {@code dbbench.DbCharts}) only lay out their panels. Headless: no display needed.
 */
public final class ChartKit {
    public static final Font HEADING = new Font(Font.SANS_SERIF, Font.BOLD, 18);
    public static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 15);
    public static final Font LABEL = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    public static final Font SMALL = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    public static final Color GRID = new Color(0xE0E0E0);

    private ChartKit() {}

    /** A white canvas with anti-aliasing on; dispose the graphics when done. */
    public static BufferedImage canvas(int width, int height) {
        System.setProperty("java.awt.headless", "true");
        return new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    }

    /** The canvas's graphics, cleared to white, with anti-aliasing on. */
    public static Graphics2D graphics(BufferedImage img) {
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        g.setColor(Color.BLACK);
        return g;
    }

    /** Writes {@code img} to {@code file} as PNG, creating its folder. */
    public static void writePng(BufferedImage img, Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer available for " + file);
        }
    }

    /** A light border around a panel of {@code w x h} at (x, y), and its title. */
    public static void frame(Graphics2D g, int x, int y, int w, int h, String title) {
        g.setColor(new Color(0xC8C8C8));
        g.drawRect(x + 4, y + 4, w - 8, h - 8);
        g.setColor(Color.BLACK);
        g.setFont(TITLE);
        g.drawString(title, x + 16, y + 24);
    }

    /** "not measured in this run", centered in the plot area. */
    public static void noData(Graphics2D g, int left, int right, int top, int bottom) {
        g.setColor(Color.GRAY);
        g.setFont(LABEL);
        g.drawString("not measured in this run", (left + right) / 2 - 70, (top + bottom) / 2);
    }

    /** Horizontal grid lines every {@code step} up to {@code yMax}, tick labels, axes and a rotated label. */
    public static void yAxis(Graphics2D g, int left, int right, int top, int bottom, double yMax, double step,
                             String label) {
        g.setFont(SMALL);
        FontMetrics fm = g.getFontMetrics();
        for (double v = 0; v <= yMax * 1.0001; v += step) {
            int py = bottom - (int) Math.round((bottom - top) * v / yMax);
            g.setColor(GRID);
            g.drawLine(left, py, right, py);
            g.setColor(Color.BLACK);
            String s = fmt(v);
            g.drawString(s, left - 8 - fm.stringWidth(s), py + 4);
        }
        g.setColor(Color.BLACK);
        g.drawLine(left, top, left, bottom);
        g.drawLine(left, bottom, right, bottom);
        g.setFont(LABEL);
        AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2);
        g.drawString(label, -(top + bottom) / 2 - g.getFontMetrics().stringWidth(label) / 2, left - 52);
        g.setTransform(saved);
    }

    /** A legend at (x, y): a line (or a filled box) of each color and its name. */
    public static void legend(Graphics2D g, int x, int y, List<String> names, List<Color> colors,
                              List<Boolean> dashed, boolean lines) {
        g.setFont(SMALL);
        for (int i = 0; i < names.size(); i++) {
            int ly = y + 8 + i * 20;
            g.setColor(colors.get(i));
            if (lines) {
                g.setStroke(stroke(dashed.get(i)));
                g.drawLine(x, ly, x + 24, ly);
                g.setStroke(new BasicStroke(1f));
                g.fillOval(x + 8, ly - 4, 8, 8);
            } else {
                g.fillRect(x + 4, ly - 6, 16, 12);
            }
            g.setColor(Color.BLACK);
            g.drawString(names.get(i), x + 30, ly + 4);
        }
    }

    /** A 2-pixel line, solid or dashed. */
    public static Stroke stroke(boolean dashed) {
        return dashed
                ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {7f, 5f}, 0f)
                : new BasicStroke(2f);
    }

    /** A round step of about {@code raw}: 1, 2, 2.5 or 5 times a power of ten. */
    public static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 2.5, 5}) {
            if (raw <= m * p) {
                return m * p;
            }
        }
        return 10 * p;
    }

    /** A y-axis top for data up to {@code max}: a whole number of {@link #niceStep} steps (about 5). */
    public static double niceMax(double max, double step) {
        return Math.max(step, Math.ceil(max / step) * step);
    }

    /** A tick label: whole numbers without decimals, others with up to two. */
    public static String fmt(double v) {
        if (Math.abs(v - Math.rint(v)) < 1e-9) {
            return Long.toString(Math.round(v));
        }
        return String.format(Locale.ROOT, "%.2f", v).replaceAll("0+$", "");
    }

    /**
     * A panel of grouped bars: for each group (an x label) one bar per series, heights from
     * {@code values[group][series]} (NaN: no bar), each bar labeled with its value, a linear y axis
     * from zero, and a legend of the series on top.
     */
    public static void bars(Graphics2D g, int x, int y, int w, int h, String title, String yLabel,
                            List<String> groups, List<String> series, List<Color> colors, double[][] values) {
        frame(g, x, y, w, h, title);
        int left = x + 72;
        int right = x + w - 16;
        int top = y + 58;
        int bottom = y + h - 40;
        double max = 0;
        for (double[] row : values) {
            for (double v : row) {
                if (Double.isFinite(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        if (groups.isEmpty() || !(max > 0)) {
            noData(g, left, right, top, bottom);
            return;
        }
        double step = niceStep(max / 5);
        double yMax = niceMax(max * 1.08, step);
        yAxis(g, left, right, top, bottom, yMax, step, yLabel);
        int gw = (right - left) / groups.size();
        int bw = Math.max(6, Math.min(60, (gw - 12) / series.size()));
        g.setFont(SMALL);
        FontMetrics fm = g.getFontMetrics();
        for (int gi = 0; gi < groups.size(); gi++) {
            int gx = left + gi * gw + (gw - bw * series.size()) / 2;
            for (int si = 0; si < series.size(); si++) {
                double v = values[gi][si];
                if (!Double.isFinite(v)) {
                    continue;
                }
                int bh = (int) Math.round((bottom - top) * v / yMax);
                g.setColor(colors.get(si));
                g.fillRect(gx + si * bw, bottom - bh, bw - 2, bh);
                g.setColor(Color.BLACK);
                String s = shortNumber(v);
                g.drawString(s, gx + si * bw + (bw - 2) / 2 - fm.stringWidth(s) / 2, bottom - bh - 3);
            }
            g.setColor(Color.BLACK);
            String s = groups.get(gi);
            g.drawString(s, left + gi * gw + gw / 2 - fm.stringWidth(s) / 2, bottom + 16);
        }
        int lx = left + 8;
        for (int si = 0; si < series.size(); si++) {
            g.setColor(colors.get(si));
            g.fillRect(lx, y + 34, 14, 12);
            g.setColor(Color.BLACK);
            g.drawString(series.get(si), lx + 18, y + 45);
            lx += 28 + fm.stringWidth(series.get(si));
        }
    }

    /** A bar label: 3 significant digits with k/M suffixes. */
    public static String shortNumber(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return String.format(Locale.ROOT, "%.3gM", v / 1e6);
        }
        if (a >= 1e4) {
            return String.format(Locale.ROOT, "%.3gk", v / 1e3);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
