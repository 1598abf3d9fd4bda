package dev.remixdb.bench.db;

import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.Stats;
import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.cli.Check;
import dev.remixdb.bench.cli.CountConverter;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.dbbench.DirSize;
import dev.remixdb.bench.json.Json;
import dev.remixdb.bench.json.OneLine;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code write-amp}: loads N keys in random order into RemixDB and into RocksDB, in the same
 * process, and reports the bytes each wrote to disk per user byte (REMIX §5: 4.88 for RemixDB vs
 * 25.6 for RocksDB on 256 GB). Bytes written = WAL + flushes + compactions (+ REMIX files and
 * manifests for RemixDB), all counted by the stores themselves.
 */
@Command(name = "write-amp",
        description = {"Write amplification of a random-order load, RemixDB vs RocksDB in the same run.",
                "",
                "Loads N keys (16-byte keys in random order, 120-byte values) into RemixDB and RocksDB in turn, then",
                "flushes the memtable and waits for background compaction. Reports load throughput and write",
                "amplification: (WAL + flush + compaction bytes) / (key + value bytes), with and without the WAL,",
                "and the ratio RocksDB/RemixDB. No compression on either side.",
                ""},
        optionListHeading = "Options:%n",
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class WriteAmpCommand implements Callable<Integer> {
    @Mixin
    LoadOptions load;

    @Option(names = "--table-mb", paramLabel = "N", converter = CountConverter.class,
            description = "Table / SST target size of both, MiB. Default: 64 (--quick: 4).")
    Long tableMb;

    @Option(names = "--seed", paramLabel = "N", converter = CountConverter.class, defaultValue = "42",
            description = "Seed of the values. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
    Path json;

    /** One engine's load. */
    record Result(String engine, long keys, double seconds, long userBytes, long walBytes, long flushBytes,
                  long compactionBytes, Map<String, Object> details) {
        double opsPerSecond() {
            return keys / seconds;
        }

        double writeAmplification() {
            return (double) (walBytes + flushBytes + compactionBytes) / userBytes;
        }

        double writeAmplificationNoWal() {
            return (double) (flushBytes + compactionBytes) / userBytes;
        }
    }

    @Mixin
    HelpOption help;

    @Override
    public Integer call() throws Exception {
        long keyCount = load.keyCount(1);
        long memtable = load.memtableBytes();
        long table = Check.range("--table-mb", tableMb != null ? tableMb : load.quick ? 4 : 64, 1, 65536) << 20;
        List<String> engineNames = load.engineNames();
        Path base = load.baseDir("write-amp");

        System.out.println("Write amplification of a random-order load (REMIX section 5)");
        System.out.println("machine:  " + MachineInfo.oneLine());
        System.out.printf(Locale.ROOT, "settings: %,d keys, 16 B keys, 120 B values, memtable %d MiB, tables %d MiB, "
                + "no compression%n%n", keyCount, memtable >> 20, table >> 20);
        List<Result> results = new ArrayList<>();
        try {
            for (String engine : engineNames) {
                Path engineDir = base.resolve(engine);
                Result r = engine.equals("remixdb") ? loadRemixDb(engineDir, keyCount, memtable, table, seed)
                        : loadRocksDb(engineDir, keyCount, memtable, table, seed);
                results.add(r);
                DirSize.delete(engineDir);
            }
        } finally {
            load.deleteBaseIfTemporary(base);
        }
        print(results);
        if (json != null) {
            writeJson(json, keyCount, memtable, table, seed, results);
        }
        return 0;
    }

    /** Key i: a 64-bit bijective mix of i, so the load order is random, then i itself. */
    static void key(long i, byte[] out) {
        long h = mix(i);
        for (int b = 0; b < 8; b++) {
            out[b] = (byte) (h >>> (56 - 8 * b));
            out[8 + b] = (byte) (i >>> (56 - 8 * b));
        }
    }

    static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }

    static void value(long i, long seed, byte[] out) {
        long x = mix(i ^ seed);
        for (int b = 0; b < out.length; b++) {
            if ((b & 7) == 0) {
                x = mix(x + b);
            }
            out[b] = (byte) (x >>> (8 * (b & 7)));
        }
    }

    private static Result loadRemixDb(Path dir, long keys, long memtable, long table, long seed) throws Exception {
        Options options = Options.builder().memtableBytes(memtable).tableBytes(table).build();
        long t0 = System.nanoTime();
        try (RemixDB db = RemixDB.open(dir, options)) {
            LoadOptions.load(db::put, keys, seed);
            db.compactMemtable();
            double seconds = (System.nanoTime() - t0) / 1e9;
            Stats s = db.stats();
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("partitions", s.partitions());
            details.put("tables", s.tables());
            details.put("minor", s.compactions().minor());
            details.put("major", s.compactions().major());
            details.put("split", s.compactions().split());
            details.put("abort", s.compactions().abort());
            details.put("stallSeconds", s.stallNanos() / 1e9);
            details.put("slowdownSeconds", s.slowdownNanos() / 1e9);
            details.put("diskBytes", s.diskBytes());
            System.out.printf(Locale.ROOT, "remixdb: %d partitions, %d tables; compactions minor %d, major %d, split %d, "
                            + "abort %d; stalled %.1f s%n", s.partitions(), s.tables(), s.compactions().minor(),
                    s.compactions().major(), s.compactions().split(), s.compactions().abort(), s.stallNanos() / 1e9);
            // Tables, REMIX files and manifests are all written by compaction (a flush is a minor
            // compaction here), so they are reported as compaction bytes.
            return new Result("remixdb", keys, seconds, s.userBytesWritten(), s.walBytesWritten(), 0,
                    s.tableBytesWritten() + s.manifestBytesWritten(), details);
        }
    }

    private static Result loadRocksDb(Path dir, long keys, long memtable, long table, long seed) throws Exception {
        RocksDB.loadLibrary();
        Files.createDirectories(dir);
        try (Statistics stats = new Statistics();
             org.rocksdb.Options options = new org.rocksdb.Options()
                     .setCreateIfMissing(true)
                     .setStatistics(stats)
                     .setWriteBufferSize(memtable)
                     .setTargetFileSizeBase(table)
                     // RocksDB's default L1 size is 4 memtables' worth (256 MiB for 64 MiB buffers).
                     .setMaxBytesForLevelBase(4 * memtable)
                     .setCompressionType(CompressionType.NO_COMPRESSION)
                     .setMaxBackgroundJobs(2);
             WriteOptions write = new WriteOptions();
             RocksDB db = RocksDB.open(options, dir.toString())) {
            long t0 = System.nanoTime();
            LoadOptions.load((k, v) -> db.put(write, k, v), keys, seed);
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush);
            }
            waitForCompactions(db);
            double seconds = (System.nanoTime() - t0) / 1e9;
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("levels", db.getProperty("rocksdb.levelstats"));
            System.out.println("rocksdb: " + db.getProperty("rocksdb.num-files-at-level0") + " L0 files; "
                    + "live data " + db.getProperty("rocksdb.live-sst-files-size") + " bytes");
            return new Result("rocksdb", keys, seconds, keys * (16 + 120),
                    stats.getTickerCount(TickerType.WAL_FILE_BYTES), stats.getTickerCount(TickerType.FLUSH_WRITE_BYTES),
                    stats.getTickerCount(TickerType.COMPACT_WRITE_BYTES), details);
        }
    }

    private static void waitForCompactions(RocksDB db) throws RocksDBException, InterruptedException {
        for (;;) {
            long pending = db.getLongProperty("rocksdb.compaction-pending");
            long running = db.getLongProperty("rocksdb.num-running-compactions");
            long flushes = db.getLongProperty("rocksdb.num-running-flushes");
            if (pending == 0 && running == 0 && flushes == 0) {
                return;
            }
            Thread.sleep(100);
        }
    }

    private static void print(List<Result> results) {
        System.out.println();
        String row = "%-8s %10s %12s %10s %10s %12s %9s %12s%n";
        System.out.printf(row, "engine", "load s", "ops/s", "WAL MiB", "flush MiB", "compact MiB", "WA", "WA w/o WAL");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, row, r.engine(), String.format(Locale.ROOT, "%.1f", r.seconds()),
                    String.format(Locale.ROOT, "%,.0f", r.opsPerSecond()), mib(r.walBytes()), mib(r.flushBytes()),
                    mib(r.compactionBytes()), String.format(Locale.ROOT, "%.2f", r.writeAmplification()),
                    String.format(Locale.ROOT, "%.2f", r.writeAmplificationNoWal()));
        }
        Result remix = find(results, "remixdb");
        Result rocks = find(results, "rocksdb");
        if (remix != null && rocks != null) {
            System.out.printf(Locale.ROOT, "%nRocksDB/RemixDB write amplification: %.2fx (without WAL %.2fx); "
                            + "RemixDB/RocksDB load throughput: %.2fx%n",
                    rocks.writeAmplification() / remix.writeAmplification(),
                    rocks.writeAmplificationNoWal() / remix.writeAmplificationNoWal(),
                    remix.opsPerSecond() / rocks.opsPerSecond());
        }
    }

    private static Result find(List<Result> results, String engine) {
        return results.stream().filter(r -> r.engine().equals(engine)).findFirst().orElse(null);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%,.1f", bytes / 1048576.0);
    }

    /** The JSON file; its components are its fields, in order. */
    record Report(String benchmark, String date, @OneLine Map<String, Object> machine, long keys, int keyBytes,
                  int valueBytes, long memtableBytes, long tableBytes, long seed, List<Row> results) {}

    /** One engine's load in the JSON. */
    record Row(String engine, double seconds, double opsPerSecond, long userBytes, long walBytes, long flushBytes,
               long compactionBytes, double writeAmplification, double writeAmplificationWithoutWal,
               Map<String, Object> details) {}

    private static void writeJson(Path file, long keys, long memtable, long table, long seed, List<Result> results)
            throws IOException {
        List<Row> rows = results.stream().map(r -> new Row(r.engine(), r.seconds(), r.opsPerSecond(), r.userBytes(),
                r.walBytes(), r.flushBytes(), r.compactionBytes(), r.writeAmplification(), r.writeAmplificationNoWal(),
                r.details())).toList();
        Json.writeReport(file, new Report("write-amp", Instant.now().toString(), MachineInfo.describe(), keys, 16, 120,
                memtable, table, seed, rows));
    }
}
