package dev.remixdb.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code remixdb}, the command-line tool of RemixDB stores ({@code cli/remixdb} runs
 * {@code remixdb-cli.jar}). Each command is a picocli {@code @Command} class; its options and their
 * descriptions are annotations, from which {@code --help} is generated.
 *
 * <p>Exit codes: 0 done; 1 failed (a key not found, damage found, an I/O error, a store in use by
 * another process), with the reason on stderr; 2 a bad command line or argument (an unknown option,
 * a key that is not hex, a target inside the store).
 */
@Command(name = "remixdb",
        mixinStandardHelpOptions = true,
        versionProvider = RemixCli.Version.class,
        description = "Looks inside and operates RemixDB stores. A store in use by another process cannot be opened"
                + " (its directory is locked): stop the service, or work on a checkpoint of it.",
        subcommands = {StoreCommands.Stats.class, StoreCommands.Get.class, StoreCommands.Scan.class,
                FileCommands.Dump.class, FileCommands.VerifyStore.class, StoreCommands.CheckpointStore.class,
                StoreCommands.Compact.class, BackupCommands.Backup.class, BackupCommands.ListBackups.class,
                BackupCommands.Restore.class, HelpCommand.class})
public final class RemixCli implements Callable<Integer> {
    /** Exit code of a command that ran and failed. */
    static final int FAILED = 1;
    /** Exit code of a bad command line. */
    static final int USAGE = 2;

    @Spec
    CommandSpec spec;

    /** Held so that the level set below stays set (loggers are weakly referenced). */
    private static final java.util.logging.Logger STORE_LOG = java.util.logging.Logger.getLogger("dev.remixdb");

    public static void main(String[] args) {
        // The store's start-up notes (which block reader it picked) are not the tool's output.
        STORE_LOG.setLevel(java.util.logging.Level.WARNING);
        System.exit(run(args));
    }

    /** Runs a command line; returns the exit code. */
    public static int run(String... args) {
        return commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true)).execute(args);
    }

    /** The command line writing to {@code out} and {@code err} (tests capture them). */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new RemixCli());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println("error: " + message(e));
            line.getErr().flush();
            return e instanceof IllegalArgumentException ? USAGE : FAILED;
        });
        cl.setParameterExceptionHandler((e, args) -> {
            CommandLine c = e.getCommandLine();
            if (e instanceof CommandLine.UnmatchedArgumentException u && c.getParent() == null
                    && !u.getUnmatched().isEmpty() && !u.getUnmatched().getFirst().startsWith("-")) {
                // picocli says "Unmatched arguments from index 0" for a mistyped command.
                c.getErr().println("error: unknown command '" + u.getUnmatched().getFirst() + "'");
            } else {
                c.getErr().println("error: " + e.getMessage());
            }
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help'.");
            c.getErr().flush();
            return USAGE;
        });
        return cl;
    }

    /**
     * What went wrong, for the error line. A file system exception's message is often the path
     * alone, so its kind is said in words before it.
     */
    static String message(Throwable e) {
        String m = e.getMessage();
        String kind = e.getClass().getSimpleName();
        if (m == null) {
            return kind;
        }
        return switch (e) {
            case java.nio.file.NoSuchFileException x -> "no such file: " + m;
            case java.nio.file.AccessDeniedException x -> "access denied: " + m;
            case java.nio.file.FileAlreadyExistsException x -> "already exists: " + m;
            case java.nio.file.NotDirectoryException x -> "not a directory: " + m;
            case java.nio.file.DirectoryNotEmptyException x -> "directory not empty: " + m;
            case java.nio.file.FileSystemException x -> kind + ": " + m;
            default -> m;
        };
    }

    /** No command: the list of commands, and the usage exit code. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return USAGE;
    }

    /** The version from the jar's manifest (none when run from classes). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = RemixCli.class.getPackage().getImplementationVersion();
            return new String[] {"remixdb " + (v == null ? "(development build)" : v)};
        }
    }
}
