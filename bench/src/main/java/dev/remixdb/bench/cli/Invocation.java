package dev.remixdb.bench.cli;

import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** What the user typed for a command, for reports that record their command line. */
public final class Invocation {
    private Invocation() {}

    /**
     * The arguments given to {@code command}, after its name: picocli keeps the whole command line
     * (e.g. {@code db --keys 1m}), which holds the command's name when it was run as a subcommand.
     */
    public static List<String> args(CommandSpec command) {
        List<String> all = command.commandLine().getParseResult().originalArgs();
        int at = all.indexOf(command.name());
        return List.copyOf(all.subList(at + 1, all.size()));
    }
}
