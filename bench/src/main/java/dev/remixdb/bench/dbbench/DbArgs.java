package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.UsageException;
import dev.remixdb.bench.cli.Check;
import dev.remixdb.bench.cli.CountConverter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options of a {@code db} run as typed on the command line, with their help text and defaults;
 * mixed into both {@link DbBenchCommand} and {@link DbChildCommand}. {@link #options()} resolves the
 * {@code --quick} defaults and checks ranges and combinations, giving the {@link DbOptions} a run
 * uses. Counts left null here take their default from {@code --quick} or from another option.
 */
public final class DbArgs {
    @Option(names = "--quick", description = "About a minute for both stores on 2 cores: 1M keys, 500k reads and seeks, "
            + "100k scans (options given too override these).")
    boolean quick;

    @Option(names = "--phases", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "micro1",
            description = "Comma-separated phases, run in order (see the list below). Default: ${DEFAULT-VALUE}.")
    List<String> phases;

    @Option(names = "--stores", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "remixdb,rocksdb",
            description = "Stores to run, in this order. Default: ${DEFAULT-VALUE}.")
    List<String> stores;

    @Option(names = "--keys", paramLabel = "N", converter = CountConverter.class,
            description = "Keys loaded; k/m suffixes. Default: 4m (--quick: 1m).")
    Long keys;

    @Option(names = "--reads", paramLabel = "N", converter = CountConverter.class,
            description = "Gets per read phase. Default: 1m (--quick: 500k).")
    Long reads;

    @Option(names = "--seeks", paramLabel = "N", converter = CountConverter.class,
            description = "Seeks of seekrandom. Default: 1m (--quick: 500k).")
    Long seeks;

    @Option(names = "--scans", paramLabel = "N", converter = CountConverter.class,
            description = "Scans per seeknextN / seekprevN. Default: 200k (--quick: 100k).")
    Long scans;

    @Option(names = "--writes", paramLabel = "N", converter = CountConverter.class,
            description = "Puts of overwrite. Default: --keys.")
    Long writes;

    @Option(names = "--deletes", paramLabel = "N", converter = CountConverter.class,
            description = "Deletes of the deletes phase, at most --keys. Default: --keys / 10.")
    Long deletes;

    @Option(names = "--value-size", paramLabel = "N", converter = CountConverter.class, defaultValue = "120",
            description = "Value bytes, >= 16; the paper's are 40, 120, 400. Default: ${DEFAULT-VALUE}.")
    long valueSize;

    @Option(names = "--dist", paramLabel = "uniform|zipf", defaultValue = "uniform",
            description = "Key choice of reads, seeks, scans and overwrites. Default: ${DEFAULT-VALUE}.")
    String dist;

    @Option(names = "--zipf-theta", paramLabel = "X", defaultValue = "0.99",
            description = "Zipfian skew, in (0, 1). Default: ${DEFAULT-VALUE}.")
    double zipfTheta;

    @Option(names = "--threads", paramLabel = "N", converter = CountConverter.class, defaultValue = "1",
            description = "Reader threads of the read phases. Default: ${DEFAULT-VALUE}.")
    long threads;

    @Option(names = "--writers", paramLabel = "N", converter = CountConverter.class, defaultValue = "1",
            description = "Writer threads of load, fillseq and overwrite: each writes its own share of the keys "
                    + "(load, fillseq) or its own random keys (overwrite). Default: ${DEFAULT-VALUE}.")
    long writers;

    @Option(names = "--seed", paramLabel = "N", converter = CountConverter.class, defaultValue = "42",
            description = "Seed of the load order, the keys chosen and the values. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--cache-mb", paramLabel = "N", converter = CountConverter.class, defaultValue = "1024",
            description = "Block cache of both stores, MiB. Default: ${DEFAULT-VALUE}.")
    long cacheMb;

    @Option(names = "--remix-memtable-mb", paramLabel = "N", converter = CountConverter.class, defaultValue = "256",
            description = "RemixDB's memtable, MiB. Default: ${DEFAULT-VALUE}.")
    long remixMemtableMb;

    @Option(names = "--rocks-write-buffer-mb", paramLabel = "N", converter = CountConverter.class, defaultValue = "64",
            description = "RocksDB's write buffer, MiB (3 of them). Default: ${DEFAULT-VALUE}.")
    long rocksWriteBufferMb;

    @Option(names = "--reuse-cursors", description = "One cursor/iterator per thread and phase instead of one per "
            + "seek (db_bench's default is one per seek).")
    boolean reuseCursors;

    @Option(names = "--scan-views", description = "RemixDB's scans read each entry through keyView()/valueView() "
            + "(no copies) instead of key()/value(); the check reads the views. RocksDB's iterator copies as always.")
    boolean scanViews;

    @Option(names = "--policy", paramLabel = "NAME", defaultValue = "default",
            description = "RemixDB's compaction policy: remixdb, garnering, rangereduce or garnering+rangereduce "
                    + "(settings after a colon, as in remixdb:idleMergeRuns=5). Default: the store's own, remixdb, "
                    + "with idle merges of scanned partitions under --direct-io.")
    String policy;

    @Option(names = "--io-engine", paramLabel = "ENGINE", defaultValue = "auto",
            description = "RemixDB's block reads: auto, io_uring or filechannel. Default: ${DEFAULT-VALUE}.")
    String ioEngine;

    @Option(names = "--direct-io", description = "Both stores read table files past the page cache: RemixDB's "
            + "directIo (io_uring), RocksDB's use_direct_reads. The block caches are then the only caches.")
    boolean directIo;

    @Option(names = "--sync", description = "Every write is durable before it returns: RemixDB's syncWrites, "
            + "RocksDB's WriteOptions sync. Each write waits for an fsync (concurrent writers share one): use small "
            + "counts, e.g. --keys 20k --phases load or --writers 4.")
    boolean sync;

    @Option(names = "--memory-limit", paramLabel = "SIZE",
            description = "Run each child JVM in a memory cgroup of this size (like 3g): page cache included, so "
                    + "data larger than it is read from the disk. Needs root and the cgroup v1 memory controller.")
    String memoryLimit;

    @Option(names = "--heap", paramLabel = "SIZE", defaultValue = "4g",
            description = "-Xmx of each child JVM. Default: ${DEFAULT-VALUE}.")
    String heap;

    @Option(names = "--jvm-opts", paramLabel = "\"OPTS\"", defaultValue = DbOptions.DEFAULT_JVM_OPTS,
            description = "The child JVMs' other options (replaces the default; the heap goes in --heap). "
                    + "Default: \"${DEFAULT-VALUE}\".")
    String jvmOpts;

    @Option(names = "--jfr", paramLabel = "DIR",
            description = "Record a JFR profile of every phase: DIR/<store>-<phase>.jfr.")
    Path jfr;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where the stores go (DIR/remixdb, DIR/rocksdb; "
            + "each must be empty or absent). Default: a temporary directory.")
    Path dir;

    @Option(names = "--keep", description = "Keep the stores' directories at the end.")
    boolean keep;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
    Path json;

    @Option(names = "--chart", paramLabel = "DIR", description = "Also draw PNG charts into DIR.")
    Path chart;

    @Option(names = "--no-progress", description = "No progress bars (CI).")
    boolean noProgress;

    /** Parses {@code argv} (db's options only) and resolves them; for tests and the child's round trip. */
    public static DbOptions parse(String... argv) {
        DbArgs a = new DbArgs();
        new CommandLine(a).parseArgs(argv);
        return a.options();
    }

    /** The validated settings; throws {@link UsageException} naming the option that is wrong and why. */
    public DbOptions options() {
        List<PhaseSpec> phaseSpecs = PhaseSpec.parseList(Check.words(phases));
        List<String> expanded = phaseSpecs.stream().map(PhaseSpec::name).toList();
        List<String> storeNames = Check.words(stores);
        if (storeNames.isEmpty()) {
            throw new UsageException("--stores needs at least one of " + String.join(", ", Store.NAMES));
        }
        for (String s : storeNames) {
            if (!Store.NAMES.contains(s)) {
                throw new UsageException("--stores: unknown store '" + s + "'; stores: "
                        + String.join(", ", Store.NAMES));
            }
        }
        if (storeNames.size() != storeNames.stream().distinct().count()) {
            throw new UsageException("--stores names a store twice: " + String.join(",", storeNames));
        }
        long keyCount = Check.range("--keys", orElse(keys, quick ? 1_000_000 : 4_000_000), 2, 1_000_000_000);
        long readCount = Check.range("--reads", orElse(reads, quick ? 500_000 : 1_000_000), 1, 10_000_000_000L);
        long seekCount = Check.range("--seeks", orElse(seeks, quick ? 500_000 : 1_000_000), 1, 10_000_000_000L);
        long scanCount = Check.range("--scans", orElse(scans, quick ? 100_000 : 200_000), 1, 10_000_000_000L);
        long writeCount = Check.range("--writes", orElse(writes, keyCount), 1, 10_000_000_000L);
        long deleteCount = Check.range("--deletes", orElse(deletes, Math.max(1, keyCount / 10)), 1, keyCount);
        int values = (int) Check.range("--value-size", valueSize, Values.MIN_BYTES, 1 << 20);
        KeyChooser.Dist d = KeyChooser.Dist.parse(dist.trim());
        if (d == null) {
            throw new UsageException("--dist must be uniform or zipf: " + dist);
        }
        if (!(zipfTheta > 0 && zipfTheta < 1)) {
            throw new UsageException("--zipf-theta must be in (0, 1): " + zipfTheta);
        }
        int threadCount = (int) Check.range("--threads", threads, 1, 256);
        int writerCount = (int) Check.range("--writers", writers, 1, 256);
        long cache = Check.range("--cache-mb", cacheMb, 0, 1 << 20);
        long remixMemtable = Check.range("--remix-memtable-mb", remixMemtableMb, 1, 1 << 16);
        long rocksWriteBuffer = Check.range("--rocks-write-buffer-mb", rocksWriteBufferMb, 1, 1 << 16);
        String heapSize = heap.trim().toLowerCase(Locale.ROOT);
        if (!heapSize.matches("[1-9][0-9]*[kmg]?")) {
            throw new UsageException("--heap must be a JVM heap size like 4g or 512m: " + heap);
        }
        String engine = ioEngine.trim().toLowerCase(Locale.ROOT).replace("-", "_");
        if (!List.of("auto", "io_uring", "filechannel").contains(engine)) {
            throw new UsageException("--io-engine must be auto, io_uring or filechannel: " + ioEngine);
        }
        String policyName = policy.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (!policyName.equals("default")) {
                dev.remixdb.compaction.CompactionPolicies.named(policyName);
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException("--policy: " + e.getMessage());
        }
        long limit = 0;
        if (memoryLimit != null) {
            limit = MemoryLimit.parseBytes(memoryLimit);
            if (limit < (64L << 20)) {
                throw new UsageException("--memory-limit must be a size like 3g, at least 64m: " + memoryLimit);
            }
        }
        return new DbOptions(List.copyOf(expanded), phaseSpecs, List.copyOf(storeNames), keyCount, readCount, seekCount,
                scanCount, writeCount, deleteCount, values, d, zipfTheta, threadCount, writerCount, seed, cache, remixMemtable,
                rocksWriteBuffer, reuseCursors, heapSize, splitJvmOpts(jvmOpts), jfr, dir, keep, json, chart,
                !noProgress, quick, engine, limit, directIo, scanViews, policyName, sync);
    }

    private static long orElse(Long given, long fallback) {
        return given != null ? given : fallback;
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
}
