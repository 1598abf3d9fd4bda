package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.Args;
import dev.remixdb.bench.Command;
import dev.remixdb.bench.UsageException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code db-child}: the process {@code db} starts for one store. It runs every phase on that store
 * and prints one {@link ResultLine} per phase on stdout; logs and progress go to stderr, which the
 * parent passes through. Not listed in the help: it is started by {@link DbBenchCommand} with an
 * explicit argument list ({@link DbOptions#childArgs()}), though it runs by hand as well.
 */
public final class DbChildCommand implements Command {

    @Override
    public String name() {
        return "db-child";
    }

    @Override
    public String summary() {
        return "one store's side of 'db', in its own JVM (started by db)";
    }

    @Override
    public boolean listed() {
        return false;
    }

    @Override
    public String usage() {
        return """
                usage: db-child --store remixdb|rocksdb --store-dir DIR [--progress bar|lines|none] [db options]

                Runs the db phases on one store in this process and prints a result line per phase
                (@@dbbench-result, tab-separated name=value) on stdout. Started by 'db'; see 'db --help'.
                """;
    }

    @Override
    public int run(String[] argv) throws Exception {
        Set<String> valueOptions = new HashSet<>(DbOptions.VALUE_OPTIONS);
        valueOptions.addAll(List.of("store", "store-dir", "progress"));
        Args a = Args.parse(argv, valueOptions, DbOptions.FLAG_OPTIONS);
        if (a.flag("help")) {
            System.out.print(usage());
            return 0;
        }
        DbOptions o = DbOptions.parse(a);
        String store = a.string("store", "");
        if (!Store.NAMES.contains(store)) {
            throw new UsageException("--store must be one of " + String.join(", ", Store.NAMES) + ": '" + store + "'");
        }
        Path dir = a.path("store-dir");
        if (dir == null) {
            throw new UsageException("--store-dir is required");
        }
        String progress = a.string("progress", "lines");
        if (!List.of("bar", "lines", "none").contains(progress)) {
            throw new UsageException("--progress must be bar, lines or none: " + progress);
        }
        new PhaseRunner(o, store, dir, progress, System.err).runAll(record -> {
            System.out.println(ResultLine.encode(record));
            System.out.flush();
        });
        return 0;
    }
}
