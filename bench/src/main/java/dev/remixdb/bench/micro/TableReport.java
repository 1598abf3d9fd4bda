package dev.remixdb.bench.micro;

import dev.remixdb.bench.MachineInfo;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The human-readable report of a {@code remix-micro} run: three tables, in the paper's order. */
public final class TableReport {
    /** Index order within a group of rows: REMIX variants first, then the baselines. */
    private static final List<String> INDEX_ORDER =
            List.of("remix-full", "remix-tagseek", "remix-partial", "remix-notags", "bloom", "merging");

    private static final String ROW = "%-10s %-8s %4s %3s %-13s %13s %8s %10s %9s%n";

    private TableReport() {}

    /** Prints the report. */
    public static void print(MicroReport r, PrintStream out) {
        MicroOptions o = r.options();
        out.println("REMIX micro-benchmark (REMIX, FAST'21, section 5.1, Figures 11-13)");
        out.println("machine:  " + MachineInfo.oneLine());
        out.printf(Locale.ROOT, "settings: %s, %,d keys per run (16 B keys, 100 B values), warm-up %d ms,"
                        + " measure %d ms per row, seed %d%n",
                o.quick() ? "quick" : "full", o.keysPerRun(), o.warmupMillis(), o.measureMillis(), o.seed());
        out.println();
        out.printf("Figures 11 (weak locality) and 12 (strong locality): throughput vs number of runs H, D=%d%n",
                o.segment());
        header(out);
        boolean copied = false;
        List<Result> main = new ArrayList<>();
        for (Result x : r.results()) {
            if (!x.isRemix() || x.segment() == o.segment()) {
                main.add(x);
            }
        }
        main.sort(order(o));
        Result prev = null;
        for (Result x : main) {
            if (prev != null && (prev.phase() != x.phase() || !prev.locality().equals(x.locality())
                    || prev.runs() != x.runs())) {
                out.println();
            }
            row(out, r, x);
            copied |= x.copiedFrom() != null;
            prev = x;
        }
        if (copied) {
            out.println("* H=1 is a single run, where locality does not apply: measured once, shown for both.");
        }
        List<Result> sweep = new ArrayList<>();
        for (Result x : r.results()) {
            if (x.isRemix() && x.runs() == o.sweepRuns() && x.phase() != Phase.GET) {
                sweep.add(x);
            }
        }
        if (o.sweepSegments().size() > 1 && !sweep.isEmpty()) {
            sweep.sort(Comparator.comparing(Result::phase).thenComparing(Result::locality)
                    .thenComparing(Result::index).thenComparingInt(Result::segment));
            out.println();
            out.printf("Figure 13: segment size D at H=%d%n", o.sweepRuns());
            header(out);
            prev = null;
            for (Result x : sweep) {
                if (prev != null && (prev.phase() != x.phase() || !prev.locality().equals(x.locality())
                        || !prev.index().equals(x.index()))) {
                    out.println();
                }
                row(out, r, x);
                prev = x;
            }
        }
        sizes(r, out);
        out.println();
        out.printf(Locale.ROOT, "wall time %.1f s%n", r.wallSeconds());
    }

    private static void sizes(MicroReport r, PrintStream out) {
        if (r.sizes().isEmpty()) {
            return;
        }
        out.println();
        out.println("REMIX size vs Table 1 formula (L + 4H)/D + 1 (+1 with tags), L = average anchor bytes");
        out.printf("%-8s %4s %3s %-5s %11s %10s %8s %9s %8s %7s%n",
                "locality", "runs", "D", "tags", "keys", "segments", "anchor L", "bytes/key", "formula", "build s");
        for (RemixSize s : r.sizes()) {
            out.printf(Locale.ROOT, "%-8s %4d %3d %-5s %,11d %,10d %8.2f %9.3f %8.3f %7.2f%n",
                    s.locality(), s.runs(), s.segment(), s.tags() ? "yes" : "no", s.keys(), s.segments(),
                    s.anchorAverage(), s.bytesPerKey(), s.formulaBytesPerKey(), s.buildSeconds());
        }
    }

    private static void header(PrintStream out) {
        out.printf(ROW, "phase", "locality", "runs", "D", "index", "ops/s", "cmp/op", "vs merging", "vs bloom");
    }

    private static void row(PrintStream out, MicroReport r, Result x) {
        out.printf(ROW, x.phase().label(), x.locality() + (x.copiedFrom() != null ? "*" : ""), x.runs(),
                x.isRemix() ? Integer.toString(x.segment()) : "-", x.index(),
                String.format(Locale.ROOT, "%,.0f", x.opsPerSec()),
                Double.isNaN(x.keyComparisonsPerOp()) ? "-" : String.format(Locale.ROOT, "%.1f", x.keyComparisonsPerOp()),
                ratio(r.speedup(x, "merging")), ratio(r.speedup(x, "bloom")));
    }

    private static String ratio(double x) {
        return Double.isNaN(x) ? "" : String.format(Locale.ROOT, "%.2fx", x);
    }

    private static Comparator<Result> order(MicroOptions o) {
        return Comparator.comparing(Result::phase)
                .thenComparing(x -> o.localities().stream().map(l -> l.label()).toList().indexOf(x.locality()))
                .thenComparingInt(Result::runs)
                .thenComparingInt(x -> INDEX_ORDER.indexOf(x.index()));
    }
}
