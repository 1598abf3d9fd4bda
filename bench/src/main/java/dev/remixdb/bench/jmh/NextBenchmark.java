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
 * One step of a scan, reading the key reached: REMIX next (selectors only, no key comparison,
 * REMIX §3.3) vs merging-iterator next (a heap sift that compares keys of several runs), at
 * H = 1, 4, 8 and 16. At the end of the data the iterator seeks back to a random key (rare: once per dataset).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Xmx1g"})
public class NextBenchmark {
    /** "remix" or "merging". */
    @Param({"remix", "merging"})
    public String index;

    @Param({"1", "4", "8", "16"})
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
            case "remix" -> cursor = state.remix.cursor(RemixCursor.Mode.LIVE, RemixCursor.Search.FULL);
            case "merging" -> merging = new MergingIterator(state.data.runs(), false);
            default -> throw new IllegalArgumentException("index must be remix or merging: " + index);
        }
        restart();
    }

    private void restart() {
        state.nextKey();
        if (cursor != null) {
            cursor.seek(state.key, 0, KeyFormat.KEY_BYTES);
        } else {
            merging.seek(state.key, 0, KeyFormat.KEY_BYTES);
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
    public long next() {
        if (cursor != null) {
            cursor.next();
            if (!cursor.isValid()) {
                restart();
            }
            cursor.copyKey(state.out, 0);
        } else {
            merging.next();
            if (!merging.isValid()) {
                restart();
            }
            merging.copyKey(state.out, 0);
        }
        return state.out.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
    }
}
