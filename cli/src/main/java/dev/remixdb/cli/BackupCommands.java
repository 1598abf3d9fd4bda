package dev.remixdb.cli;

import dev.remixdb.BackupInfo;
import dev.remixdb.Backups;
import dev.remixdb.RemixDB;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** Backups: make one, list (and check) them, restore one. */
final class BackupCommands {
    private BackupCommands() {}

    @Command(name = "backup", mixinStandardHelpOptions = true,
            description = "Adds a backup of a store to a backup directory (files shared with earlier backups are"
                    + " not copied again).")
    static final class Backup implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "STORE", description = "The store's directory.")
        Path dir;

        @Parameters(index = "1", paramLabel = "BACKUPS", description = "The backup directory (created if needed).")
        Path backups;

        @Option(names = "--keep", paramLabel = "N", defaultValue = "2147483647",
                description = "Keep the newest N backups, deleting older ones. Default: all.")
        int keep;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            try (RemixDB db = StoreCommands.open(dir)) {
                BackupInfo b = Backups.create(db, backups, keep);
                spec.commandLine().getOut().printf("backup %d: %d files, %d bytes (%d new)%n", b.id(), b.files(),
                        b.bytes(), b.bytesAdded());
                spec.commandLine().getOut().flush();
            }
            return 0;
        }
    }

    @Command(name = "backups", mixinStandardHelpOptions = true,
            description = "Lists the backups of a backup directory; with --verify checks each one's files.")
    static final class ListBackups implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "BACKUPS", description = "The backup directory.")
        Path backups;

        @Option(names = "--verify", description = "Check every file's size and CRC32C; exit code 1 on damage, a damaged descriptor included.")
        boolean verify;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            boolean damaged = false;
            for (BackupInfo b : Backups.list(backups)) {
                out.printf("%d  %s  %d files  %d bytes  last sequence %d", b.id(), b.created(), b.files(), b.bytes(),
                        b.lastSequence());
                if (verify) {
                    List<String> problems = Backups.verify(backups, b.id());
                    out.print(problems.isEmpty() ? "  OK" : "  DAMAGED");
                    for (String p : problems) {
                        out.printf("%n    %s", p);
                    }
                    damaged |= !problems.isEmpty();
                }
                out.println();
            }
            // A damaged descriptor hides its backup from the list: say so, it is damage too.
            for (String d : Backups.damaged(backups)) {
                out.printf("damaged backup descriptor, backup not listed: %s%n", d);
                damaged |= verify;
            }
            out.flush();
            return damaged ? RemixCli.FAILED : 0;
        }
    }

    @Command(name = "restore", mixinStandardHelpOptions = true,
            description = "Restores a backup into a new directory, checking every file; nothing is left there when a"
                    + " file is damaged.")
    static final class Restore implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "BACKUPS", description = "The backup directory.")
        Path backups;

        @Parameters(index = "1", paramLabel = "ID", description = "The backup's number (see 'backups').")
        long id;

        @Parameters(index = "2", paramLabel = "TARGET", description = "A directory that does not exist yet.")
        Path target;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Backups.restore(backups, id, target);
            spec.commandLine().getOut().printf("restored backup %d into %s%n", id, target);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}
