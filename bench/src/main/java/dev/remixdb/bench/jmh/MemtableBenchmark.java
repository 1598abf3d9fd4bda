package dev.remixdb.bench.jmh;

import dev.remixdb.memtable.Memtable;
import dev.remixdb.memtable.MemtableCursor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
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
 * The memtable's ordered index, the tree against the skip list it replaced (issue 14): an insert of
 * a new random key, a point get, a cursor seek, and one cursor step, in a memtable that holds
 * {@code entries} entries already. Keys are 16 hex characters of a random long (micro1's shape),
 * values 8 bytes. The inserts go on from the loaded size, so "1M" measures inserts into 1M and more.
 *
 * <pre>
 * bench/run jmh MemtableBenchmark                       # both indexes, 1M and 8M entries
 * bench/run jmh MemtableBenchmark -p entries=1000000 -p kind=TREE
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xmx2g"})
public class MemtableBenchmark {
    private static final byte[] HEX = "0123456789abcdef".getBytes();

    @Param({"TREE", "SKIP_LIST"})
    public Memtable.IndexKind kind;

    @Param({"1000000", "8000000"})
    public int entries;

    private Memtable memtable;
    private MemtableCursor cursor;
    private long[] loaded;
    private SplittableRandom random;
    private long seq;
    private final byte[] key = new byte[16];
    private final MemorySegment keySegment = MemorySegment.ofArray(key);
    private final byte[] value = new byte[8];

    @Setup(Level.Trial)
    public void load() {
        memtable = new Memtable(Memtable.DEFAULT_CHUNK_SIZE, kind);
        random = new SplittableRandom(7);
        loaded = new long[entries];
        for (int i = 0; i < entries; i++) {
            loaded[i] = random.nextLong();
            put(loaded[i]);
        }
        cursor = memtable.cursor(Long.MAX_VALUE);
        cursor.seekToFirst();
    }

    @TearDown(Level.Trial)
    public void close() {
        cursor.close();
        memtable.close();
    }

    private void hex(long k) {
        for (int i = 0; i < 16; i++) {
            key[i] = HEX[(int) (k >>> (60 - 4 * i)) & 15];
        }
    }

    private void put(long k) {
        hex(k);
        value[0] = (byte) seq;
        memtable.add(++seq, key, value);
    }

    @Benchmark
    public long insert() {
        put(random.nextLong());
        return seq;
    }

    @Benchmark
    public long get() {
        hex(loaded[random.nextInt(loaded.length)]);
        return memtable.find(keySegment, 0, 16, Long.MAX_VALUE);
    }

    @Benchmark
    public long seek() {
        hex(loaded[random.nextInt(loaded.length)]);
        cursor.seek(keySegment, 0, 16);
        return cursor.isValid() ? cursor.valueSegment().get(ValueLayout.JAVA_BYTE, cursor.valueOffset()) : -1;
    }

    @Benchmark
    public long next() {
        cursor.next();
        if (!cursor.isValid()) {
            cursor.seekToFirst();
        }
        MemorySegment k = cursor.keySegment();
        return k.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), cursor.keyOffset());
    }

    @Benchmark
    public long prev() {
        cursor.prev();
        if (!cursor.isValid()) {
            cursor.seekToLast();
        }
        MemorySegment k = cursor.keySegment();
        return k.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), cursor.keyOffset());
    }
}
