package dev.remixdb.cli;

import dev.remixdb.CheckpointReport;
import dev.remixdb.Cursor;
import dev.remixdb.RemixDB;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** The commands that open a store: stats, get, scan, checkpoint, compact. */
final class StoreCommands {
    private StoreCommands() {}

    /** Opens an existing store (never creates one: a mistyped path is an error, not a new store). */
    static RemixDB open(Path dir) throws java.io.IOException {
        return open(dir, dev.remixdb.Options.defaults());
    }

    static RemixDB open(Path dir, dev.remixdb.Options options) throws java.io.IOException {
        if (!Files.isRegularFile(dir.resolve("MANIFEST"))) {
            throw new java.nio.file.NoSuchFileException(dir.toString(), null, "not a RemixDB store (no MANIFEST)");
        }
        return RemixDB.open(dir, options);
    }

    @Command(name = "stats", mixinStandardHelpOptions = true,
            description = "Prints a store's counters and sizes: keys, partitions, tables, disk and memory bytes.")
    static final class Stats implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "STORE", description = "The store's directory.")
        Path dir;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            try (RemixDB db = open(dir)) {
                dev.remixdb.Stats s = db.stats();
                PrintWriter out = spec.commandLine().getOut();
                out.printf("store       %s%n", dir);
                out.printf("keys        %d (entries in memtables and tables: versions and deletes count until compacted)%n",
                        s.keys());
                out.printf("partitions  %d%n", s.partitions());
                out.printf("tables      %d%n", s.tables());
                out.printf("disk bytes  %d%n", s.diskBytes());
                out.printf("details     %s%n", s);
                out.flush();
            }
            return 0;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true,
            description = "Prints the value of a key; exit code 1 when the key is absent.")
    static final class Get implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "STORE", description = "The store's directory.")
        Path dir;

        @Parameters(index = "1", paramLabel = "KEY", description = "The key (UTF-8, or hex with --hex).")
        String key;

        @Mixin
        Bytes bytes;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            byte[] k = bytes.parse(key);
            try (RemixDB db = open(dir)) {
                byte[] v = db.get(k);
                if (v == null) {
                    spec.commandLine().getErr().println("not found: " + key);
                    spec.commandLine().getErr().flush();
                    return RemixCli.FAILED;
                }
                spec.commandLine().getOut().println(bytes.show(v));
                spec.commandLine().getOut().flush();
            }
            return 0;
        }
    }

    @Command(name = "scan", mixinStandardHelpOptions = true,
            description = "Prints the keys and values of a range, one 'key<TAB>value' per line, in key order"
                    + " (or reversed).")
    static final class Scan implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "STORE", description = "The store's directory.")
        Path dir;

        @Option(names = "--from", paramLabel = "KEY", description = "First key (inclusive); default: the first.")
        String from;

        @Option(names = "--to", paramLabel = "KEY", description = "End key (exclusive); default: past the last.")
        String to;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
                description = "At most N entries; 0 for all. Default: ${DEFAULT-VALUE}.")
        long limit;

        @Option(names = "--reverse", description = "From the end of the range backwards.")
        boolean reverse;

        @Option(names = "--keys-only", description = "Print keys only.")
        boolean keysOnly;

        @Mixin
        Bytes bytes;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (limit < 0) {
                throw new IllegalArgumentException("--limit must not be negative: " + limit);
            }
            byte[] lower = bytes.parse(from);
            byte[] upper = bytes.parse(to);
            PrintWriter out = spec.commandLine().getOut();
            long n = 0;
            try (RemixDB db = open(dir); Cursor c = db.cursor(lower, upper)) {
                if (reverse) {
                    c.seekToLast();
                } else {
                    c.seekToFirst();
                }
                for (; c.isValid() && (limit == 0 || n < limit); n++) {
                    out.println(keysOnly ? bytes.show(c.key()) : bytes.show(c.key()) + "\t" + bytes.show(c.value()));
                    if (reverse) {
                        c.prev();
                    } else {
                        c.next();
                    }
                }
            }
            out.flush();
            spec.commandLine().getErr().printf("%d entries%n", n);
            spec.commandLine().getErr().flush();
            return 0;
        }
    }

    @Command(name = "checkpoint", mixinStandardHelpOptions = true,
            description = "Makes an openable copy of a store as of now (hard links where the file system allows).")
    static final class CheckpointStore implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "STORE", description = "The store's directory.")
        Path dir;

        @Parameters(index = "1", paramLabel = "TARGET", description = "A directory that does not exist yet.")
        Path target;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            try (RemixDB db = open(dir)) {
                CheckpointReport r = db.checkpoint(target);
                spec.commandLine().getOut().println(r);
                spec.commandLine().getOut().flush();
            }
            return 0;
        }
    }

    @Command(name = "compact", mixinStandardHelpOptions = true,
            description = "Flushes the memtable and merges the partitions of a range into one sorted run, dropping"
                    + " overwritten versions and deleted keys.")
    static final class Compact implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "STORE", description = "The store's directory.")
        Path dir;

        @Option(names = "--from", paramLabel = "KEY", description = "First key of the range; default: the first.")
        String from;

        @Option(names = "--to", paramLabel = "KEY", description = "End of the range (exclusive); default: the end.")
        String to;

        // Required: a store does not record how its tables are compressed, and the rewritten tables
        // take what the store is opened with (an LZ4 store compacted with the default grew 4x).
        @Option(names = "--compression", required = true, paramLabel = "none|lz4",
                description = "How to compress the tables the compaction writes: the store's own setting"
                        + " (Options.compression), which the store does not record.")
        String compression;

        @Mixin
        Bytes bytes;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            byte[] lower = bytes.parse(from);
            byte[] upper = bytes.parse(to);
            dev.remixdb.Compression c = switch (compression.toLowerCase(java.util.Locale.ROOT)) {
                case "none" -> dev.remixdb.Compression.NONE;
                case "lz4" -> dev.remixdb.Compression.LZ4;
                default -> throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "--compression must be none or lz4: " + compression);
            };
            try (RemixDB db = open(dir, dev.remixdb.Options.builder().compression(c).build())) {
                dev.remixdb.Stats before = db.stats();
                long t0 = System.nanoTime();
                db.compactRange(lower, upper);
                dev.remixdb.Stats after = db.stats();
                spec.commandLine().getOut().printf("compacted in %.2f s: tables %d -> %d, disk bytes %d -> %d%n",
                        (System.nanoTime() - t0) / 1e9, before.tables(), after.tables(), before.diskBytes(),
                        after.diskBytes());
                spec.commandLine().getOut().flush();
            }
            return 0;
        }
    }
}
