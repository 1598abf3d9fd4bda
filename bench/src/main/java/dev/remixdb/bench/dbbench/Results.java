package dev.remixdb.bench.dbbench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The flat result records of a db run (one per phase and store, as the children sent them), with
 * the lookups the reports need: a record by phase and store, a number field, and the ours/RocksDB
 * ratios.
 */
final class Results {
    /** The fields every record has in the JSON, in this order (null where they do not apply). */
    static final List<String> CORE_FIELDS = List.of("phase", "store", "kind", "threads", "ops", "seconds", "opsPerSec",
            "p50Micros", "p99Micros", "p999Micros", "maxMicros", "meanMicros", "found", "errors", "bytesWritten",
            "bytesRead", "userBytes", "writeAmplification", "settleSeconds", "opsPerSecWithSettle", "cpuSeconds",
            "diskBytes", "liveKeys", "spaceAmplification", "peakRssBytes", "rssBytes", "offHeapBytes");

    private final List<Map<String, Object>> records;

    Results(List<Map<String, Object>> records) {
        this.records = List.copyOf(records);
    }

    List<Map<String, Object>> records() {
        return records;
    }

    /** Phase labels in the order they ran. */
    List<String> phases() {
        Set<String> out = new LinkedHashSet<>();
        for (Map<String, Object> r : records) {
            out.add((String) r.get("phase"));
        }
        return new ArrayList<>(out);
    }

    /** The record of {@code phase} on {@code store}, or null. */
    Map<String, Object> find(String phase, String store) {
        for (Map<String, Object> r : records) {
            if (phase.equals(r.get("phase")) && store.equals(r.get("store"))) {
                return r;
            }
        }
        return null;
    }

    /** A number field of a record as a double; NaN when the record or field is missing. */
    static double num(Map<String, Object> r, String field) {
        if (r == null) {
            return Double.NaN;
        }
        return r.get(field) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    /** remixdb's value of {@code field} over rocksdb's for {@code phase}; NaN when either is missing. */
    double ratio(String phase, String field) {
        double ours = num(find(phase, "remixdb"), field);
        double theirs = num(find(phase, "rocksdb"), field);
        return theirs > 0 ? ours / theirs : Double.NaN;
    }

    /** Wrong answers over all records. */
    long errors() {
        long sum = 0;
        for (Map<String, Object> r : records) {
            if (r.get("errors") instanceof Number n) {
                sum += n.longValue();
            }
        }
        return sum;
    }

    /** The targets for micro1, as ours/RocksDB ratios. */
    record Goal(String phase, String field, String what, double target, boolean atLeast) {
        boolean met(double ratio) {
            return Double.isFinite(ratio) && (atLeast ? ratio >= target : ratio <= target);
        }
    }

    static final List<Goal> GOALS = List.of(
            new Goal("load", "opsPerSec", "load ops/s", 2.5, true),
            new Goal("readrandom", "opsPerSec", "readrandom ops/s", 2.5, true),
            new Goal("seekrandom", "opsPerSec", "seekrandom ops/s", 3.0, true),
            new Goal("seeknext50", "opsPerSec", "seeknext50 ops/s", 3.0, true),
            new Goal("load", "writeAmplification", "load write amplification", 0.5, false));
}
