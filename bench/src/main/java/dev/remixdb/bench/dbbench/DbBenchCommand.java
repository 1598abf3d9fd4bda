package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.Args;
import dev.remixdb.bench.Command;
import dev.remixdb.bench.UsageException;
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
import java.util.stream.Stream;

/**
 * {@code db}: a db_bench-style sequence of phases on RemixDB and, in the same run, on RocksDB
 * (rocksdbjni), each store in its own JVM ({@link ChildLauncher}), one after the other, with the same
 * keys, values and operations from fixed seeds. Prints a table of both stores per phase with the
 * ours/RocksDB ratios, and optionally JSON and PNG charts. Exits 1 when a child failed or any answer
 * was wrong, so a wrong result cannot pass for a fast one.
 */
public final class DbBenchCommand implements Command {

    @Override
    public String name() {
        return "db";
    }

    @Override
    public String summary() {
        return "db_bench-style phases on RemixDB and RocksDB, each in its own JVM, side by side";
    }

    @Override
    public String usage() {
        return """
                usage: db [options]

                Runs db_bench-style phases on RemixDB and then on RocksDB (rocksdbjni), each store in its own
                JVM on a fresh directory, with identical keys (%016x of 0..N-1), values and operation order from
                fixed seeds. Every read is checked. Default: the issue's "micro1" workload, 4M keys in shuffled
                order, 120-byte values: load, then readrandom 1M, seekrandom 1M, seeknext50 200k.

                phases (--phases, comma-separated, run in order; a name given twice is labeled name-2):
                  load (fillrandom)  empty store, all keys in shuffled order, then wait until idle
                  fillseq            empty store, all keys in ascending order, then wait until idle
                  overwrite          --writes puts of random loaded keys (--dist), then wait until idle
                  readrandom         --reads gets of random keys (--dist), each value checked
                  readmissing        --reads gets of absent keys (key + '!': between two present keys)
                  seekrandom         --seeks seeks to random keys, copying the entry found
                  seeknextN          --scans seeks, each copying N entries forward (seeknext10, 50, 100, ...)
                  seekprevN          --scans seekForPrev, each copying N entries backward
                  readwhilewriting   --reads gets measured while one writer overwrites at full speed
                  deletes            delete --deletes distinct random keys (default 10%), then wait until idle
                  micro1             = load,readrandom,seekrandom,seeknext50 (the default)
                  all                = load,readrandom,readmissing,seekrandom,seeknext10,seeknext50,
                                       seeknext100,overwrite,readwhilewriting,deletes,readrandom,fillseq
                Read phases (and readwhilewriting's readers) run on --threads threads.

                options:
                  --quick                 about a minute or two for both stores: 1M keys, 500k reads and seeks,
                                          100k scans (options given too override these)
                  --phases LIST           see above                         (default micro1)
                  --stores LIST           remixdb,rocksdb                   (default both, in that order)
                  --keys N                keys loaded; k/m suffixes         (default 4m)
                  --reads N               gets per read phase               (default 1m)
                  --seeks N               seeks of seekrandom               (default 1m)
                  --scans N               scans per seeknextN / seekprevN   (default 200k)
                  --writes N              puts of overwrite                 (default = --keys)
                  --deletes N             deletes of the deletes phase      (default --keys / 10)
                  --value-size N          value bytes, >= 16; the paper's are 40, 120, 400 (default 120)
                  --dist uniform|zipf     key choice of reads and overwrites (default uniform)
                  --zipf-theta X          Zipfian skew, in (0, 1)           (default 0.99)
                  --threads N             reader threads                    (default 1)
                  --seed N                seed of load order, keys and values (default 42)
                  --cache-mb N            block cache of both stores, MiB   (default 1024)
                  --remix-memtable-mb N   RemixDB memtable, MiB             (default 256)
                  --rocks-write-buffer-mb N  RocksDB write buffer, MiB (x3) (default 64)
                  --reuse-cursors         one cursor/iterator per thread and phase instead of one per seek
                                          (db_bench's default is one per seek)
                  --heap SIZE             -Xmx of each child JVM            (default 4g)
                  --jvm-opts "OPTS"       other child JVM options           (default "-XX:+UseParallelGC")
                  --jfr DIR               record a JFR profile of every phase: DIR/<store>-<phase>.jfr
                  --dir DIR               where the stores go (DIR/remixdb, DIR/rocksdb; must be empty)
                                          (default a temporary directory)
                  --keep                  keep the stores' directories at the end
                  --json FILE             also write the results as JSON
                  --chart DIR             also draw PNG charts into DIR
                  --no-progress           no progress bars
                  --help                  this text

                The table goes to stdout; progress, per-phase summaries and errors go to stderr. Exit code 0
                when both stores ran and every answer was right, 1 otherwise, 2 on a bad command line.
                See bench/README.md for every column.
                """;
    }

    @Override
    public int run(String[] argv) throws Exception {
        Args a = Args.parse(argv, DbOptions.VALUE_OPTIONS, DbOptions.FLAG_OPTIONS);
        if (a.flag("help")) {
            System.out.print(usage());
            return 0;
        }
        DbOptions o = DbOptions.parse(a);
        checkDir(o);
        PrintStream out = System.out;
        String command = "db" + (argv.length == 0 ? "" : " " + String.join(" ", argv));
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
        List<Map<String, Object>> records = new ArrayList<>();
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
            DbJson.write(o.json(), DbJson.render(command, date, wall, o, settings, children, results));
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
