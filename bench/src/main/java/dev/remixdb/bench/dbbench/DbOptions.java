package dev.remixdb.bench.dbbench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings of a {@code db} run, validated ({@link DbArgs#options()} makes them from the command
 * line). Each child gets them back as an explicit argument list ({@link #childArgs()}), so both stores
 * run exactly the same workload whatever defaults or profile produced it.
 */
public record DbOptions(List<String> phaseNames, List<PhaseSpec> phases, List<String> stores, long keys,
                        long reads, long seeks, long scans, long writes, long deletes, int valueSize,
                        KeyChooser.Dist dist, double zipfTheta, int threads, int writers, long seed, long cacheMb,
                        long remixMemtableMb, long rocksWriteBufferMb, boolean reuseCursors, String heap,
                        List<String> jvmOpts, Path jfr, Path dir, boolean keep, Path json, Path chart,
                        boolean progress, boolean quick, String ioEngine, long memoryLimitBytes,
                        boolean directIo, boolean scanViews, String policy, boolean sync) {

    /** The child JVM's default options besides the heap: the same collector as bench/run. */
    static final String DEFAULT_JVM_OPTS = "-XX:+UseParallelGC";

    /** Bytes of one key and its value: the unit of user bytes and of space amplification. */
    public long entryBytes() {
        return Keys.BYTES + valueSize;
    }

    /**
     * The workload as explicit arguments for a child process: every count spelled out, so the child
     * does not re-derive anything from --quick or from defaults.
     */
    public List<String> childArgs() {
        List<String> a = new ArrayList<>();
        add(a, "phases", String.join(",", phaseNames));
        add(a, "stores", String.join(",", stores));
        add(a, "keys", keys);
        add(a, "reads", reads);
        add(a, "seeks", seeks);
        add(a, "scans", scans);
        add(a, "writes", writes);
        add(a, "deletes", deletes);
        add(a, "value-size", valueSize);
        add(a, "dist", dist.label());
        add(a, "zipf-theta", Double.toString(zipfTheta));
        add(a, "threads", threads);
        add(a, "writers", writers);
        add(a, "seed", seed);
        add(a, "cache-mb", cacheMb);
        add(a, "remix-memtable-mb", remixMemtableMb);
        add(a, "rocks-write-buffer-mb", rocksWriteBufferMb);
        add(a, "io-engine", ioEngine);
        if (directIo) {
            a.add("--direct-io");
        }
        if (reuseCursors) {
            a.add("--reuse-cursors");
        }
        if (scanViews) {
            a.add("--scan-views");
        }
        if (sync) {
            a.add("--sync");
        }
        add(a, "policy", policy);
        if (jfr != null) {
            add(a, "jfr", jfr.toAbsolutePath().toString());
        }
        return a;
    }

    /** One token per option, so that no value (a negative seed, say) can be read as an option. */
    private static void add(List<String> a, String name, Object value) {
        a.add("--" + name + "=" + value);
    }

    /** The settings for the report and the JSON, in a fixed order. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("profile", quick ? "quick" : "full");
        m.put("phases", String.join(",", phases.stream().map(PhaseSpec::label).toList()));
        m.put("stores", String.join(",", stores));
        m.put("keys", keys);
        m.put("keyBytes", Keys.BYTES);
        m.put("valueBytes", valueSize);
        m.put("reads", reads);
        m.put("seeks", seeks);
        m.put("scans", scans);
        m.put("writes", writes);
        m.put("deletes", deletes);
        m.put("dist", dist.label());
        m.put("zipfTheta", dist == KeyChooser.Dist.ZIPF ? (Object) zipfTheta : null);
        m.put("threads", threads);
        m.put("writers", writers);
        m.put("seed", seed);
        m.put("cacheMb", cacheMb);
        m.put("remixMemtableMb", remixMemtableMb);
        m.put("rocksWriteBufferMb", rocksWriteBufferMb);
        m.put("reuseCursors", reuseCursors);
        m.put("childHeap", heap);
        m.put("childJvmOpts", String.join(" ", jvmOpts));
        m.put("ioEngine", ioEngine);
        m.put("memoryLimitBytes", memoryLimitBytes);
        m.put("directIo", directIo);
        m.put("scanViews", scanViews);
        m.put("compactionPolicy", policy);
        m.put("syncWrites", sync);
        return m;
    }
}
