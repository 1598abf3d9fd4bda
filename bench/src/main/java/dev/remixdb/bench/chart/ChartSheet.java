package dev.remixdb.bench.chart;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * One PNG holding several XChart panels in a grid under a heading (a title and a line saying what
 * was run and where), since a chart of the benchmarks is a figure of several panels, like the
 * paper's. Each panel is drawn by XChart at its own size; panels fill the grid row by row.
 * Headless: no display needed.
 */
public final class ChartSheet {
    private static final int HEAD_H = 60;
    private static final Font HEADING = new Font(Font.SANS_SERIF, Font.BOLD, 18);
    private static final Font SUBHEADING = new Font(Font.SANS_SERIF, Font.PLAIN, 12);

    private final String title;
    private final String subtitle;
    private final int columns;
    private final List<Chart<?, ?>> panels = new ArrayList<>();

    /** A sheet of {@code columns} panels per row under {@code title} and {@code subtitle}. */
    public ChartSheet(String title, String subtitle, int columns) {
        this.title = title;
        this.subtitle = subtitle;
        this.columns = Math.max(1, columns);
    }

    /** Adds the next panel. */
    public ChartSheet add(Chart<?, ?> panel) {
        panels.add(panel);
        return this;
    }

    /** The sheet as an image: each column as wide as its widest panel, each row as tall as its tallest. */
    public BufferedImage render() {
        System.setProperty("java.awt.headless", "true");
        int rows = Math.max(1, (panels.size() + columns - 1) / columns);
        int[] colW = new int[columns];
        int[] rowH = new int[rows];
        for (int i = 0; i < panels.size(); i++) {
            colW[i % columns] = Math.max(colW[i % columns], panels.get(i).getWidth());
            rowH[i / columns] = Math.max(rowH[i / columns], panels.get(i).getHeight());
        }
        int width = Math.max(400, sum(colW, columns));
        BufferedImage img = new BufferedImage(width, HEAD_H + sum(rowH, rows), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, img.getWidth(), img.getHeight());
            g.setColor(Color.BLACK);
            g.setFont(HEADING);
            g.drawString(title, 16, 26);
            g.setFont(SUBHEADING);
            g.drawString(subtitle, 16, 48);
            for (int i = 0; i < panels.size(); i++) {
                Chart<?, ?> p = panels.get(i);
                Graphics2D pg = (Graphics2D) g.create(sum(colW, i % columns), HEAD_H + sum(rowH, i / columns),
                        p.getWidth(), p.getHeight());
                try {
                    p.paint(pg, p.getWidth(), p.getHeight());
                } finally {
                    pg.dispose();
                }
            }
        } finally {
            g.dispose();
        }
        return img;
    }

    /** Writes the sheet to {@code file} as PNG, creating its folder. */
    public void writePng(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        if (!ImageIO.write(render(), "png", file.toFile())) {
            throw new IOException("no PNG writer available for " + file);
        }
    }

    private static int sum(int[] xs, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += xs[i];
        }
        return s;
    }
}
