package dev.remixdb.bench.micro;

import dev.remixdb.bench.Command;
import dev.remixdb.bench.Progress;
import java.util.List;

/** {@code remix-micro}: REMIX vs a merging iterator and Bloom filters on H runs (REMIX §5.1, Figures 11-13). */
public final class RemixMicroCommand implements Command {

    @Override
    public String name() {
        return "remix-micro";
    }

    @Override
    public String summary() {
        return "REMIX vs merging iterator vs Bloom filters on H in-memory runs (paper Figures 11-13)";
    }

    @Override
    public String usage() {
        return """
                usage: remix-micro [options]

                Reproduces REMIX (FAST'21) section 5.1, Figures 11-13: Seek, Seek+Next50 and Get on H sorted
                runs of 16-byte keys and 100-byte values, indexed by a REMIX (full or partial in-segment
                search, with or without hash tags), by a merging iterator, and (Get) by per-run Bloom filters.
                Each run holds --keys-per-run keys, so the data grows with H as in the paper.

                options (defaults are the full profile, about 10 minutes on 2 cores; --quick takes under a minute):
                  --quick                 small profile: H in 1,2,4,8,16, 100k keys/run, 4 s JIT warm-up,
                                          then 60+200 ms per row
                  --runs LIST             H values to sweep                 (default 1,2,4,8,12,16)
                  --locality LIST         weak,strong                       (default both)
                  --phases LIST           seek,seeknext50,get               (default all)
                  --keys-per-run N        keys in each run; k/m suffixes    (default 578524: 64 MiB,
                                          like the paper's 64 MB tables)
                  --segment D             D of the main REMIX: 16, 32, 64   (default 32)
                  --sweep-segments LIST   D values for Figure 13            (default 16,32,64)
                  --sweep-runs H          H at which D is swept             (default 8)
                  --preheat-ms MS         JIT warm-up over all variants first (default 15000)
                  --warmup-ms MS          least untimed warm-up per row     (default 1000)
                  --measure-ms MS         timed part per row                (default 2000)
                  --check-ops N           answers checked and comparisons counted per row (default 2000)
                  --seed N                seed of the datasets and keys     (default 42)
                  --bloom-bits N          Bloom filter bits per key         (default 10)
                  --json FILE             also write the results as JSON
                  --chart FILE            also draw them as a PNG chart
                  --help                  this text

                The table goes to stdout, progress to stderr. See bench/README.md for what each column means.
                """;
    }

    @Override
    public int run(String[] args) throws Exception {
        if (MicroOptions.wantsHelp(args)) {
            System.out.print(usage());
            return 0;
        }
        MicroOptions o = MicroOptions.parse(args);
        Progress progress = Progress.onStderr(MicroRunner.units(o));
        MicroReport report = new MicroRunner(o, progress).run();
        TableReport.print(report, System.out);
        if (o.json() != null) {
            JsonReport.write(report, List.of(args), o.json());
            System.out.println("JSON written to " + o.json());
        }
        if (o.chart() != null) {
            ChartWriter.write(report, o.chart());
            System.out.println("chart written to " + o.chart());
        }
        return 0;
    }
}
