package dev.remixdb.bench;

import dev.remixdb.bench.cli.HelpOption;
import dev.remixdb.bench.db.CheckpointCommand;
import dev.remixdb.bench.db.DeleteRangeCommand;
import dev.remixdb.bench.db.WriteAmpCommand;
import dev.remixdb.bench.dbbench.DbBenchCommand;
import dev.remixdb.bench.dbbench.DbChildCommand;
import dev.remixdb.bench.micro.RemixMicroCommand;
import dev.remixdb.bench.rebuild.RemixRebuildCommand;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Entry point of {@code remixdb-bench.jar} ({@code java -jar remixdb-bench.jar COMMAND [options]},
 * which {@code bench/run} runs; the help calls it by that name). Each command is a picocli
 * {@code @Command} class listed in {@code subcommands} below; its options, their descriptions and
 * defaults are annotations on that class, from which the help is generated.
 *
 * <p>Exit codes: what the command returns (0 ok, 1 failure), 2 for a bad command line: one picocli
 * refuses (unknown option, missing or unconvertible value) or one a command refuses after parsing
 * by throwing {@link UsageException} (a value out of range, options that do not go together).
 */
@Command(name = "bench/run",
        synopsisHeading = "",
        customSynopsis = {
                "Usage: bench/run COMMAND [options]",
                "   or: java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \\",
                "            -jar remixdb-bench.jar COMMAND [options]"},
        descriptionHeading = "%n",
        description = "RemixDB benchmarks: RemixDB against RocksDB, REMIX against its baselines, and store checks.",
        optionListHeading = "%nOptions:%n",
        commandListHeading = "%nCommands:%n",
        footer = {"", "'COMMAND --help' (or 'help COMMAND') shows a command's options. See bench/README.md."},
        usageHelpWidth = BenchMain.HELP_WIDTH,
        subcommands = {DbBenchCommand.class, RemixMicroCommand.class, RemixRebuildCommand.class, WriteAmpCommand.class,
                CheckpointCommand.class, DeleteRangeCommand.class,
                JmhCommand.class, PoliciesCommand.class, PolicyChartCommand.class, SweepCommand.class, ReadersCommand.class, VerifyCommand.class, DbChildCommand.class, HelpCommand.class})
public final class BenchMain implements Callable<Integer> {
    /** Columns of the generated help; wide enough for the option tables to stay on one line each. */
    public static final int HELP_WIDTH = 110;

    /** Exit code of a bad command line (picocli's own default for invalid input as well). */
    public static final int USAGE = 2;

    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        // Charts are drawn off-screen; this must be set before the first AWT class loads.
        System.setProperty("java.awt.headless", "true");
        System.exit(run(args));
    }

    /** Runs a command line; returns the exit code (0 ok, 1 failure, 2 bad usage). */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The command line with every command and the exit-code contract above. */
    public static CommandLine commandLine() {
        return new CommandLine(new BenchMain())
                .setParameterExceptionHandler(BenchMain::badCommandLine)
                .setExecutionExceptionHandler(BenchMain::failed);
    }

    /** No command named: the list of commands, and the usage exit code. */
    @Override
    public Integer call() {
        spec.commandLine().usage(System.out);
        return USAGE;
    }

    /** What picocli refused: one line naming the option, picocli's suggestions, and where help is. */
    private static int badCommandLine(ParameterException e, String[] args) {
        CommandLine c = e.getCommandLine();
        PrintWriter err = c.getErr();
        String message = e.getMessage();
        if (c.getParent() == null && e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()
                && !u.getUnmatched().getFirst().startsWith("-")) {
            message = "unknown command: " + u.getUnmatched().getFirst();
        }
        err.println(c.getCommandName() + ": " + message);
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("see: " + helpHint(c));
        err.flush();
        return USAGE;
    }

    /** A command's failure: a UsageException is a bad command line (2), anything else a failure (1). */
    private static int failed(Exception e, CommandLine c, ParseResult parsed) {
        PrintWriter err = c.getErr();
        if (e instanceof UsageException) {
            err.println(c.getCommandName() + ": " + e.getMessage());
            err.println("see: " + helpHint(c));
            err.flush();
            return USAGE;
        }
        err.println(c.getCommandName() + " failed:");
        e.printStackTrace(err);
        err.flush();
        return 1;
    }

    private static String helpHint(CommandLine c) {
        return c.getCommandSpec().qualifiedName() + " --help";
    }
}
