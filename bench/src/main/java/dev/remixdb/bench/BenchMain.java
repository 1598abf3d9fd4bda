package dev.remixdb.bench;

import dev.remixdb.bench.db.WriteAmpCommand;
import dev.remixdb.bench.dbbench.DbBenchCommand;
import dev.remixdb.bench.dbbench.DbChildCommand;
import dev.remixdb.bench.micro.RemixMicroCommand;
import dev.remixdb.bench.rebuild.RemixRebuildCommand;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of {@code remixdb-bench.jar}: {@code java -jar remixdb-bench.jar COMMAND [options]}.
 * Each command is its own {@link Command} class; add new ones to {@link #COMMANDS}.
 */
public final class BenchMain {
    private static final List<Command> COMMANDS = List.of(new DbBenchCommand(), new RemixMicroCommand(),
            new RemixRebuildCommand(), new WriteAmpCommand(), new JmhCommand(), new VerifyCommand(), new DbChildCommand());

    private BenchMain() {}

    public static void main(String[] args) {
        // Charts are drawn off-screen; this must be set before the first AWT class loads.
        System.setProperty("java.awt.headless", "true");
        System.exit(run(args));
    }

    /** Runs a command line; returns the exit code (0 ok, 1 failure, 2 bad usage). */
    public static int run(String[] args) {
        if (args.length == 0 || List.of("--help", "-h", "help").contains(args[0])) {
            if (args.length > 1 && args[0].equals("help")) {
                Command c = find(args[1]);
                if (c != null) {
                    System.out.print(c.usage());
                    return 0;
                }
            }
            System.out.print(help());
            return args.length == 0 ? 2 : 0;
        }
        Command c = find(args[0]);
        if (c == null) {
            System.err.println("unknown command: " + args[0]);
            System.err.print(help());
            return 2;
        }
        try {
            return c.run(Arrays.copyOfRange(args, 1, args.length));
        } catch (UsageException e) {
            System.err.println(c.name() + ": " + e.getMessage());
            System.err.println("see: " + c.name() + " --help");
            return 2;
        } catch (Exception e) {
            System.err.println(c.name() + " failed:");
            e.printStackTrace();
            return 1;
        }
    }

    private static Command find(String name) {
        for (Command c : COMMANDS) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    static String help() {
        StringBuilder b = new StringBuilder();
        b.append("usage: java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \\\n")
                .append("            -jar remixdb-bench.jar COMMAND [options]\n\ncommands:\n");
        for (Command c : COMMANDS) {
            if (c.listed()) {
                b.append(String.format("  %-12s %s%n", c.name(), c.summary()));
            }
        }
        b.append("\n'COMMAND --help' (or 'help COMMAND') shows a command's options. See bench/README.md.\n");
        return b.toString();
    }
}
