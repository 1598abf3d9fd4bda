package dev.remixdb.bench.jmh;

import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.bench.dbbench.DirSize;
import dev.remixdb.compaction.CompactionPlan;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A user's cursor over the whole engine: one partition of {@code runs} sorted runs (every key in one
 * run, runs chosen at random: the REMIX paper's weak locality), with or without a memtable holding
 * every 16th key again, read by copies ({@code key()}, {@code value()}) or by views
 * ({@code keyView()}, {@code valueView()}), with 120-byte values (or {@code -p valueBytes=1000}), about
 * 136 MiB in all, cached. {@code next} is one step; {@code seekNext50} a seek and
 * 50 steps, the db benchmark's seeknext50 without its checks; {@code prev} and {@code seekPrev50}
 * the same backwards. Compare with {@link NextBenchmark},
 * the REMIX and the merging iterator alone over the same kind of runs.
 *
 * <pre>
 * bench/run jmh StoreScanBenchmark
 * bench/run jmh StoreScanBenchmark -p runs=8 -p memtable=none
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xmx2g"})
public class StoreScanBenchmark {
    /** About 136 MiB of keys and values whatever the value size, so that every size fits the cache alike. */
    private static final long DATA_BYTES = 136L << 20;

    @Param({"1", "4", "8", "16"})
    public int runs;

    /** "none": nothing in the memtable; "overlap": every 16th key written again after the runs. */
    @Param({"none", "overlap"})
    public String memtable;

    /** "copy" ({@code key()}/{@code value()}) or "view" ({@code keyView()}/{@code valueView()}). */
    @Param({"copy", "view"})
    public String access;

    /** Value size in bytes: 120 as in the db benchmark's micro1, 1000 as in YCSB. */
    @Param({"120"})
    public int valueBytes;

    private int keys;

    private Path dir;
    private RemixDB db;
    private Cursor cursor;
    private boolean views;
    private final SplittableRandom random = new SplittableRandom(11);
    private final byte[] probe = new byte[16];

    @Setup(Level.Trial)
    public void build() throws Exception {
        views = switch (access) {
            case "copy" -> false;
            case "view" -> true;
            default -> throw new IllegalArgumentException("access must be copy or view: " + access);
        };
        dir = Files.createTempDirectory("store-scan-");
        // Every flush becomes a new run of the one partition: the run count is the parameter's.
        Options options = Options.builder().memtableBytes(512L << 20).blockCacheBytes(1L << 30).syncWrites(false)
                .tableBytes(1L << 30).compactionPolicy(p -> new CompactionPlan.Minor()).build();
        db = RemixDB.open(dir, options);
        keys = (int) (DATA_BYTES / (16 + valueBytes));
        byte[] value = new byte[valueBytes];
        SplittableRandom r = new SplittableRandom(5);
        int[] runOf = new int[keys];
        for (int i = 0; i < keys; i++) {
            runOf[i] = r.nextInt(runs);
        }
        byte[] key = new byte[16];
        for (int run = 0; run < runs; run++) {
            for (int i = 0; i < keys; i++) {
                if (runOf[i] == run) {
                    hex(i, key);
                    r.nextBytes(value);
                    db.put(key, value);
                }
            }
            db.compactMemtable();
        }
        switch (memtable) {
            case "none" -> { }
            case "overlap" -> {
                for (int i = 0; i < keys; i += 16) {
                    hex(i, key);
                    r.nextBytes(value);
                    db.put(key, value);
                }
            }
            default -> throw new IllegalArgumentException("memtable must be none or overlap: " + memtable);
        }
        if (db.stats().partitions() != 1 || db.stats().tables() != runs) {
            throw new IllegalStateException("expected 1 partition of " + runs + " runs, got " + db.stats());
        }
        cursor = db.cursor();
        // Warm the cache: one pass over everything.
        for (cursor.seekToFirst(); cursor.isValid(); cursor.next()) {
            cursor.valueView();
        }
        cursor.seekToFirst();
    }

    private static void hex(long n, byte[] out) {
        long z = n * 0x9E37_79B9_7F4A_7C15L;  // spread, so that key order is not insertion order
        for (int i = 15; i >= 0; i--) {
            out[i] = (byte) "0123456789abcdef".charAt((int) (z & 15));
            z >>>= 4;
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        cursor.close();
        db.close();
        DirSize.delete(dir);
    }

    private long read() {
        if (views) {
            MemorySegment k = cursor.keyView();
            MemorySegment v = cursor.valueView();
            return k.get(ValueLayout.JAVA_BYTE, 15) + v.get(ValueLayout.JAVA_BYTE, valueBytes - 1);
        }
        return cursor.key()[15] + cursor.value()[valueBytes - 1];
    }

    @Benchmark
    public long next() {
        cursor.next();
        if (!cursor.isValid()) {
            cursor.seekToFirst();
        }
        return read();
    }

    @Benchmark
    public long seekNext50() {
        hex(random.nextInt(keys), probe);
        cursor.seek(probe);
        long sum = 0;
        for (int i = 0; i < 50 && cursor.isValid(); i++) {
            sum += read();
            cursor.next();
        }
        return sum;
    }

    @Benchmark
    public long prev() {
        cursor.prev();
        if (!cursor.isValid()) {
            cursor.seekToLast();
        }
        return read();
    }

    @Benchmark
    public long seekPrev50() {
        hex(random.nextInt(keys), probe);
        cursor.seekForPrev(probe);
        long sum = 0;
        for (int i = 0; i < 50 && cursor.isValid(); i++) {
            sum += read();
            cursor.prev();
        }
        return sum;
    }
}
