package dev.remixdb.bench.micro;

import dev.remixdb.bench.data.Locality;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings of {@code remix-micro}, immutable. {@link #defaults(boolean)} gives the full or the
 * {@code --quick} profile; {@link RemixMicroCommand} applies command-line overrides on top. The
 * constructor checks the combinations (segment sizes, H against D) and throws
 * IllegalArgumentException, which the command reports as a usage error.
 *
 * @param runs          H values to sweep (REMIX §5.1: 1..16). Default: 1,2,4,8,12,16; quick: 1,2,4,8,16
 * @param localities    key-to-run patterns (H = 1 is measured once and reported for each)
 * @param phases        operations to measure
 * @param keysPerRun    keys per run; a dataset holds {@code H * keysPerRun} keys, as each table of the
 *                      paper holds 64 MB. Default: 578,524 (64 MiB of keys and values); quick: 100k
 * @param segment       D of the main REMIX (Figures 11, 12). Default: 32
 * @param sweepSegments the D values of Figure 13. Default: 16,32,64
 * @param sweepRuns     the H at which D is swept (Figure 13 uses 8). Default: 8
 * @param preheatMillis JIT warm-up over every variant on a small dataset before the first measurement.
 *                      Default: 15000; quick: 4000
 * @param warmupMillis  least untimed warm-up before each measurement (it goes on, up to 8 times this,
 *                      until the JIT is quiet and the throughput stable). Default: 1000; quick: 60
 * @param measureMillis timed part of each measurement. Default: 2000; quick: 200
 * @param checkOps      operations checked against ground truth (and counted) before each measurement.
 *                      Default: 2000; quick: 200
 * @param seed          seed of the run assignment and of the random keys. Default: 42
 * @param bloomBits     Bloom filter bits per key (REMIX §5.1: 10)
 * @param json          where to write the JSON report, or null
 * @param chart         where to write the PNG chart, or null
 * @param quick         whether the quick profile was chosen (reported)
 */
public record MicroOptions(List<Integer> runs, List<Locality> localities, List<Phase> phases, long keysPerRun,
                           int segment, List<Integer> sweepSegments, int sweepRuns, long preheatMillis, long warmupMillis,
                           long measureMillis, int checkOps, long seed, int bloomBits, Path json, Path chart,
                           boolean quick) {

    /** Keys per run of the full profile: 64 MiB of 16 B keys and 100 B values, like the paper's 64 MB tables. */
    static final long PAPER_KEYS_PER_RUN = (64L << 20) / (16 + 100);

    public MicroOptions {
        runs = List.copyOf(runs);
        sweepSegments = List.copyOf(sweepSegments);
        localities = List.copyOf(localities);
        phases = List.copyOf(phases);
        for (int h : runs) {
            if (h < 1 || h > 64) {
                throw new IllegalArgumentException("runs must be in 1..64: " + h);
            }
        }
        for (int d : sweepSegments) {
            checkSegment(d);
        }
        checkSegment(segment);
        for (int h : runs) {
            int smallest = h == sweepRuns ? Math.min(segment, sweepSegments.stream().mapToInt(Integer::intValue)
                    .min().orElse(segment)) : segment;
            if (h > smallest) {
                throw new IllegalArgumentException("H=" + h + " runs need segments of at least H slots, but D="
                        + smallest + " (a key's versions must fit in one segment, REMIX section 4.1)");
            }
        }
        if (localities.isEmpty() || phases.isEmpty()) {
            throw new IllegalArgumentException("need at least one locality and one phase");
        }
    }

    private static void checkSegment(int d) {
        if (d != 16 && d != 32 && d != 64) {
            throw new IllegalArgumentException("segment size D must be 16, 32 or 64: " + d);
        }
    }

    /** The full profile ({@code quick == false}) or the quick one. */
    public static MicroOptions defaults(boolean quick) {
        return new MicroOptions(
                quick ? List.of(1, 2, 4, 8, 16) : List.of(1, 2, 4, 8, 12, 16),
                List.of(Locality.WEAK, Locality.STRONG), List.of(Phase.values()),
                quick ? 100_000 : PAPER_KEYS_PER_RUN, 32, List.of(16, 32, 64), 8,
                quick ? 4000 : 15_000, quick ? 60 : 1000, quick ? 200 : 2000, quick ? 200 : 2000,
                42, 10, null, null, quick);
    }

    /** The segment sizes to build for {@code h} runs: the main D, plus the sweep at {@link #sweepRuns}. */
    List<Integer> segmentsFor(int h) {
        List<Integer> out = new ArrayList<>(List.of(segment));
        if (h == sweepRuns) {
            for (int d : sweepSegments) {
                if (!out.contains(d)) {
                    out.add(d);
                }
            }
        }
        out.sort(null);
        return out;
    }

    /** Ordered settings for the report. */
    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("quick", quick);
        m.put("runs", runs.toString());
        m.put("localities", localities.stream().map(Locality::label).toList().toString());
        m.put("phases", phases.stream().map(Phase::label).toList().toString());
        m.put("keysPerRun", keysPerRun);
        m.put("keyBytes", 16);
        m.put("valueBytes", 100);
        m.put("segment", segment);
        m.put("sweepSegments", sweepSegments.toString());
        m.put("sweepRuns", sweepRuns);
        m.put("preheatMillis", preheatMillis);
        m.put("warmupMillis", warmupMillis);
        m.put("measureMillis", measureMillis);
        m.put("checkOps", checkOps);
        m.put("seed", seed);
        m.put("bloomBitsPerKey", bloomBits);
        return m;
    }

    /** A copy with other sizes and durations (for tests and the preheat). */
    public MicroOptions withScale(List<Integer> newRuns, long newKeysPerRun, long newPreheatMillis,
                                  long newWarmupMillis, long newMeasureMillis, int newCheckOps, int newSweepRuns) {
        return new MicroOptions(newRuns, localities, phases, newKeysPerRun, segment, sweepSegments, newSweepRuns,
                newPreheatMillis, newWarmupMillis, newMeasureMillis, newCheckOps, seed, bloomBits, json, chart, quick);
    }

    /** A copy that writes its reports to these files (null for none). */
    public MicroOptions withOutputs(Path newJson, Path newChart) {
        return new MicroOptions(runs, localities, phases, keysPerRun, segment, sweepSegments, sweepRuns,
                preheatMillis, warmupMillis, measureMillis, checkOps, seed, bloomBits, newJson, newChart, quick);
    }
}
