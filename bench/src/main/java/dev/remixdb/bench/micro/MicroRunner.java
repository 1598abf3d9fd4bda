package dev.remixdb.bench.micro;

import dev.remixdb.bench.Progress;
import dev.remixdb.bench.data.Dataset;
import dev.remixdb.bench.data.DatasetGenerator;
import dev.remixdb.bench.data.KeyFormat;
import dev.remixdb.bench.data.Locality;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the REMIX §5.1 experiments: for each H and locality, generates the runs, builds the REMIXes and
 * Bloom filters, then for each phase and index checks a sample of answers (counting comparisons) and
 * measures throughput after a warm-up. Datasets are built one at a time and freed before the next.
 */
public final class MicroRunner {
    /** Keys per run of the small dataset that warms the JIT up before the first measurement. */
    private static final long PREHEAT_KEYS_PER_RUN = 20_000;
    private static final int PREHEAT_ROUNDS = 2;
    private static final int PREHEAT_CHECK_OPS = 100;
    /** Slices per measurement; the median slice is reported. */
    private static final int SAMPLES = 5;

    private final MicroOptions o;
    private final Progress progress;

    public MicroRunner(MicroOptions options, Progress progress) {
        this.o = options;
        this.progress = progress;
    }

    /** One measurement to make on a dataset. {@code segment} is 0 for the baselines. */
    record Variant(Phase phase, String index, int segment) {
        String label() {
            return phase.label() + " " + index + (segment > 0 ? " D=" + segment : "");
        }
    }

    /** One dataset and what to measure on it. */
    record DatasetPlan(int runs, Locality locality, List<Variant> variants) {
        String label() {
            return "H=" + runs + (runs == 1 ? "" : " " + locality.label());
        }
    }

    /** The datasets and measurements {@code o} asks for, in the order they run. */
    static List<DatasetPlan> plan(MicroOptions o) {
        List<DatasetPlan> plans = new ArrayList<>();
        for (int h : o.runs()) {
            List<Variant> vs = variants(o, h);
            if (h == 1) {
                plans.add(new DatasetPlan(h, o.localities().getFirst(), vs));
            } else {
                for (Locality l : o.localities()) {
                    plans.add(new DatasetPlan(h, l, vs));
                }
            }
        }
        return plans;
    }

    private static List<Variant> variants(MicroOptions o, int h) {
        List<Variant> vs = new ArrayList<>();
        for (Phase p : o.phases()) {
            if (p == Phase.GET) {
                vs.add(new Variant(p, "remix-full", o.segment()));
                vs.add(new Variant(p, "remix-notags", o.segment()));
                vs.add(new Variant(p, "bloom", 0));
                vs.add(new Variant(p, "merging", 0));
            } else {
                for (int d : o.segmentsFor(h)) {
                    vs.add(new Variant(p, "remix-full", d));
                    vs.add(new Variant(p, "remix-partial", d));
                }
                // Our default seek (hash tag first), at the main D only.
                vs.add(new Variant(p, "remix-tagseek", o.segment()));
                vs.add(new Variant(p, "merging", 0));
            }
        }
        return vs;
    }

    /** Progress units of a run: one per dataset build and one per measurement. */
    public static long units(MicroOptions o) {
        long n = 1;  // the JIT preheat
        for (DatasetPlan p : plan(o)) {
            n += 1 + p.variants().size();
        }
        return n;
    }

    /** Runs everything; returns the report. */
    public MicroReport run() {
        long t0 = System.nanoTime();
        String started = Instant.now().toString();
        List<Result> results = new ArrayList<>();
        List<RemixSize> sizes = new ArrayList<>();
        if (!o.runs().contains(o.sweepRuns()) && o.sweepSegments().size() > 1) {
            progress.log("note: --sweep-runs " + o.sweepRuns() + " is not among --runs, so D is not swept");
        }
        preheat();
        for (DatasetPlan plan : plan(o)) {
            runDataset(plan, results, sizes);
        }
        progress.finish();
        return new MicroReport(o, results, sizes, (System.nanoTime() - t0) / 1e9, started);
    }

