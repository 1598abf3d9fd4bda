package dev.remixdb.bench.micro;

import dev.remixdb.bench.data.KeyFormat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The timed loop: draws uniformly random existing keys, runs one operation per key, and counts
 * operations until the time is up (checking the clock every {@link #BATCH} operations). What each
 * operation copies out is folded into a checksum that is published, so the JIT cannot drop any work.
 */
final class Meter {
    static final int BATCH = 64;
    /** Relative difference of two warm-up slices taken as stable. */
    static final double STABLE = 0.05;
    /** Longest warm-up, in multiples of the minimum. */
    static final int MAX_WARMUP = 8;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Published checksum of all measured work; read it to keep it alive. */
    static volatile long sink;

    /** Operations done in a time. */
    record Measurement(long ops, long nanos) {
        double opsPerSec() {
            return nanos == 0 ? 0 : ops * 1e9 / nanos;
        }
    }

    private Meter() {}

    /**
     * Warms up like the paper's "run until the throughput reading is stable": runs slices of a quarter
     * of {@code minNanos} until at least {@code minNanos} have passed, the JIT finished no compilation
     * during the last two slices, and the last two slices agree within {@link #STABLE}; or until
     * {@link #MAX_WARMUP} times {@code minNanos} have passed. (Without the JIT check, code still
     * running in a lower tier, waiting for its C2 compilation, would look stable.)
     */
    static void warmUp(Target target, Phase phase, KeyFormat keyFormat, KeyStream keys,
                       MemorySegment key, MemorySegment out, long minNanos) {
        long slice = Math.max(10_000_000L, minNanos / 4);
        long spent = 0;
        double last = 0;
        long jit = compileMillis();
        int quietSlices = 0;
        while (true) {
            Measurement m = run(target, phase, keyFormat, keys, key, out, slice);
            spent += m.nanos();
            double rate = m.opsPerSec();
            long jitNow = compileMillis();
            quietSlices = jitNow == jit ? quietSlices + 1 : 0;
            jit = jitNow;
            if (spent >= minNanos && quietSlices >= 2 && Math.abs(rate - last) <= STABLE * Math.max(rate, last)) {
                return;
            }
            if (spent >= MAX_WARMUP * minNanos) {
                return;
            }
            last = rate;
        }
    }

    /**
     * Measures for about {@code nanos} ns in {@code samples} equal slices and reports the median
     * slice's rate, so that a short burst of other load on the machine does not move the result.
     */
    static Sampled measure(Target target, Phase phase, KeyFormat keyFormat, KeyStream keys,
                           MemorySegment key, MemorySegment out, long nanos, int samples) {
        double[] rates = new double[samples];
        long ops = 0;
        long spent = 0;
        for (int i = 0; i < samples; i++) {
            Measurement m = run(target, phase, keyFormat, keys, key, out, Math.max(1, nanos / samples));
            rates[i] = m.opsPerSec();
            ops += m.ops();
            spent += m.nanos();
        }
        java.util.Arrays.sort(rates);
        double median = samples % 2 == 1 ? rates[samples / 2] : (rates[samples / 2 - 1] + rates[samples / 2]) / 2;
        return new Sampled(median, rates[0], rates[samples - 1], ops, spent);
    }

    /** The median, lowest and highest slice rates of a measurement, and its totals. */
    record Sampled(double opsPerSec, double minOpsPerSec, double maxOpsPerSec, long ops, long nanos) {}

    private static long compileMillis() {
        java.lang.management.CompilationMXBean c = java.lang.management.ManagementFactory.getCompilationMXBean();
        return c != null && c.isCompilationTimeMonitoringSupported() ? c.getTotalCompilationTime() : 0;
    }

    /** Runs {@code phase} on {@code target} for about {@code nanos} ns (at least one batch). */
    static Measurement run(Target target, Phase phase, KeyFormat keyFormat, KeyStream keys,
                           MemorySegment key, MemorySegment out, long nanos) {
        long sum = 0;
        long ops = 0;
        long start = System.nanoTime();
        long deadline = start + nanos;
        long now;
        do {
            switch (phase) {
                case SEEK -> {
                    for (int i = 0; i < BATCH; i++) {
                        keyFormat.writeKey(key, 0, keys.next());
                        sum += target.seek(key, KeyFormat.KEY_BYTES, out) + out.get(LONG, 8);
                    }
                }
                case SEEK_NEXT50 -> {
                    for (int i = 0; i < BATCH; i++) {
                        keyFormat.writeKey(key, 0, keys.next());
                        sum += target.seekNext(key, KeyFormat.KEY_BYTES, Phase.SCAN_LENGTH, out) + out.get(LONG, 8);
                    }
                }
                case GET -> {
                    for (int i = 0; i < BATCH; i++) {
                        keyFormat.writeKey(key, 0, keys.next());
                        sum += target.get(key, KeyFormat.KEY_BYTES, out) + out.get(LONG, 0);
                    }
                }
            }
            ops += BATCH;
            now = System.nanoTime();
        } while (now < deadline);
        sink += sum;
        return new Measurement(ops, now - start);
    }
}
