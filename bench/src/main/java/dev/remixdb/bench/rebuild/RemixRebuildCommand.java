package dev.remixdb.bench.rebuild;

import dev.remixdb.bench.Args;
import dev.remixdb.bench.Command;
import dev.remixdb.bench.Json;
import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.data.DatasetGenerator;
import dev.remixdb.bench.data.KeyCodec;
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
import java.util.Set;
import java.util.SplittableRandom;

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
public final class RemixRebuildCommand implements Command {

    @Override
    public String name() {
        return "remix-rebuild";
    }

    @Override
    public String summary() {
        return "REMIX rebuild from the old REMIX vs build from scratch when a new run arrives (keys read, time)";
    }

    @Override
    public String usage() {
        return """
                usage: remix-rebuild [options]

                A partition of H runs gets a new run (new keys, or overwrites of existing keys); its REMIX is
                rebuilt from the old REMIX and, for comparison, built from scratch over all runs. Reports the
                time of each (median of --repeat), the keys each reads, and checks both give the same view.

                options:
                  --quick              small profile: 400k old keys, 3 repeats
                  --runs H             old runs in the partition       (default 8)
                  --keys N             old keys in all; k/m suffixes   (default 4m)
                  --fractions LIST     new-run size as a fraction of the old keys (default 0.001,0.01,0.1)
                  --repeat N           timings per case, median taken  (default 5)
                  --segment D          16, 32 or 64                    (default 32)
                  --seed N             (default 42)
                  --json FILE          also write the results as JSON
                  --help               this text
                """;
    }

    @Override
    public int run(String[] argv) throws IOException {
        Args a = Args.parse(argv, Set.of("runs", "keys", "fractions", "repeat", "segment", "seed", "json"),
                Set.of("quick", "help"));
        if (a.flag("help")) {
            System.out.print(usage());
            return 0;
        }
        boolean quick = a.flag("quick");
        int runs = a.intValue("runs", 8, 1, 62);
        long keys = a.longValue("keys", quick ? 400_000 : 4_000_000, 1000, 200_000_000);
        double[] fractions = a.words("fractions", List.of("0.001", "0.01", "0.1")).stream()
                .mapToDouble(Double::parseDouble).toArray();
        int repeat = a.intValue("repeat", quick ? 3 : 5, 1, 100);
        RemixConfig config = new RemixConfig(a.intValue("segment", 32, 16, 64), true);
        long seed = a.longValue("seed", 42, Long.MIN_VALUE, Long.MAX_VALUE);

        System.out.println("REMIX rebuild vs build (REMIX section 4.3; C RemixDB compressed keys block)");
        System.out.println("machine:  " + MachineInfo.oneLine());
        System.out.printf(Locale.ROOT, "settings: %d old runs, %,d old keys (16 B keys, 100 B values), D=%d, tags, "
                + "median of %d%n%n", runs, keys, config.segmentSize(), repeat);
        String row = "%-7s %9s %12s %12s %9s %14s %14s %12s%n";
        System.out.printf(row, "case", "new keys", "build ms", "rebuild ms", "speedup", "build reads", "rebuild reads",
                "old read %");
        List<Result> results = new ArrayList<>();
        for (String kind : List.of("insert", "update")) {
            for (double f : fractions) {
                Result r = measure(kind, runs, keys, f, repeat, config, seed);
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
        if (a.has("json")) {
            writeJson(a.path("json"), runs, keys, repeat, config, results);
        }
        return 0;
    }

    record Result(String kind, int runs, long oldKeys, long newKeys, double buildMillis, double rebuildMillis,
                  long buildKeysRead, long oldKeysRead, long newKeysRead, long oldSlotsReused) {}

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
        KeyCodec codec = new KeyCodec(space);
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
        return DatasetGenerator.buildRuns(runs + 1, space, codec,
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
        StringBuilder b = new StringBuilder();
        b.append("{\n  \"benchmark\": \"remix-rebuild\",\n  \"date\": ").append(Json.string(Instant.now().toString()))
                .append(",\n  \"machine\": ").append(Json.value(MachineInfo.describe()))
                .append(",\n  \"settings\": {\"runs\": ").append(runs).append(", \"oldKeys\": ").append(keys)
                .append(", \"repeat\": ").append(repeat).append(", \"segment\": ").append(config.segmentSize())
                .append("},\n  \"results\": [\n");
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            b.append("    {\"case\": ").append(Json.string(r.kind())).append(", \"runs\": ").append(r.runs())
                    .append(", \"oldKeys\": ").append(r.oldKeys()).append(", \"newKeys\": ").append(r.newKeys())
                    .append(", \"buildMillis\": ").append(Json.number(r.buildMillis()))
                    .append(", \"rebuildMillis\": ").append(Json.number(r.rebuildMillis()))
                    .append(", \"speedup\": ").append(Json.number(r.buildMillis() / r.rebuildMillis()))
                    .append(", \"buildKeysRead\": ").append(r.buildKeysRead())
                    .append(", \"oldKeysRead\": ").append(r.oldKeysRead())
                    .append(", \"newKeysRead\": ").append(r.newKeysRead())
                    .append(", \"oldSlotsReused\": ").append(r.oldSlotsReused()).append('}')
                    .append(i + 1 < results.size() ? ",\n" : "\n");
        }
        b.append("  ]\n}\n");
        Files.writeString(file, b);
    }
}
