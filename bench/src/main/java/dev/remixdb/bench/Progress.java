package dev.remixdb.bench;

import java.io.PrintStream;

/**
 * Progress of a long benchmark on stderr. On a terminal: one bar redrawn in place. Otherwise (a log
 * file, CI): one line per 10% step, so the log does not fill with redraws.
 */
public final class Progress {
    private static final int WIDTH = 30;

    private final PrintStream out;
    private final long total;
    private final boolean terminal;
    private final long start = System.nanoTime();
    private long done;
    private int lastDecile = -1;
    private boolean barShown;

    public Progress(PrintStream out, long total, boolean terminal) {
        this.out = out;
        this.total = Math.max(1, total);
        this.terminal = terminal;
    }

    /** Progress on {@code System.err}, drawn as a bar when the console is a terminal. */
    public static Progress onStderr(long total) {
        java.io.Console c = System.console();
        return new Progress(System.err, total, c != null && c.isTerminal());
    }

    /** A progress that prints nothing (tests). */
    public static Progress silent() {
        return new Progress(new PrintStream(PrintStream.nullOutputStream()), 1, false);
    }

    /** Says that the unit {@code label} starts now. */
    public synchronized void begin(String label) {
        int pct = (int) (100 * done / total);
        if (terminal) {
            int fill = (int) (WIDTH * done / total);
            String bar = "=".repeat(fill) + (fill < WIDTH ? ">" : "") + " ".repeat(Math.max(0, WIDTH - fill - 1));
            String line = String.format("\r[%s] %3d%% %s %s", bar, pct, elapsed(), label);
            out.print(line.length() > 110 ? line.substring(0, 110) : line + "\033[K");
            out.flush();
            barShown = true;
        } else if (pct / 10 > lastDecile) {
            lastDecile = pct / 10;
            out.printf("[%3d%%] %s %s%n", pct, elapsed(), label);
        }
    }

    /** Says that the current unit is done. */
    public synchronized void end() {
        done = Math.min(total, done + 1);
    }

    /** Prints a whole line (clearing the bar first on a terminal). */
    public synchronized void log(String line) {
        if (terminal && barShown) {
            out.print("\r\033[K");
            barShown = false;
        }
        out.println(line);
    }

    /** Clears the bar. */
    public synchronized void finish() {
        if (terminal && barShown) {
            out.print("\r\033[K");
            out.flush();
            barShown = false;
        } else if (!terminal) {
            out.printf("[100%%] %s done%n", elapsed());
        }
    }

    private String elapsed() {
        long s = (System.nanoTime() - start) / 1_000_000_000L;
        return String.format("%d:%02d", s / 60, s % 60);
    }
}
