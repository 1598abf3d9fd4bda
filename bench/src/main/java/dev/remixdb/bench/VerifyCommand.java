package dev.remixdb.bench;

import dev.remixdb.Verify;
import dev.remixdb.bench.cli.HelpOption;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code verify DIR...}: checks every checksum of closed stores ({@link dev.remixdb.RemixDB#verify}).
 * Its exit code is {@link Verify#run}'s: 0 all sound, 1 damage found, 2 a store could not be checked;
 * 2 as well when no directory is given (picocli's usage error).
 */
@Command(name = "verify",
        description = {"Check every checksum of closed stores and report what is damaged.",
                "",
                "Reads every file of each closed store (MANIFEST, tables, REMIX files, live WALs) and checks every",
                "checksum, changing nothing. Prints a report per store: the damaged files with the offset and",
                "nature of each problem, and notes (a torn WAL tail, files no version lists)."},
        parameterListHeading = "%n",
        footer = {"", "Exit code: 0 all sound, 1 damage found, 2 a store could not be checked (open, missing)."},
        descriptionHeading = "%n", sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = BenchMain.HELP_WIDTH)
final class VerifyCommand implements Callable<Integer> {
    @Parameters(paramLabel = "DIR", arity = "1..*", description = "A store's directory; the store must be closed.")
    List<String> dirs;

    @Mixin
    HelpOption help;

    @Override
    public Integer call() {
        return Verify.run(dirs.toArray(String[]::new));
    }
}
