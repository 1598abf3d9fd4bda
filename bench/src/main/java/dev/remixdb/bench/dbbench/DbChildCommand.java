package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.UsageException;
import dev.remixdb.bench.cli.HelpOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code db-child}: the process {@code db} starts for one store. It runs every phase on that store
 * and prints one {@link ResultLine} (a JSON line) per phase on stdout; logs and progress go to
 * stderr, which the parent passes through. Hidden from the help: it is started by
 * {@link DbBenchCommand} with an explicit argument list ({@link DbOptions#childArgs()}), though it
 * runs by hand as well.
 */
@Command(name = "db-child", hidden = true,
        description = {"One store's side of 'db', in its own JVM (started by db).",
                "",
                "Runs the db phases on one store in this process and prints a result line per phase on stdout:",
                "@@dbbench-result, then the phase's result as one JSON object. Started by 'db'; see 'db --help'",
                "for the workload options."},
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
public final class DbChildCommand implements Callable<Integer> {
    @Mixin
    DbArgs args;

    @Mixin
    HelpOption help;

    @Option(names = "--store", paramLabel = "remixdb|rocksdb", required = true, description = "The store to run.")
    String store;

    @Option(names = "--store-dir", paramLabel = "DIR", required = true,
            description = "The store's directory: emptied first, then used for every phase.")
    Path storeDir;

    @Option(names = "--progress", paramLabel = "bar|lines|none", defaultValue = "lines",
            description = "Progress output on stderr. Default: ${DEFAULT-VALUE}.")
    String progress;

    @Override
    public Integer call() throws Exception {
        DbOptions o = args.options();
        if (!Store.NAMES.contains(store)) {
            throw new UsageException("--store must be one of " + String.join(", ", Store.NAMES) + ": '" + store + "'");
        }
        if (!List.of("bar", "lines", "none").contains(progress)) {
            throw new UsageException("--progress must be bar, lines or none: " + progress);
        }
        new PhaseRunner(o, store, storeDir, progress, System.err).runAll(result -> {
            System.out.println(ResultLine.encode(result));
            System.out.flush();
        });
        return 0;
    }
}