    /**
     * Runs every variant (all segment sizes) on small datasets of one run and of several runs in
     * each locality, round-robin for {@link #PREHEAT_ROUNDS} rounds, so that the JIT has compiled
     * every path with the profiles of all variants and dataset shapes before the first measurement.
     * Otherwise the first rows pay for compilation, and each new shape (one run, strong locality)
     * deoptimises code compiled for the shapes seen before it.
     */
    private void preheat() {
        progress.begin("JIT warm-up");
        if (o.preheatMillis() > 0) {
            int maxH = o.runs().stream().mapToInt(Integer::intValue).max().orElse(1);
            int h = Math.min(8, maxH);
            long kpr = Math.min(PREHEAT_KEYS_PER_RUN, o.keysPerRun());
            MicroOptions all = o.withScale(o.runs(), kpr, 0, 0, 1, 0, h);
            List<DatasetPlan> shapes = new ArrayList<>();
            shapes.add(new DatasetPlan(1, o.localities().getFirst(), variants(all, 1)));
            if (h > 1) {
                for (Locality l : o.localities()) {
                    shapes.add(new DatasetPlan(h, l, variants(all, h)));
                }
            }
            List<Dataset> data = new ArrayList<>();
            List<IndexSet> sets = new ArrayList<>();
            try (Arena arena = Arena.ofConfined()) {
                for (DatasetPlan p : shapes) {
                    Dataset ds = DatasetGenerator.generate(p.runs(), kpr, p.locality(), o.seed() + 1);
                    data.add(ds);
                    sets.add(IndexSet.build(ds, all.segmentsFor(p.runs()), o.segment(), o.bloomBits()));
                }
                MemorySegment key = arena.allocate(KeyFormat.KEY_BYTES);
                MemorySegment out = arena.allocate(outBytes());
                int calls = PREHEAT_ROUNDS * shapes.stream().mapToInt(p -> p.variants().size()).sum();
                long slice = Math.max(1, o.preheatMillis() / calls) * 1_000_000L;
                for (int round = 0; round < PREHEAT_ROUNDS; round++) {
                    for (int i = 0; i < shapes.size(); i++) {
                        Dataset ds = data.get(i);
                        for (Variant v : shapes.get(i).variants()) {
                            // The checks take branches the timed loop never does (absent keys, the
                            // ends of the data): run them here too, or their first use later
                            // deoptimises code compiled without them.
                            for (boolean counting : new boolean[] {true, false}) {
                                try (Target t = sets.get(i).target(v.index(), v.segment(), counting)) {
                                    Checker.check(t, v.phase(), ds.keyFormat(), o.seed() + round, PREHEAT_CHECK_OPS);
                                }
                            }
                            try (Target t = sets.get(i).target(v.index(), v.segment(), false)) {
                                Meter.run(t, v.phase(), ds.keyFormat(), new KeyStream(ds.keyCount(), o.seed() + round),
                                        key, out, slice);
                            }
                        }
                    }
                }
            } finally {
                sets.forEach(IndexSet::close);
                data.forEach(Dataset::close);
            }
        }
        progress.end();
    }

    private IndexSet build(Dataset ds, int h) {
        boolean get = o.phases().contains(Phase.GET);
        return IndexSet.build(ds, o.segmentsFor(h), get ? o.segment() : 0, get ? o.bloomBits() : 0);
    }

    private static long outBytes() {
        return (long) (KeyFormat.KEY_BYTES + KeyFormat.VALUE_BYTES) * Phase.SCAN_LENGTH;
    }

    private void runDataset(DatasetPlan plan, List<Result> results, List<RemixSize> sizes) {
        int h = plan.runs();
        progress.begin("building " + plan.label());
        long t0 = System.nanoTime();
        try (Dataset ds = DatasetGenerator.generate(h, o.keysPerRun(), plan.locality(), o.seed())) {
            double dataSeconds = (System.nanoTime() - t0) / 1e9;
            long t1 = System.nanoTime();
            try (IndexSet set = build(ds, h); Arena arena = Arena.ofConfined()) {
                progress.log(String.format("%-10s %,11d keys, runs %,6.0f MiB built in %5.1fs;"
                                + " %d REMIX%s + Bloom filters in %5.1fs",
                        plan.label(), ds.keyCount(), ds.memoryBytes() / 1048576.0, dataSeconds,
                        set.sizes().size(), set.sizes().size() == 1 ? "" : "es", (System.nanoTime() - t1) / 1e9));
                progress.end();
                sizes.addAll(set.sizes());
                MemorySegment key = arena.allocate(KeyFormat.KEY_BYTES);
                MemorySegment out = arena.allocate(outBytes());
                int first = results.size();
                for (Variant v : plan.variants()) {
                    progress.begin(plan.label() + " " + v.label());
                    results.add(measure(ds, set, v, key, out));
                    progress.end();
                }
                if (h == 1) {
                    List<Result> own = List.copyOf(results.subList(first, results.size()));
                    for (Locality l : o.localities().subList(1, o.localities().size())) {
                        for (Result r : own) {
                            results.add(r.copyTo(l.label()));
                        }
                    }
                }
            }
        }
    }

    private Result measure(Dataset ds, IndexSet set, Variant v, MemorySegment key, MemorySegment out) {
        long keySeed = o.seed() * 31 + ds.runCount() * 1_000_003L + ds.locality().ordinal() * 7919L + v.phase().ordinal();
        double comparisons = Double.NaN;
        if (o.checkOps() > 0) {
            try (Target t = set.target(v.index(), v.segment(), true)) {
                comparisons = Checker.check(t, v.phase(), ds.keyFormat(), keySeed ^ 0x5DEECE66DL, o.checkOps());
            }
        }
        try (Target t = set.target(v.index(), v.segment(), false)) {
            KeyStream keys = new KeyStream(ds.keyCount(), keySeed);
            if (o.warmupMillis() > 0) {
                Meter.warmUp(t, v.phase(), ds.keyFormat(), keys, key, out, o.warmupMillis() * 1_000_000L);
            }
            Meter.Sampled m = Meter.measure(t, v.phase(), ds.keyFormat(), keys, key, out,
                    o.measureMillis() * 1_000_000L, SAMPLES);
            return new Result(v.phase(), v.index(), ds.runCount(), ds.locality().label(), v.segment(), ds.keyCount(),
                    m.opsPerSec(), m.minOpsPerSec(), m.maxOpsPerSec(), comparisons, m.ops(), m.nanos() / 1e9, null);
        }
    }
}
