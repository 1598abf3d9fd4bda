package dev.remixdb.bench;

/**
 * A subcommand of {@link BenchMain} ("remix-micro", "jmh", "db", ...). Each lives in its own class
 * and parses its own arguments.
 */
public interface Command {

    /** The name typed on the command line. */
    String name();

    /** One line for the list of commands. */
    String summary();

    /**
     * Whether {@code --help} lists it; false for commands that other commands start (e.g. the child
     * process of {@code db}), which still run when named.
     */
    default boolean listed() {
        return true;
    }

    /** The full help text of this command. */
    String usage();

    /**
     * Runs the command with the arguments after its name; returns the process exit code.
     *
     * @throws UsageException on a bad command line
     */
    int run(String[] args) throws Exception;
}
