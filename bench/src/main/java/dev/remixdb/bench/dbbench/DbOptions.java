package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.Args;
import dev.remixdb.bench.UsageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The settings of a {@code db} run, validated. The parent process parses the command line into
 * this; each child gets it back as an explicit argument list ({@link #childArgs()}), so both stores
 * run exactly the same workload whatever defaults or profile produced it.
 */
public record DbOptions(List<String> phaseNames, List<PhaseSpec> phases, List<String> stores, long keys,
                        long reads, long seeks, long scans, long writes, long deletes, int valueSize,
                        KeyChooser.Dist dist, double zipfTheta, int threads, long seed, long cacheMb,
                        long remixMemtableMb, long rocksWriteBufferMb, boolean reuseCursors, String heap,
                        List<String> jvmOpts, Path jfr, Path dir, boolean keep, Path json, Path chart,
                        boolean progress, boolean quick) {

    /** Options that take a value, for the {@code db} command. */
    static final Set<String> VALUE_OPTIONS = Set.of("phases", "stores", "keys", "reads", "seeks", "scans", "writes",
            "deletes", "value-size", "dist", "zipf-theta", "threads", "seed", "cache-mb", "remix-memtable-mb",
            "rocks-write-buffer-mb", "heap", "jvm-opts", "jfr", "dir", "json", "chart");
    /** Options that take none. */
    static final Set<String> FLAG_OPTIONS = Set.of("quick", "reuse-cursors", "keep", "no-progress", "help");

    /** The child JVM's default options besides the heap: the same collector as bench/run. */
    static final String DEFAULT_JVM_OPTS = "-XX:+UseParallelGC";

    /** Parses and validates; throws {@link UsageException} saying which option is wrong and why. */
    public static DbOptions parse(Args a) {
        boolean quick = a.flag("quick");
        List<String> names = a.words("phases", PhaseSpec.MICRO1);
        List<PhaseSpec> phases = PhaseSpec.parseList(names);
        List<String> expanded = phases.stream().map(PhaseSpec::name).toList();
        List<String> stores = a.words("stores", Store.NAMES);
        if (stores.isEmpty()) {
            throw new UsageException("--stores needs at least one of " + String.join(", ", Store.NAMES));
        }
        for (String s : stores) {
            if (!Store.NAMES.contains(s)) {
                throw new UsageException("--stores: unknown store '" + s + "'; stores: " + String.join(", ", Store.NAMES));
            }
        }
        if (stores.size() != stores.stream().distinct().count()) {
            throw new UsageException("--stores names a store twice: " + String.join(",", stores));
        }
        long keys = a.longValue("keys", quick ? 1_000_000 : 4_000_000, 2, 1_000_000_000);
        long reads = a.longValue("reads", quick ? 500_000 : 1_000_000, 1, 10_000_000_000L);
        long seeks = a.longValue("seeks", quick ? 500_000 : 1_000_000, 1, 10_000_000_000L);
        long scans = a.longValue("scans", quick ? 100_000 : 200_000, 1, 10_000_000_000L);
        long writes = a.longValue("writes", keys, 1, 10_000_000_000L);
        long deletes = a.longValue("deletes", Math.max(1, keys / 10), 1, keys);
        int valueSize = a.intValue("value-size", 120, Values.MIN_BYTES, 1 << 20);
        KeyChooser.Dist dist = KeyChooser.Dist.parse(a.string("dist", "uniform"));
        if (dist == null) {
            throw new UsageException("--dist must be uniform or zipf: " + a.string("dist", ""));
        }
        double theta = parseTheta(a.string("zipf-theta", "0.99"));
        int threads = a.intValue("threads", 1, 1, 256);
        long seed = a.longValue("seed", 42, Long.MIN_VALUE, Long.MAX_VALUE);
        long cacheMb = a.longValue("cache-mb", 1024, 0, 1 << 20);
        long remixMemtableMb = a.longValue("remix-memtable-mb", 256, 1, 1 << 16);
        long rocksWriteBufferMb = a.longValue("rocks-write-buffer-mb", 64, 1, 1 << 16);
        String heap = a.string("heap", "4g").trim().toLowerCase(java.util.Locale.ROOT);
        if (!heap.matches("[1-9][0-9]*[kmg]?")) {
            throw new UsageException("--heap must be a JVM heap size like 4g or 512m: " + heap);
        }
        List<String> jvmOpts = splitJvmOpts(a.string("jvm-opts", DEFAULT_JVM_OPTS));
        return new DbOptions(List.copyOf(expanded), phases, List.copyOf(stores), keys, reads, seeks, scans, writes,
                deletes, valueSize, dist, theta, threads, seed, cacheMb, remixMemtableMb, rocksWriteBufferMb,
                a.flag("reuse-cursors"), heap, jvmOpts, a.path("jfr"), a.path("dir"), a.flag("keep"), a.path("json"),
                a.path("chart"), !a.flag("no-progress"), quick);
    }

    private static double parseTheta(String s) {
        double theta;
        try {
            theta = Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("--zipf-theta needs a number in (0, 1): " + s, e);
        }
        if (!(theta > 0 && theta < 1)) {
            throw new UsageException("--zipf-theta must be in (0, 1): " + s);
        }
        return theta;
    }

    private static List<String> splitJvmOpts(String s) {
        List<String> out = new ArrayList<>();
        for (String part : s.trim().split("\\s+")) {
            if (part.isEmpty()) {
                continue;
            }
            if (!part.startsWith("-")) {
                throw new UsageException("--jvm-opts takes JVM options, each starting with '-': " + part);
            }
            if (part.startsWith("-Xmx")) {
                throw new UsageException("--jvm-opts: set the heap with --heap, not " + part);
            }
            out.add(part);
        }
        return out;
    }

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
        add(a, "seed", seed);
        add(a, "cache-mb", cacheMb);
        add(a, "remix-memtable-mb", remixMemtableMb);
        add(a, "rocks-write-buffer-mb", rocksWriteBufferMb);
        if (reuseCursors) {
            a.add("--reuse-cursors");
        }
        if (jfr != null) {
            add(a, "jfr", jfr.toAbsolutePath().toString());
        }
        return a;
    }

    private static void add(List<String> a, String name, Object value) {
        a.add("--" + name);
        a.add(String.valueOf(value));
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
        m.put("seed", seed);
        m.put("cacheMb", cacheMb);
        m.put("remixMemtableMb", remixMemtableMb);
        m.put("rocksWriteBufferMb", rocksWriteBufferMb);
        m.put("reuseCursors", reuseCursors);
        m.put("childHeap", heap);
        m.put("childJvmOpts", String.join(" ", jvmOpts));
        return m;
    }
}
