package dev.remixdb.bench.data;

import dev.remixdb.remix.MemoryRun;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Makes the datasets of REMIX §5.1: {@code runs * keysPerRun} keys assigned to runs by a
 * {@link Locality} pattern with a fixed seed, so the same arguments always give the same runs.
 *
 * <p>The run of every key (or group of 64 keys) is drawn first; then the runs are built one at a time,
 * each in one pass over the keys, so that only one run is ever being built (peak native memory is
 * the finished runs plus one run's build buffers).
 */
public final class DatasetGenerator {
    private DatasetGenerator() {}

    /**
     * Generates a dataset. With one run the locality makes no difference.
     *
     * @param runs       H, 1..63
     * @param keysPerRun average keys per run (the total is {@code runs * keysPerRun})
     * @param seed       seed of the run assignment
     */
    public static Dataset generate(int runs, long keysPerRun, Locality locality, long seed) {
        if (runs < 1 || runs > 63) {
            throw new IllegalArgumentException("runs must be in 1..63: " + runs);
        }
        if (keysPerRun < 1) {
            throw new IllegalArgumentException("keys per run must be positive: " + keysPerRun);
        }
        long total = Math.multiplyExact(runs, keysPerRun);
        KeyFormat keyFormat = new KeyFormat(total);
        int group = locality.groupSize();
        long groups = (total + group - 1) / group;
        if (groups > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("dataset too large: " + total + " keys");
        }
        byte[] runOfGroup = new byte[(int) groups];
        SplittableRandom rnd = new SplittableRandom(seed ^ (runs * 0x9E37_79B9L) ^ locality.ordinal());
        for (int g = 0; g < runOfGroup.length; g++) {
            runOfGroup[g] = (byte) (runs == 1 ? 0 : rnd.nextInt(runs));
        }
        List<MemoryRun> built = buildRuns(runs, total, keyFormat, (r, i) -> runOfGroup[(int) (i / group)] == r);
        return new Dataset(built, keyFormat, locality);
    }

    /** Which keys a run holds: key {@code i} (of the key format) is in run {@code run} when true. */
    @FunctionalInterface
    public interface Membership {
        boolean contains(int run, long key);
    }

    /**
     * Builds {@code runs} runs over keys {@code 0..keyCount-1} of {@code keyFormat}, each key in the runs
     * {@code membership} puts it in (one, several or none), one run at a time.
     */
    public static List<MemoryRun> buildRuns(int runs, long keyCount, KeyFormat keyFormat, Membership membership) {
        List<MemoryRun> built = new ArrayList<>(runs);
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment key = scratch.allocate(KeyFormat.KEY_BYTES);
            MemorySegment value = scratch.allocate(KeyFormat.VALUE_BYTES);
            for (int r = 0; r < runs; r++) {
                try (MemoryRun.Builder b = MemoryRun.builder()) {
                    for (long i = 0; i < keyCount; i++) {
                        if (membership.contains(r, i)) {
                            keyFormat.writeKey(key, 0, i);
                            keyFormat.writeValue(value, 0, i);
                            b.add(key, value, false);
                        }
                    }
                    built.add(b.build());
                }
            }
        } catch (RuntimeException | Error e) {
            built.forEach(MemoryRun::close);
            throw e;
        }
        return built;
    }
}
