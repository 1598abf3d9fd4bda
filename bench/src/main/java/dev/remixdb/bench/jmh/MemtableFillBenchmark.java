package dev.remixdb.bench.jmh;

import dev.remixdb.memtable.Memtable;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Filling an empty memtable with {@code entries} random keys (16 bytes, 120-byte values: micro1's
 * shape), as a restore or an import does (issue 14): one insert at a time, the point index off as
 * for unlogged writes ({@code insert}), against {@link Memtable#addDeferred} of all of them and one
 * {@link Memtable#linkDeferred} ({@code deferred}). One operation is a whole memtable, memory faults
 * included; divide by {@code entries} for the cost per entry. 120k entries is a 16 MiB memtable
 * (the Kafka store's), 470k a 64 MiB one (the engine's default).
 *
 * <pre>
 * bench/run jmh MemtableFillBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xmx2g", "-XX:+UseParallelGC"})
public class MemtableFillBenchmark {
    @Param({"120000", "470000"})
    public int entries;

    private byte[][] keys;
    private final byte[] value = new byte[120];

    @Setup(Level.Trial)
    public void keys() {
        SplittableRandom random = new SplittableRandom(7);
        keys = new byte[entries][16];
        for (byte[] k : keys) {
            random.nextBytes(k);
        }
    }

    @Benchmark
    public long insert() {
        try (Memtable m = new Memtable()) {
            m.stopPointIndex();
            for (int i = 0; i < keys.length; i++) {
                m.add(i + 1, keys[i], value);
            }
            return m.entryCount();
        }
    }

    @Benchmark
    public long deferred() {
        try (Memtable m = new Memtable()) {
            m.stopPointIndex();
            for (byte[] k : keys) {
                m.addDeferred(k, value);
            }
            m.linkDeferred(1);
            return m.entryCount();
        }
    }
}
