package dev.remixdb.bench.rebuild;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.UsageException;
import dev.remixdb.bench.cli.Check;
import dev.remixdb.bench.cli.CountConverter;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.json.Json;
import dev.remixdb.bench.json.OneLine;
import dev.remixdb.bench.data.DatasetGenerator;
import dev.remixdb.bench.data.KeyFormat;
import dev.remixdb.remix.MemoryRun;
import dev.remixdb.remix.RebuildStats;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixConfig;
import dev.remixdb.remix.RemixCursor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code remix-rebuild}: what a new run costs the REMIX of a partition, rebuilt from the old REMIX
 * (REMIX §4.3, C RemixDB's compressed-keys rebuild) against built from scratch over all runs.
 *
 * <p>A partition holds H old runs (keys spread at random, weak locality); a new run arrives, either
 * of new keys ("insert": random writes) or of existing keys ("update": overwrites that make old
 * versions stale). For each size of the new run, both ways of building the new REMIX are timed
 * (median of repeats) and their key reads counted: a fresh build reads every key of every run; a
 * rebuild reads the new keys from the run's key source and only a few old keys.
 */
@Command(name = "remix-rebuild",
        description = {"REMIX rebuild from the old REMIX vs build from scratch when a new run arrives (keys, time).",
                "",
                "A partition of H runs gets a new run (new keys, or overwrites of existing keys); its REMIX is rebuilt",
                "from the old REMIX and, for comparison, built from scratch over all runs. Reports the time of each",
                "(median of --repeat), the keys each reads, and checks both give the same view.",
                ""},
        optionListHeading = "Options:%n",
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class RemixRebuildCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "Small profile: 400k old keys, 3 repeats.")
    boolean quick;

    @Option(names = "--runs", paramLabel = "H", converter = CountConverter.class, defaultValue = "8",
            description = "Old runs in the partition, 1..62. Default: ${DEFAULT-VALUE}.")
    long runs;

    @Option(names = "--keys", paramLabel = "N", converter = CountConverter.class,
            description = "Old keys in all; k/m suffixes. Default: 4m (--quick: 400k).")
    Long keys;

    @Option(names = "--fractions", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "0.001,0.01,0.1",
            description = "New-run sizes, as fractions of the old keys, each in (0, 1]. Default: ${DEFAULT-VALUE}.")
    List<Double> fractions;

    @Option(names = "--repeat", paramLabel = "N", converter = CountConverter.class,
            description = "Timings per case, median taken. Default: 5 (--quick: 3).")
    Long repeat;

    @Option(names = "--segment", paramLabel = "D", defaultValue = "32",
            description = "Segment size D: 16, 32 or 64. Default: ${DEFAULT-VALUE}.")
    int segment;

    @Option(names = "--seed", paramLabel = "N", converter = CountConverter.class, defaultValue = "42",
            description = "Seed of the runs' keys. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
    Path json;

    @Mixin
    HelpOption help;

    @Override
    public Integer call() throws IOException {
        int runCount = (int) Check.range("--runs", runs, 1, 62);
        long keyCount = Check.range("--keys", keys != null ? keys : quick ? 400_000 : 4_000_000, 1000, 200_000_000);
        for (double f : fractions) {
            if (!(f > 0 && f <= 1)) {
                throw new UsageException("--fractions values must be in (0, 1]: " + f);
            }
        }
        int repeats = (int) Check.range("--repeat", repeat != null ? repeat : quick ? 3 : 5, 1, 100);
        if (segment != 16 && segment != 32 && segment != 64) {
            throw new UsageException("--segment must be 16, 32 or 64: " + segment);
        }
        RemixConfig config = new RemixConfig(segment, true);

        System.out.println("REMIX rebuild vs build (REMIX section 4.3; C RemixDB compressed keys block)");
        System.out.println("machine:  " + MachineInfo.oneLine());
        System.out.printf(Locale.ROOT, "settings: %d old runs, %,d old keys (16 B keys, 100 B values), D=%d, tags, "
                + "median of %d%n%n", runCount, keyCount, config.segmentSize(), repeats);
        String row = "%-7s %9s %12s %12s %9s %14s %14s %12s%n";
        System.out.printf(row, "case", "new keys", "build ms", "rebuild ms", "speedup", "build reads", "rebuild reads",
                "old read %");
        List<Result> results = new ArrayList<>();
        for (String kind : List.of("insert", "update")) {
            for (double f : fractions) {
                Result r = measure(kind, runCount, keyCount, f, repeats, config, seed);
                results.add(r);
                System.out.printf(Locale.ROOT, row, kind, String.format(Locale.ROOT, "%,d", r.newKeys),
                        String.format(Locale.ROOT, "%.1f", r.buildMillis), String.format(Locale.ROOT, "%.1f", r.rebuildMillis),
                        String.format(Locale.ROOT, "%.1fx", r.buildMillis / r.rebuildMillis),
                        String.format(Locale.ROOT, "%,d", r.buildKeysRead),
                        String.format(Locale.ROOT, "%,d", r.oldKeysRead + r.newKeysRead),
                        String.format(Locale.ROOT, "%.2f", 100.0 * r.oldKeysRead / r.oldKeys));
            }
        }
        System.out.println();
        System.out.println("build reads: every key of every run (a k-way merge); rebuild reads: the new run's keys "
                + "(from its key source) plus the old keys read at merge points and new anchors.");
        if (json != null) {
            writeJson(json, runCount, keyCount, repeats, config, results);
        }
        return 0;
    }

    record Result(String kind, int runs, long oldKeys, long newKeys, double buildMillis, double rebuildMillis,
                  long buildKeysRead, long oldKeysRead, long newKeysRead, long oldSlotsReused) {}

    /** The JSON file; its components are its fields, in order. */
    record Report(String benchmark, String date, @OneLine Map<String, Object> machine, @OneLine Settings settings,
                  List<Row> results) {}

    /** The settings in the JSON. */
    record Settings(int runs, long oldKeys, int repeat, int segment) {}

    /** One case in the JSON ("case" is a Java keyword, hence the annotation). */
    record Row(@JsonProperty("case") String kind, int runs, long oldKeys, long newKeys, double buildMillis,
               double rebuildMillis, double speedup, long buildKeysRead, long oldKeysRead, long newKeysRead,
               long oldSlotsReused) {}

    static Result measure(String kind, int runs, long keys, double fraction, int repeat, RemixConfig config, long seed) {
        long newKeys = Math.max(1, Math.round(keys * fraction));
        List<MemoryRun> all = generate(kind, runs, keys, newKeys, seed);
        try (Remix old = Remix.build(all.subList(0, runs), config)) {
            List<MemoryRun> fresh = all.subList(runs, runs + 1);
            double[] build = new double[repeat];
            double[] rebuild = new double[repeat];
            RebuildStats stats = null;
            // One untimed round of each first: the JIT, and the check that both give the same REMIX.
            for (int i = -1; i < repeat; i++) {
                long t0 = System.nanoTime();
                try (Remix full = Remix.build(all, config)) {
                    long t1 = System.nanoTime();
                    RebuildStats s = new RebuildStats();
                    try (Remix inc = Remix.rebuild(old, fresh, s)) {
                        long t2 = System.nanoTime();
                        if (i < 0) {
                            checkSame(full, inc);
                        } else {
                            build[i] = (t1 - t0) / 1e6;
                            rebuild[i] = (t2 - t1) / 1e6;
                            stats = s;
                        }
                    }
                }
            }
            // The generator draws keys at random: report the sizes the runs really have.
            long oldTotal = 0;
            for (MemoryRun r : all.subList(0, runs)) {
                oldTotal += r.keyCount();
            }
            long newTotal = all.get(runs).keyCount();
            return new Result(kind, runs, oldTotal, newTotal, median(build), median(rebuild), oldTotal + newTotal,
                    stats.oldKeysRead(), stats.newKeysRead(), stats.oldSlotsReused());
        } finally {
            all.forEach(MemoryRun::close);
        }
    }

    /** H old runs holding {@code keys} keys at random, then the new run: new keys or existing ones. */
    private static List<MemoryRun> generate(String kind, int runs, long keys, long newKeys, long seed) {
        boolean insert = kind.equals("insert");
        long space = insert ? keys + newKeys : keys;
        KeyFormat keyFormat = new KeyFormat(space);
        SplittableRandom rnd = new SplittableRandom(seed);
        // Which key goes where: run id 0..H-1 for old keys, H for the new run (insert), and a
        // separate mark for overwritten keys (update).
        byte[] owner = new byte[Math.toIntExact(space)];
        boolean[] updated = new boolean[Math.toIntExact(space)];
        double pNew = (double) newKeys / space;
        for (int i = 0; i < owner.length; i++) {
            boolean isNew = rnd.nextDouble() < pNew;
            owner[i] = (byte) (insert && isNew ? runs : rnd.nextInt(runs));
            updated[i] = !insert && isNew;
        }
        return DatasetGenerator.buildRuns(runs + 1, space, keyFormat,
                (r, i) -> r == runs ? (insert ? owner[(int) i] == runs : updated[(int) i]) : owner[(int) i] == r);
    }

    /** Both REMIXes show the same sorted view, every version, in the same order. */
    private static void checkSame(Remix a, Remix b) {
        if (a.segmentCount() != b.segmentCount() || a.keyCount() != b.keyCount()) {
            throw new IllegalStateException("rebuild differs from build: " + a + " vs " + b);
        }
        try (RemixCursor x = a.cursor(RemixCursor.Mode.ALL_VERSIONS);
             RemixCursor y = b.cursor(RemixCursor.Mode.ALL_VERSIONS)) {
            x.seekToFirst();
            y.seekToFirst();
            long n = 0;
            while (x.isValid() && y.isValid()) {
                if (x.runId() != y.runId() || x.isStale() != y.isStale() || !x.key().asByteBuffer().equals(y.key().asByteBuffer())) {
                    throw new IllegalStateException("rebuild differs from build at entry " + n);
                }
                x.next();
                y.next();
                n++;
            }
            if (x.isValid() || y.isValid()) {
                throw new IllegalStateException("rebuild and build have different lengths");
            }
        }
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static void writeJson(Path file, int runs, long keys, int repeat, RemixConfig config, List<Result> results)
            throws IOException {
        List<Row> rows = results.stream().map(r -> new Row(r.kind(), r.runs(), r.oldKeys(), r.newKeys(), r.buildMillis(),
                r.rebuildMillis(), r.buildMillis() / r.rebuildMillis(), r.buildKeysRead(), r.oldKeysRead(),
                r.newKeysRead(), r.oldSlotsReused())).toList();
        Json.writeReport(file, new Report("remix-rebuild", Instant.now().toString(), MachineInfo.describe(),
                new Settings(runs, keys, repeat, config.segmentSize()), rows));
    }
}
