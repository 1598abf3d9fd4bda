package dev.remixdb.bench.dbbench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The readable table of a db run: a row per phase and store, with the ours/RocksDB ratios on the
 * remixdb row, then the goals with whether each is met. Columns are explained in
 * bench/README.md.
 */
final class DbReport {
    private static final String ROW = "%-18s %-8s %11s %11s %9s %8s %8s %9s %10s %6s %8s %9s %6s %9s %9s %6s%n";

    private DbReport() {}

    static void print(Results r, PrintStream out) {
        out.println();
        out.printf(Locale.ROOT, ROW, "phase", "store", "ops/s", "to idle", "ours/rdb", "p50 us", "p99 us",
                "p99.9 us", "written MiB", "WA", "WA o/r", "disk MiB", "SA", "RSS MiB", "offheap MiB", "errors");
        for (String phase : r.phases()) {
            boolean first = true;
            for (String store : Store.NAMES) {
                PhaseResult x = r.find(phase, store);
                if (x == null) {
                    continue;
                }
                String label = first ? phase : "";
                first = false;
                boolean ours = store.equals("remixdb");
                out.printf(Locale.ROOT, ROW, label, store,
                        Units.count(x.opsPerSec()),
                        x.opsPerSecWithSettle() != null ? Units.count(x.opsPerSecWithSettle()) : "-",
                        ours ? Units.ratio(r.ratio(phase, Results.OPS_PER_SEC)) : "",
                        Units.micros(x.p50Micros()),
                        Units.micros(x.p99Micros()),
                        Units.micros(x.p999Micros()),
                        Units.mib1(x.bytesWritten()),
                        Units.fixed2(Results.num(x, Results.WRITE_AMPLIFICATION)),
                        ours && x.writeAmplification() != null
                                ? Units.ratio(r.ratio(phase, Results.WRITE_AMPLIFICATION)) : "",
                        Units.mib1(x.diskBytes()),
                        Units.fixed2(Results.num(x, Results.SPACE_AMPLIFICATION)),
                        Units.mib1(x.peakRssBytes()),
                        Units.mib1(x.offHeapBytes()),
                        Units.count(x.errors()));
            }
        }
        printGoals(r, out);
        long errors = r.errors();
        out.println();
        if (errors > 0) {
            out.printf(Locale.ROOT, "VERIFICATION FAILED: %,d wrong answers (see ERROR lines above); these numbers are "
                    + "not valid.%n", errors);
        } else {
            out.println("Every answer was checked: 0 wrong answers.");
        }
    }

    private static void printGoals(Results r, PrintStream out) {
        List<Results.Goal> present = Results.GOALS.stream()
                .filter(g -> r.find(g.phase(), "remixdb") != null && r.find(g.phase(), "rocksdb") != null).toList();
        if (present.isEmpty()) {
            return;
        }
        out.println();
        out.println("Goals of issue 5 (ours/RocksDB, same run):");
        for (Results.Goal g : present) {
            double ratio = r.ratio(g.phase(), g.metric());
            out.printf(Locale.ROOT, "  %-28s %8s   target %s %.1fx   %s%n", g.what(), Units.ratio(ratio),
                    g.atLeast() ? ">=" : "<=", g.target(), g.met(ratio) ? "met" : "NOT met");
        }
    }
}
