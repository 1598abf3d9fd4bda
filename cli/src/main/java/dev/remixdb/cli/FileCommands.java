package dev.remixdb.cli;

import dev.remixdb.FileDump;
import dev.remixdb.RemixDB;
import dev.remixdb.VerifyReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** The commands that read files without opening the store: dump and verify. */
final class FileCommands {
    private FileCommands() {}

    @Command(name = "dump", mixinStandardHelpOptions = true,
            description = "Describes one file of a store: a table (.tbl), a REMIX (.rmx), a WAL (.wal) or the MANIFEST,"
                    + " with its layout and first entries. Works on a store in use (it only reads).")
    static final class Dump implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "The file.")
        Path file;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "10",
                description = "Entries (table) or operations (WAL) to list. Default: ${DEFAULT-VALUE}.")
        int limit;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
                FileDump.dump(file, limit, ps);
            }
            spec.commandLine().getOut().print(bytes.toString(StandardCharsets.UTF_8));
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Checks every checksum and structure of a closed store; exit code 1 when damage is found.")
    static final class VerifyStore implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "STORE", description = "The store's directory.")
        Path dir;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            // A mistyped path (the store's parent, an empty folder) would verify as "0 files, OK".
            // A store that lost its MANIFEST still has its other files, and verify reports the loss.
            if (!Files.isRegularFile(dir.resolve("MANIFEST")) && !hasStoreFiles(dir)) {
                throw new java.nio.file.NoSuchFileException(dir.toString(), null,
                        "not a RemixDB store (no MANIFEST, no table, REMIX or WAL file)");
            }
            VerifyReport r = RemixDB.verify(dir);
            spec.commandLine().getOut().println(r);
            spec.commandLine().getOut().flush();
            return r.ok() ? 0 : RemixCli.FAILED;
        }

        private static boolean hasStoreFiles(Path dir) throws java.io.IOException {
            if (!Files.isDirectory(dir)) {
                return false;
            }
            try (java.util.stream.Stream<Path> s = Files.list(dir)) {
                return s.map(p -> p.getFileName().toString())
                        .anyMatch(n -> n.endsWith(".tbl") || n.endsWith(".rmx") || n.endsWith(".wal"));
            }
        }
    }
}
