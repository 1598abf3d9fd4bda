package dev.remixdb.bench.dbbench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The results of a db run (one per phase and store, as the children sent them), with the lookups
 * the reports need: a result by phase and store, a metric, and the ours/RocksDB ratios.
 */
final class Results {
    /** A number of a result, named as in the JSON; NaN where it does not apply. */
    record Metric(String name, ToDoubleFunction<PhaseResult> of) {}

    static final Metric OPS_PER_SEC = new Metric("opsPerSec", PhaseResult::opsPerSec);
    static final Metric OPS_PER_SEC_WITH_SETTLE =
            new Metric("opsPerSecWithSettle", r -> orNaN(r.opsPerSecWithSettle()));
    static final Metric P50_MICROS = new Metric("p50Micros", PhaseResult::p50Micros);
    static final Metric P99_MICROS = new Metric("p99Micros", PhaseResult::p99Micros);
    static final Metric P999_MICROS = new Metric("p999Micros", PhaseResult::p999Micros);
    static final Metric WRITE_AMPLIFICATION = new Metric("writeAmplification", r -> orNaN(r.writeAmplification()));
    static final Metric SPACE_AMPLIFICATION = new Metric("spaceAmplification", r -> orNaN(r.spaceAmplification()));
    static final Metric PEAK_RSS_BYTES = new Metric("peakRssBytes", PhaseResult::peakRssBytes);

    /** The ratios the JSON reports per phase. */
    static final List<Metric> RATIOS = List.of(OPS_PER_SEC, OPS_PER_SEC_WITH_SETTLE, P99_MICROS, WRITE_AMPLIFICATION,
            SPACE_AMPLIFICATION, PEAK_RSS_BYTES);

    private final List<PhaseResult> records;

    Results(List<PhaseResult> records) {
        this.records = List.copyOf(records);
    }

    List<PhaseResult> records() {
        return records;
    }

    /** Phase labels in the order they ran. */
    List<String> phases() {
        Set<String> out = new LinkedHashSet<>();
        for (PhaseResult r : records) {
            out.add(r.phase());
        }
        return new ArrayList<>(out);
    }

    /** The result of {@code phase} on {@code store}, or null. */
    PhaseResult find(String phase, String store) {
        for (PhaseResult r : records) {
            if (r.phase().equals(phase) && r.store().equals(store)) {
                return r;
            }
        }
        return null;
    }

    /** {@code metric} of a result; NaN when there is no result. */
    static double num(PhaseResult r, Metric metric) {
        return r == null ? Double.NaN : metric.of().applyAsDouble(r);
    }

    /** remixdb's {@code metric} over rocksdb's for {@code phase}; NaN when either is missing. */
    double ratio(String phase, Metric metric) {
        double ours = num(find(phase, "remixdb"), metric);
        double theirs = num(find(phase, "rocksdb"), metric);
        return theirs > 0 ? ours / theirs : Double.NaN;
    }

    /** Wrong answers over all results. */
    long errors() {
        long sum = 0;
        for (PhaseResult r : records) {
            sum += r.errors();
        }
        return sum;
    }

    private static double orNaN(Double x) {
        return x == null ? Double.NaN : x;
    }

    /** The targets for micro1, as ours/RocksDB ratios. */
    record Goal(String phase, Metric metric, String what, double target, boolean atLeast) {
        boolean met(double ratio) {
            return Double.isFinite(ratio) && (atLeast ? ratio >= target : ratio <= target);
        }
    }

    static final List<Goal> GOALS = List.of(
            new Goal("load", OPS_PER_SEC, "load ops/s", 2.5, true),
            new Goal("readrandom", OPS_PER_SEC, "readrandom ops/s", 2.5, true),
            new Goal("seekrandom", OPS_PER_SEC, "seekrandom ops/s", 3.0, true),
            new Goal("seeknext50", OPS_PER_SEC, "seeknext50 ops/s", 3.0, true),
            new Goal("load", WRITE_AMPLIFICATION, "load write amplification", 0.5, false));
}
