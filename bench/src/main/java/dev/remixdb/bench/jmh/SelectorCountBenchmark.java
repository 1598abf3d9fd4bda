package dev.remixdb.bench.jmh;

import dev.remixdb.remix.SelectorCounter;
import dev.remixdb.remix.SelectorCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * The innermost loop of a REMIX search (REMIX §3.2): counting a run's selectors in a segment prefix,
 * and matching hash tags for a point lookup, scalar (SWAR) vs the Vector API. Selectors are those of
 * H = 8 runs, random as in a weak-locality segment; each call takes the next of 4096 segments.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class SelectorCountBenchmark {
    private static final int SEGMENTS = 4096;
    private static final int MAX_D = 64;
    private static final int RUNS = 8;

    /** Which implementation: "scalar" or "vector". */
    @Param({"scalar", "vector"})
    public String impl;

    /** Selectors counted per call: a whole segment of D = 16, 32 or 64 slots. */
    @Param({"16", "32", "64"})
    public int slots;

    private SelectorCounter counter;
    private Arena arena;
    private MemorySegment selectors;
    private MemorySegment tags;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        counter = switch (impl) {
            case "scalar" -> SelectorCounters.scalar();
            case "vector" -> SelectorCounters.vector().orElseThrow(() -> new IllegalStateException(
                    "the Vector API is not available: run the JVM with --add-modules jdk.incubator.vector"));
            default -> throw new IllegalArgumentException("impl must be scalar or vector: " + impl);
        };
        arena = Arena.ofConfined();
        selectors = arena.allocate((long) SEGMENTS * MAX_D, 64);
        tags = arena.allocate((long) SEGMENTS * MAX_D, 64);
        SplittableRandom rnd = new SplittableRandom(42);
        for (long i = 0; i < selectors.byteSize(); i++) {
            selectors.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt(RUNS));
            tags.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt(256));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** Occurrences of one run's selector in a segment prefix. */
    @Benchmark
    public int count() {
        int s = next++ & (SEGMENTS - 1);
        return counter.count(selectors, (long) s * MAX_D, slots, s & (RUNS - 1));
    }

    /** Slots of a segment prefix whose tag matches (and that are newest versions). */
    @Benchmark
    public long matchTags() {
        int s = next++ & (SEGMENTS - 1);
        return counter.matchTags(selectors, (long) s * MAX_D, tags, (long) s * MAX_D, slots, (byte) s);
    }
}
