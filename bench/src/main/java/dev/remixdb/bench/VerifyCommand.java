package dev.remixdb.bench;

import dev.remixdb.Verify;

/** {@code verify DIR...}: checks every checksum of closed stores ({@link dev.remixdb.RemixDB#verify}). */
final class VerifyCommand implements Command {
    @Override
    public String name() {
        return "verify";
    }

    @Override
    public String summary() {
        return "check every checksum of closed stores and report what is damaged";
    }

    @Override
    public String usage() {
        return """
                usage: verify DIR...

                Reads every file of each closed store (MANIFEST, tables, REMIX files, live WALs) and checks
                every checksum, changing nothing. Prints a report per store: the damaged files with the
                offset and nature of each problem, and notes (a torn WAL tail, files no version lists).
                Exit code: 0 all sound, 1 damage found, 2 a store could not be checked (open, missing).
                """;
    }

    @Override
    public int run(String[] args) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.print(usage());
            return 0;
        }
        return Verify.run(args);
    }
}
