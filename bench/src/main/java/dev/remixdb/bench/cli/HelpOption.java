package dev.remixdb.bench.cli;

import picocli.CommandLine.Option;

/** The {@code -h}/{@code --help} option every command has (mixed in with {@code @Mixin}). */
public final class HelpOption {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;
}
