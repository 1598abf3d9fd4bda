package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.UsageException;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.cli.Invocation;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code db}: a db_bench-style sequence of phases on RemixDB and, in the same run, on RocksDB
 * (rocksdbjni), each store in its own JVM ({@link ChildLauncher}), one after the other, with the same
 * keys, values and operations from fixed seeds. Prints a table of both stores per phase with the
 * ours/RocksDB ratios, and optionally JSON and PNG charts. Exits 1 when a child failed or any answer
 * was wrong, so a wrong result cannot pass for a fast one.
 */
@Command(name = "db",
        description = {"db_bench-style phases on RemixDB and RocksDB, each in its own JVM, side by side.",
                "",
                "Runs db_bench-style phases on RemixDB and then on RocksDB (rocksdbjni), each store in its own JVM on",
                "a fresh directory, with identical keys (%%016x of 0..N-1), values and operation order from fixed",
                "seeds. Every read is checked. Default: the issue's \"micro1\" workload, 4M keys in shuffled order,",
                "120-byte values: load, then readrandom 1M, seekrandom 1M, seeknext50 200k.",
                ""},
        optionListHeading = "Options:%n",
        footer = {"",
                "Phases (--phases, comma-separated, run in order; a name given twice is labeled name-2):",
                "  load (fillrandom)  empty store, all keys in shuffled order, then wait until idle",
                "  fillseq            empty store, all keys in ascending order, then wait until idle",
                "  overwrite          --writes puts of random loaded keys (--dist), then wait until idle",
                "  overwritebatchN    as overwrite, N puts per atomic write batch (e.g. overwritebatch100)",
                "  readrandom         --reads gets of random keys (--dist), each value checked",
                "  readmissing        --reads gets of absent keys (key + '!': between two present keys)",
                "  seekrandom         --seeks seeks to random keys, copying the entry found",
                "  seeknextN          --scans seeks, each copying N entries forward (seeknext10, 50, 100, ...)",
                "  seekprevN          --scans seekForPrev, each copying N entries backward",
                "  readwhilewriting   --reads gets measured while one writer overwrites at full speed",
                "  deletes            delete --deletes distinct random keys (default 10%%), then wait until idle",
                "  micro1             = load,readrandom,seekrandom,seeknext50 (the default)",
                "  all                = load,readrandom,readmissing,seekrandom,seeknext10,seeknext50,seeknext100,",
                "                       seekprev50,overwrite,overwritebatch100,readwhilewriting,deletes,readrandom,fillseq",
                "Read phases (and readwhilewriting's readers) run on --threads threads.",
                "",
                "The table goes to stdout; progress, per-phase summaries and errors go to stderr. Exit code 0 when",
                "both stores ran and every answer was right, 1 otherwise, 2 on a bad command line.",
                "See bench/README.md for every column."},
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class DbBenchCommand implements Callable<Integer> {
    @Mixin
    DbArgs args;

    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        DbOptions o = args.options();
        List<String> argv = Invocation.args(spec);
        checkDir(o);
        PrintStream out = System.out;
        String command = "db" + (argv.isEmpty() ? "" : " " + String.join(" ", argv));
        String date = Instant.now().toString();
        long t0 = System.nanoTime();

        Map<String, List<Store.Setting>> settings = new LinkedHashMap<>();
        for (String s : o.stores()) {
            settings.put(s, s.equals("remixdb") ? RemixStore.settings(o) : RocksStore.settings(o));
        }
        printHeader(out, o, command, settings);

        Path base = o.dir() != null ? o.dir() : Files.createTempDirectory("remixdb-db-bench");
        String progress = !o.progress() ? "none" : terminal() ? "bar" : "lines";
        List<ChildLauncher.ChildRun> children = new ArrayList<>();
        List<PhaseResult> records = new ArrayList<>();
        try {
            for (String store : o.stores()) {
                Path dir = base.resolve(store);
                System.err.println("== " + store + ": child JVM on " + dir);
                ChildLauncher.ChildRun run = ChildLauncher.run(store, o, dir, progress, out);
                children.add(run);
                records.addAll(run.results());
                System.err.printf(Locale.ROOT, "== %s: %d of %d phases in %.1f s, exit code %d%n", store,
                        run.results().size(), o.phases().size(), run.seconds(), run.exitCode());
                if (!o.keep()) {
                    DirSize.delete(dir);
                }
            }
        } finally {
            if (!o.keep() && o.dir() == null) {
                DirSize.delete(base);
            } else if (o.keep()) {
                System.err.println("stores kept in " + base);
            }
        }
        Results results = new Results(records);
        DbReport.print(results, out);
        boolean childFailed = false;
        for (ChildLauncher.ChildRun c : children) {
            if (c.exitCode() != 0 || c.results().size() != o.phases().size()) {
                childFailed = true;
                out.printf(Locale.ROOT, "%s FAILED: exit code %d after %d of %d phases (see its errors above)%n",
                        c.store(), c.exitCode(), c.results().size(), o.phases().size());
            }
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        out.printf(Locale.ROOT, "%nwall time %.1f s%n", wall);
        if (o.json() != null) {
            DbJson.write(o.json(), DbJson.report(command, date, wall, o, settings, children, results));
            out.println("JSON written to " + o.json());
        }
        if (o.chart() != null) {
            for (Path p : DbCharts.write(o.chart(), results, o)) {
                out.println("chart written to " + p);
            }
        }
        return childFailed || results.errors() > 0 ? 1 : 0;
    }

    /** A given --dir must not hold a store already: the run would measure on top of old data. */
    private static void checkDir(DbOptions o) throws IOException {
        if (o.dir() == null) {
            return;
        }
        if (Files.exists(o.dir()) && !Files.isDirectory(o.dir())) {
            throw new UsageException("--dir " + o.dir() + " is not a directory");
        }
        for (String s : o.stores()) {
            Path d = o.dir().resolve(s);
            if (Files.isDirectory(d)) {
                try (Stream<Path> files = Files.list(d)) {
                    if (files.findAny().isPresent()) {
                        throw new UsageException("--dir: " + d + " is not empty; remove it or choose another --dir");
                    }
                }
            }
        }
    }

    private static boolean terminal() {
        java.io.Console c = System.console();
        return c != null && c.isTerminal();
    }

    private static void printHeader(PrintStream out, DbOptions o, String command, Map<String, List<Store.Setting>> settings) {
        out.println("RemixDB vs RocksDB, db_bench style: each store in its own JVM, same keys, values and operations");
        out.println("command:  " + command);
        out.println("machine:  " + Units.machine());
        out.printf(Locale.ROOT, "workload: %,d keys (16 B, %%016x of 0..N-1), %d B values, %s keys%s, seed %d, %d reader "
                        + "thread(s), %s%n", o.keys(), o.valueSize(), o.dist().label(),
                o.dist() == KeyChooser.Dist.ZIPF ? " (theta " + o.zipfTheta() + ", scrambled)" : "", o.seed(),
                o.threads(), o.reuseCursors() ? "one cursor per thread and phase" : "one cursor per seek");
        out.println("phases:   " + String.join(", ", o.phases().stream().map(PhaseSpec::label).toList()));
        out.printf(Locale.ROOT, "counts:   reads %,d, seeks %,d, scans %,d, writes %,d, deletes %,d%n", o.reads(),
                o.seeks(), o.scans(), o.writes(), o.deletes());
        out.println("child JVM: -Xmx" + o.heap() + " " + String.join(" ", o.jvmOpts())
                + " --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED");
        for (Map.Entry<String, List<Store.Setting>> e : settings.entrySet()) {
            out.println(e.getKey() + " options (all the benchmark sets; * = not the store's default):");
            for (Store.Setting s : e.getValue()) {
                out.println("  " + (s.changed() ? "* " : "  ") + s);
            }
        }
        out.println();
        out.flush();
    }
}
