package dev.remixdb.bench.db;

import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.cli.Check;
import dev.remixdb.bench.cli.CountConverter;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.dbbench.DirSize;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;
import org.rocksdb.WriteOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/**
 * {@code delete-range}: deleting a tenth of a loaded store's keys (one contiguous key range) with one
 * range delete, against deleting the same keys one by one, on RemixDB and on RocksDB in the same
 * run. Per store and method it reports the time of the deletes, the bytes written by them and by
 * the compaction of the range afterwards, and seek+next50 throughput with seeks into the deleted
 * range (each must land past it) before and after that compaction.
 */
@Command(name = "delete-range",
        description = {"A range delete of 10%% of the keys vs as many single deletes, RemixDB and RocksDB in one run.",
                "",
                "Loads N keys (16-byte keys in random order, 120-byte values); deletes the keys of one contiguous",
                "tenth of the key space, either with one range delete or one delete per key (found by a scan first,",
                "not timed); then seek+next50 into the deleted range, a compaction of the range, and the seeks again.",
                "Each method runs on a freshly loaded store. No compression on either side.",
                ""},
        optionListHeading = "Options:%n",
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class DeleteRangeCommand implements Callable<Integer> {
    @Mixin
    LoadOptions load;

    @Option(names = "--seeks", paramLabel = "N", converter = CountConverter.class, defaultValue = "20000",
            description = "seek+next50 operations per measurement. Default: ${DEFAULT-VALUE}.")
    long seeks;

    @Option(names = "--methods", paramLabel = "LIST", split = ",", hideParamSyntax = true, defaultValue = "range,single",
            description = "Delete methods to run, in this order. Default: ${DEFAULT-VALUE}.")
    List<String> methods;

    @Mixin
    HelpOption help;

    /** The deleted range: keys whose first byte is below this (about a tenth, the first 8 bytes being a hash). */
    private static final int RANGE_END_BYTE = 0x1A;

    /** One store and method, as measured. */
    record Result(String engine, String method, long deleted, double deleteSeconds, long deleteBytes,
                  double seekBefore, double compactSeconds, long compactBytes, double seekAfter) {}

    /** What the command needs of a store. */
    interface Engine extends AutoCloseable {
        void put(byte[] k, byte[] v) throws Exception;

        void delete(byte[] k) throws Exception;

        void deleteRange(byte[] from, byte[] to) throws Exception;

        /** Keys in [from, to), in order. */
        List<byte[]> keys(byte[] from, byte[] to) throws Exception;

        /** Seeks to {@code k} and steps 50 times; returns the first key found (null: none). */
        byte[] seekNext(byte[] k, int n) throws Exception;

        /** Flushes and compacts [from, to) now. */
        void compact(byte[] from, byte[] to) throws Exception;

        /** Bytes the store has written so far (WAL and files). */
        long bytesWritten() throws Exception;

        /** A line about the store's files, for the log. */
        default String shape() throws Exception {
            return "";
        }
    }

    @Override
    public Integer call() throws Exception {
        long keyCount = load.keyCount(1000);
        long memtable = load.memtableBytes();
        Check.range("--seeks", seeks, 1, 100_000_000);
        List<String> engineNames = load.engineNames();
        Path base = load.baseDir("delete-range");
        System.out.println("Range delete vs single deletes");
        System.out.println("machine:  " + MachineInfo.oneLine());
        System.out.printf(Locale.ROOT, "settings: %,d keys, 16 B keys, 120 B values, memtable %d MiB, %,d seeks, dir %s%n%n",
                keyCount, memtable >> 20, seeks, base);
        byte[] from = new byte[0];
        byte[] to = {(byte) RANGE_END_BYTE};
        List<Result> results = new ArrayList<>();
        try {
            for (String name : engineNames) {
                for (String method : Check.words(methods)) {
                    Path storeDir = base.resolve(name + "-" + method);
                    try (Engine e = name.equals("remixdb") ? remix(storeDir, memtable) : rocks(storeDir, memtable)) {
                        LoadOptions.load(e::put, keyCount, 3);
                        e.compact(null, null);
                        warmUp(e);
                        List<byte[]> victims = e.keys(from, to);
                        long w0 = e.bytesWritten();
                        long t0 = System.nanoTime();
                        if (method.equals("range")) {
                            e.deleteRange(from, to);
                        } else {
                            for (byte[] k : victims) {
                                e.delete(k);
                            }
                        }
                        double deleteSeconds = (System.nanoTime() - t0) / 1e9;
                        long deleteBytes = e.bytesWritten() - w0;
                        double before = seekRate(e, to);
                        long w1 = e.bytesWritten();
                        long t1 = System.nanoTime();
                        e.compact(from, to);
                        double compactSeconds = (System.nanoTime() - t1) / 1e9;
                        long compactBytes = e.bytesWritten() - w1;
                        double after = seekRate(e, to);
                        System.out.println("  " + name + " " + method + " after compaction: " + e.shape());
                        if (!e.keys(from, to).isEmpty()) {
                            throw new IllegalStateException(name + " " + method + ": keys left in the deleted range");
                        }
                        Result r = new Result(name, method, victims.size(), deleteSeconds, deleteBytes, before,
                                compactSeconds, compactBytes, after);
                        System.out.println(r);
                        results.add(r);
                    }
                    DirSize.delete(storeDir);
                }
            }
        } finally {
            load.deleteBaseIfTemporary(base);
        }
        print(results);
        return 0;
    }

    /** seek+next50 over the whole key space, unmeasured: the JIT and the cache warm up alike for every run. */
    private void warmUp(Engine e) throws Exception {
        SplittableRandom r = new SplittableRandom(5);
        byte[] k = new byte[16];
        for (long i = 0; i < seeks; i++) {
            r.nextBytes(k);
            e.seekNext(k, 50);
        }
    }

    /**
     * seek+next50 per second with seeks to random points of the deleted range (at most --seeks of
     * them, for at most 10 s): each must land on the first key past it ({@code end} or above).
     */
    private double seekRate(Engine e, byte[] end) throws Exception {
        SplittableRandom r = new SplittableRandom(11);
        byte[] k = new byte[16];
        long t0 = System.nanoTime();
        long deadline = t0 + 10_000_000_000L;
        long i = 0;
        // At most --seeks, and at most 10 s: over single deletes, each seek walks the deleted keys.
        for (; i < seeks && (i % 64 != 0 || System.nanoTime() < deadline); i++) {
            r.nextBytes(k);
            k[0] = (byte) r.nextInt(RANGE_END_BYTE);
            byte[] found = e.seekNext(k, 50);
            if (found == null || java.util.Arrays.compareUnsigned(found, end) < 0) {
                throw new IllegalStateException("a seek into the deleted range found a deleted key");
            }
        }
        return i / ((System.nanoTime() - t0) / 1e9);
    }

    private static Engine remix(Path dir, long memtable) throws IOException {
        RemixDB db = RemixDB.open(dir, Options.builder().memtableBytes(memtable).tableBytes(memtable).build());
        return new Engine() {
            @Override
            public void put(byte[] k, byte[] v) throws IOException {
                db.put(k, v);
            }

            @Override
            public void delete(byte[] k) throws IOException {
                db.delete(k);
            }

            @Override
            public void deleteRange(byte[] from, byte[] to) throws IOException {
                db.deleteRange(from, to);
            }

            @Override
            public List<byte[]> keys(byte[] from, byte[] to) {
                List<byte[]> out = new ArrayList<>();
                try (Cursor c = db.cursor(from, to)) {
                    for (c.seekToFirst(); c.isValid(); c.next()) {
                        out.add(c.key());
                    }
                }
                return out;
            }

            @Override
            public byte[] seekNext(byte[] k, int n) {
                try (Cursor c = db.cursor()) {
                    c.seek(k);
                    byte[] first = c.isValid() ? c.key() : null;
                    for (int i = 0; i < n && c.isValid(); i++) {
                        c.valueView();
                        c.next();
                    }
                    return first;
                }
            }

            @Override
            public void compact(byte[] from, byte[] to) throws IOException, InterruptedException {
                db.compactRange(from, to);
            }

            @Override
            public long bytesWritten() {
                var s = db.stats();
                return s.walBytesWritten() + s.tableBytesWritten() + s.manifestBytesWritten();
            }

            @Override
            public String shape() {
                var s = db.stats();
                return s.partitions() + " partitions, " + s.tables() + " tables";
            }

            @Override
            public void close() throws IOException {
                db.close();
            }
        };
    }

    private static Engine rocks(Path dir, long memtable) throws Exception {
        RocksDB.loadLibrary();
        Files.createDirectories(dir);
        Statistics stats = new Statistics();
        org.rocksdb.Options options = new org.rocksdb.Options()
                .setCreateIfMissing(true)
                .setStatistics(stats)
                .setWriteBufferSize(memtable)
                .setTargetFileSizeBase(memtable)
                .setMaxBytesForLevelBase(4 * memtable)
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setMaxBackgroundJobs(2);
        WriteOptions write = new WriteOptions();
        RocksDB db = RocksDB.open(options, dir.toString());
        return new Engine() {
            @Override
            public void put(byte[] k, byte[] v) throws Exception {
                db.put(write, k, v);
            }

            @Override
            public void delete(byte[] k) throws Exception {
                db.delete(write, k);
            }

            @Override
            public void deleteRange(byte[] from, byte[] to) throws Exception {
                db.deleteRange(write, from, to);
            }

            @Override
            public List<byte[]> keys(byte[] from, byte[] to) {
                List<byte[]> out = new ArrayList<>();
                try (RocksIterator it = db.newIterator()) {
                    for (it.seek(from); it.isValid() && java.util.Arrays.compareUnsigned(it.key(), to) < 0; it.next()) {
                        out.add(it.key());
                    }
                }
                return out;
            }

            @Override
            public byte[] seekNext(byte[] k, int n) {
                try (RocksIterator it = db.newIterator()) {
                    it.seek(k);
                    byte[] first = it.isValid() ? it.key() : null;
                    for (int i = 0; i < n && it.isValid(); i++) {
                        it.value();
                        it.next();
                    }
                    return first;
                }
            }

            @Override
            public void compact(byte[] from, byte[] to) throws Exception {
                try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
                    db.flush(f);
                }
                if (from == null) {
                    db.compactRange();
                } else {
                    db.compactRange(from, to);
                }
            }

            @Override
            public long bytesWritten() {
                return stats.getTickerCount(TickerType.WAL_FILE_BYTES) + stats.getTickerCount(TickerType.FLUSH_WRITE_BYTES)
                        + stats.getTickerCount(TickerType.COMPACT_WRITE_BYTES);
            }

            @Override
            public void close() {
                db.close();
                write.close();
                options.close();
                stats.close();
            }
        };
    }

    private static void print(List<Result> results) {
        System.out.println();
        String row = "%-8s %-7s %10s %10s %12s %14s %11s %12s %14s%n";
        System.out.printf(row, "engine", "method", "deleted", "delete s", "delete MiB", "seek50/s before", "compact s",
                "compact MiB", "seek50/s after");
        for (Result r : results) {
            System.out.printf(Locale.ROOT, row, r.engine(), r.method(), String.format(Locale.ROOT, "%,d", r.deleted()),
                    String.format(Locale.ROOT, "%.3f", r.deleteSeconds()),
                    String.format(Locale.ROOT, "%.1f", r.deleteBytes() / 1048576.0),
                    String.format(Locale.ROOT, "%,.0f", r.seekBefore()),
                    String.format(Locale.ROOT, "%.2f", r.compactSeconds()),
                    String.format(Locale.ROOT, "%.1f", r.compactBytes() / 1048576.0),
                    String.format(Locale.ROOT, "%,.0f", r.seekAfter()));
        }
        Result rr = find(results, "remixdb", "range");
        Result rs = find(results, "remixdb", "single");
        Result kr = find(results, "rocksdb", "range");
        if (rr != null && rs != null) {
            System.out.printf(Locale.ROOT, "%nRemixDB range vs single deletes: %.0fx faster to delete, seek+next50 before"
                    + " compaction %.2fx%n", rs.deleteSeconds() / rr.deleteSeconds(), rr.seekBefore() / rs.seekBefore());
        }
        if (rr != null && kr != null) {
            System.out.printf(Locale.ROOT, "RemixDB/RocksDB with a range delete: seek+next50 before compaction %.2fx,"
                    + " after %.2fx; compaction bytes %.2fx%n", rr.seekBefore() / kr.seekBefore(),
                    rr.seekAfter() / kr.seekAfter(), (double) rr.compactBytes() / Math.max(1, kr.compactBytes()));
        }
    }

    private static Result find(List<Result> rs, String engine, String method) {
        return rs.stream().filter(r -> r.engine().equals(engine) && r.method().equals(method)).findFirst().orElse(null);
    }
}
