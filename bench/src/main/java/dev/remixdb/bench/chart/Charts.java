package dev.remixdb.bench.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The one look of every benchmark chart, on XChart: white panels, light grid, axes from zero,
 * numbers as {@code 56.2k} or {@code 1.5M}, and the two kinds of panel the charts use, grouped bars
 * with their values above them and lines with markers. {@link ChartSheet} puts panels together.
 */
public final class Charts {
    private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 15);
    private static final Font AXIS_TITLE = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
    private static final Font SMALL = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    private static final Color GRID = new Color(0xE0E0E0);
    private static final Color BORDER = new Color(0xC8C8C8);
    /** Share of a group's width its bars fill at most (XChart's available space fill). */
    private static final double BAR_FILL = 0.8;
    /** Widest bar, in pixels: a panel of few bars keeps them slim. */
    private static final int MAX_BAR_WIDTH = 70;

    private Charts() {}

    /**
     * A panel of grouped bars: for each group (an x label) one bar per series, heights from
     * {@code values[group][series]} (NaN: no bar), a linear y axis from zero and a legend of the
     * series below. With {@code labels}, each bar's value is written above it. Without any value,
     * a {@link #noData} panel.
     */
    public static Chart<?, ?> bars(int width, int height, String title, String yTitle, List<String> groups,
                                     List<String> series, List<Color> colors, double[][] values, boolean labels) {
        double max = 0;
        for (double[] row : values) {
            for (double v : row) {
                if (Double.isFinite(v)) {
                    max = Math.max(max, v);
                }
            }
        }
        if (groups.isEmpty() || !(max > 0)) {
            return noData(width, height, title);
        }
        CategoryChart c = new CategoryChartBuilder().width(width).height(height).title(title).yAxisTitle(yTitle)
                .build();
        style(c.getStyler());
        // The plot area is the panel less about 100 pixels of axis, padding and border.
        double fill = Math.min(BAR_FILL, (double) MAX_BAR_WIDTH * series.size() * groups.size() / (width - 100));
        c.getStyler().setAvailableSpaceFill(fill);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        // Room above the tallest bar for its label.
        c.getStyler().setYAxisMax(max * (labels ? 1.12 : 1.04));
        for (int s = 0; s < series.size(); s++) {
            List<Double> ys = new ArrayList<>();
            for (int g = 0; g < groups.size(); g++) {
                double v = values[g][s];
                ys.add(Double.isFinite(v) ? v : null);
                if (labels && Double.isFinite(v)) {
                    // XChart lays a group's bars side by side, centred in the group's slot [g, g+1]
                    // of the category axis; a label goes above its bar's middle.
                    double x = g + (1 - fill) / 2 + (s + 0.5) * fill / series.size();
                    c.addAnnotation(new AnnotationText(number(v), x, v + max * 0.04, false));
                }
            }
            CategorySeries cs = c.addSeries(series.get(s), groups, ys);
            cs.setFillColor(colors.get(s));
        }
        return c;
    }

    /** A panel for lines ({@link #line}) of y against x, both axes from zero, the legend on the right. */
    public static XYChart lines(int width, int height, String title, String xTitle, String yTitle) {
        XYChart c = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        style(c.getStyler());
        c.getStyler().setXAxisMin(0.0);
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        c.getStyler().setPlotGridVerticalLinesVisible(true);
        c.getStyler().setxAxisTickLabelsFormattingFunction(Charts::tick);
        return c;
    }

    /** A line through points (xs[i], ys[i]), solid or dashed, with a round marker at each point. */
    public static void line(XYChart chart, String name, Color color, boolean dashed, double[] xs, double[] ys) {
        XYSeries s = chart.addSeries(name, xs, ys);
        s.setLineColor(color);
        s.setMarkerColor(color);
        s.setMarker(SeriesMarkers.CIRCLE);
        s.setLineStyle(dashed ? SeriesLines.DASH_DASH : SeriesLines.SOLID);
    }

    /** A panel with its title and "not measured in this run" in the middle, for data that is absent. */
    public static XYChart noData(int width, int height, String title) {
        XYChart c = new XYChartBuilder().width(width).height(height).title(title).build();
        style(c.getStyler());
        c.getStyler().setAxisTicksVisible(false);
        c.getStyler().setPlotGridLinesVisible(false);
        c.getStyler().setLegendVisible(false);
        c.addAnnotation(new AnnotationText("not measured in this run", width / 2.0, height / 2.0, true));
        return c;
    }

    /**
     * A number for a label or a tick: 3 significant digits with k (from 10,000) and M suffixes,
     * whole from 100 up, no trailing zeros: {@code 56.2k}, {@code 1.5M}, {@code 518}, {@code 2.5}.
     */
    public static String number(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return digits(v / 1e6) + "M";
        }
        if (a >= 1e4) {
            return digits(v / 1e3) + "k";
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return digits(v);
    }

    /** An axis tick: as {@link #number}, with k from 1000 on, so that 5000 and 10k do not stand side by side. */
    static String tick(double v) {
        double a = Math.abs(v);
        return a >= 1e3 && a < 1e6 ? digits(v / 1e3) + "k" : number(v);
    }

    private static String digits(double v) {
        if (v == 0 || !Double.isFinite(v)) {
            return v == 0 ? "0" : String.valueOf(v);
        }
        return new BigDecimal(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }

    private static void style(AxesChartStyler s) {
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotBackgroundColor(Color.WHITE);
        s.setPlotBorderColor(BORDER);
        s.setLegendBorderColor(BORDER);
        s.setPlotGridLinesColor(GRID);
        s.setPlotGridLinesStroke(new BasicStroke(1f));
        s.setPlotGridVerticalLinesVisible(false);
        s.setChartTitleFont(TITLE);
        s.setChartTitleBoxVisible(false);
        s.setAxisTitleFont(AXIS_TITLE);
        s.setAxisTickLabelsFont(SMALL);
        s.setLegendFont(SMALL);
        s.setAnnotationTextFont(SMALL);
        s.setAnnotationTextFontColor(Color.BLACK);
        s.setMarkerSize(8);
        s.setYAxisMin(0.0);
        s.setyAxisTickLabelsFormattingFunction(Charts::tick);
    }
}
