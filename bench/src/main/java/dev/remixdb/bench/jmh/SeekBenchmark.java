package dev.remixdb.bench.jmh;

import dev.remixdb.bench.baseline.MergingIterator;
import dev.remixdb.bench.data.KeyFormat;
import dev.remixdb.remix.RemixCursor;
import java.lang.foreign.ValueLayout;
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
 * One seek to a random existing key, then reading that key: REMIX with full or partial in-segment
 * search (REMIX §3.2) vs a merging iterator (a binary search in every run), at H = 8 by default.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xmx1g"})
public class SeekBenchmark {
    /** "remix-full" (paper's binary search), "remix-tagseek" (tag first), "remix-partial" or "merging". */
    @Param({"remix-full", "remix-tagseek", "remix-partial", "merging"})
    public String index;

    @Param("8")
    public int runs;

    @Param("100000")
    public long keysPerRun;

    /** "weak" or "strong" (REMIX §5.1). */
    @Param("weak")
    public String locality;

    private RunsState state;
    private RemixCursor cursor;
    private MergingIterator merging;

    @Setup(Level.Trial)
    public void setUp() {
        state = new RunsState(runs, keysPerRun, locality, 32);
        switch (index) {
            case "remix-full" -> cursor = state.remix.cursor(RemixCursor.Mode.LIVE, RemixCursor.Search.FULL).tagSeek(false);
            case "remix-tagseek" -> cursor = state.remix.cursor(RemixCursor.Mode.LIVE, RemixCursor.Search.FULL);
            case "remix-partial" -> cursor = state.remix.cursor(RemixCursor.Mode.LIVE, RemixCursor.Search.PARTIAL);
            case "merging" -> merging = new MergingIterator(state.data.runs(), false);
            default -> throw new IllegalArgumentException(
                    "index must be remix-full, remix-tagseek, remix-partial or merging: " + index);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (cursor != null) {
            cursor.close();
        }
        if (merging != null) {
            merging.close();
        }
        state.close();
    }

    @Benchmark
    public long seek() {
        state.nextKey();
        if (cursor != null) {
            cursor.seek(state.key, 0, KeyFormat.KEY_BYTES);
            cursor.copyKey(state.out, 0);
        } else {
            merging.seek(state.key, 0, KeyFormat.KEY_BYTES);
            merging.copyKey(state.out, 0);
        }
        return state.out.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
    }
}
