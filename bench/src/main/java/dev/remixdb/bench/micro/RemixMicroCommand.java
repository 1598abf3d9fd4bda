package dev.remixdb.bench.micro;

import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.Progress;
import dev.remixdb.bench.UsageException;
import dev.remixdb.bench.cli.Check;
import dev.remixdb.bench.cli.CountConverter;
import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.cli.Invocation;
import dev.remixdb.bench.data.Locality;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code remix-micro}: REMIX vs a merging iterator and Bloom filters on H runs (REMIX §5.1, Figures
 * 11-13). The options left null take their value from the full or the {@code --quick} profile
 * ({@link MicroOptions#defaults}).
 */
@Command(name = "remix-micro",
        description = {"REMIX vs merging iterator vs Bloom filters on H in-memory runs (paper Figures 11-13).",
                "",
                "Reproduces REMIX (FAST'21) section 5.1, Figures 11-13: Seek, Seek+Next50 and Get on H sorted runs of",
                "16-byte keys and 100-byte values, indexed by a REMIX (full or partial in-segment search, with or",
                "without hash tags), by a merging iterator, and (Get) by per-run Bloom filters. Each run holds",
                "--keys-per-run keys, so the data grows with H as in the paper. The defaults are the full profile,",
                "about 10 minutes on 2 cores; --quick takes under a minute.",
                ""},
        optionListHeading = "Options:%n",
        footer = {"", "The table goes to stdout, progress to stderr. See bench/README.md for what each column means."},
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class RemixMicroCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--quick", description = "Small profile: H in 1,2,4,8,16, 100k keys/run, 4 s JIT warm-up, "
            + "then 60+200 ms per row (options given too override these).")
    boolean quick;

    @Option(names = "--runs", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            description = "H values to sweep, each in 1..63. Default: 1,2,4,8,12,16 (--quick: 1,2,4,8,16).")
    List<Integer> runs;

    @Option(names = "--locality", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "weak,strong",
            description = "Key-to-run patterns: weak, strong. Default: ${DEFAULT-VALUE}.")
    List<String> localities;

    @Option(names = "--phases", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "seek,seeknext50,get",
            description = "Operations to measure: seek, seeknext50, get. Default: ${DEFAULT-VALUE}.")
    List<String> phases;

    @Option(names = "--keys-per-run", paramLabel = "N", converter = CountConverter.class,
            description = "Keys in each run; k/m suffixes. Default: 578524, 64 MiB like the paper's 64 MB tables "
                    + "(--quick: 100k).")
    Long keysPerRun;

    @Option(names = "--segment", paramLabel = "D", defaultValue = "32",
            description = "D of the main REMIX: 16, 32 or 64. Default: ${DEFAULT-VALUE}.")
    int segment;

    @Option(names = "--sweep-segments", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "16,32,64",
            description = "D values for Figure 13. Default: ${DEFAULT-VALUE}.")
    List<Integer> sweepSegments;

    @Option(names = "--sweep-runs", paramLabel = "H", defaultValue = "8",
            description = "H at which D is swept (0: no sweep). Default: ${DEFAULT-VALUE}.")
    int sweepRuns;

    @Option(names = "--preheat-ms", paramLabel = "MS", converter = CountConverter.class,
            description = "JIT warm-up over all variants first. Default: 15000 (--quick: 4000).")
    Long preheatMillis;

    @Option(names = "--warmup-ms", paramLabel = "MS", converter = CountConverter.class,
            description = "Least untimed warm-up per row. Default: 1000 (--quick: 60).")
    Long warmupMillis;

    @Option(names = "--measure-ms", paramLabel = "MS", converter = CountConverter.class,
            description = "Timed part per row. Default: 2000 (--quick: 200).")
    Long measureMillis;

    @Option(names = "--check-ops", paramLabel = "N", converter = CountConverter.class,
            description = "Answers checked and comparisons counted per row. Default: 2000 (--quick: 200).")
    Long checkOps;

    @Option(names = "--seed", paramLabel = "N", converter = CountConverter.class, defaultValue = "42",
            description = "Seed of the datasets and keys. Default: ${DEFAULT-VALUE}.")
    long seed;

    @Option(names = "--bloom-bits", paramLabel = "N", defaultValue = "10",
            description = "Bloom filter bits per key. Default: ${DEFAULT-VALUE}.")
    int bloomBits;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
    Path json;

    @Option(names = "--chart", paramLabel = "FILE", description = "Also draw them as a PNG chart.")
    Path chart;

    @Mixin
    HelpOption help;

    @Override
    public Integer call() throws Exception {
        MicroOptions o = options();
        Progress progress = Progress.onStderr(MicroRunner.units(o));
        MicroReport report = new MicroRunner(o, progress).run();
        TableReport.print(report, System.out);
        if (o.json() != null) {
            JsonReport.write(report, Invocation.args(spec), o.json());
            System.out.println("JSON written to " + o.json());
        }
        if (o.chart() != null) {
            ChartWriter.write(report, o.chart());
            System.out.println("chart written to " + o.chart());
        }
        return 0;
    }

    /** The settings: the profile's defaults with the options given, checked. */
    MicroOptions options() {
        MicroOptions d = MicroOptions.defaults(quick);
        try {
            List<Locality> loc = new ArrayList<>();
            for (String s : Check.words(localities)) {
                loc.add(Locality.parse(s));
            }
            List<Phase> ph = new ArrayList<>();
            for (String s : Check.words(phases)) {
                ph.add(Phase.parse(s));
            }
            return new MicroOptions(
                    runs == null ? d.runs() : Check.each("--runs", runs, 1, 63), loc, ph,
                    Check.range("--keys-per-run", orElse(keysPerRun, d.keysPerRun()), 1, 1L << 32),
                    Check.range("--segment", segment, 16, 64),
                    Check.each("--sweep-segments", sweepSegments, 16, 64),
                    Check.range("--sweep-runs", sweepRuns, 0, 63),
                    Check.range("--preheat-ms", orElse(preheatMillis, d.preheatMillis()), 0, 3_600_000),
                    Check.range("--warmup-ms", orElse(warmupMillis, d.warmupMillis()), 0, 3_600_000),
                    Check.range("--measure-ms", orElse(measureMillis, d.measureMillis()), 1, 3_600_000),
                    (int) Check.range("--check-ops", orElse(checkOps, d.checkOps()), 0, 10_000_000),
                    seed, Check.range("--bloom-bits", bloomBits, 1, 64), json, chart, quick);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage(), e);
        }
    }

    private static long orElse(Long given, long fallback) {
        return given != null ? given : fallback;
    }
}
