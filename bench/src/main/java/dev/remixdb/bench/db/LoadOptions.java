package dev.remixdb.bench.db;

import dev.remixdb.bench.UsageException;
import dev.remixdb.bench.cli.Check;
import dev.remixdb.bench.cli.CountConverter;
import dev.remixdb.bench.dbbench.DirSize;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options the store-against-store commands of this package share ({@code write-amp},
 * {@code checkpoint}, {@code delete-range}): a profile, how many keys to load, the memtable size,
 * which stores, and where they go; and the random-order load of 16-byte keys and 120-byte values
 * they all start with.
 */
final class LoadOptions {
    @Option(names = "--quick", description = "Small profile: 400k keys, 4 MiB memtables (and the command's own small settings).")
    boolean quick;

    @Option(names = "--keys", paramLabel = "N", converter = CountConverter.class,
            description = "Keys to load; k/m suffixes. Default: 4m (--quick: 400k).")
    Long keys;

    @Option(names = "--memtable-mb", paramLabel = "N", converter = CountConverter.class,
            description = "Memtable size of both stores, MiB. Default: 64 (--quick: 4).")
    Long memtableMb;

    @Option(names = "--engines", paramLabel = "LIST", split = ",", hideParamSyntax = true,
            defaultValue = "remixdb,rocksdb",
            description = "Stores to run, in this order. Default: ${DEFAULT-VALUE}.")
    List<String> engines;

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Where the stores go (one file system). Default: a temporary directory, deleted at the end.")
    Path dir;

    /** {@return the key count, checked to be at least {@code min}} */
    long keyCount(long min) {
        return Check.range("--keys", keys != null ? keys : quick ? 400_000 : 4_000_000, min, 1_000_000_000);
    }

    /** {@return the memtable size in bytes} */
    long memtableBytes() {
        return Check.range("--memtable-mb", memtableMb != null ? memtableMb : quick ? 4 : 64, 1, 65536) << 20;
    }

    /** {@return the stores to run, each remixdb or rocksdb} */
    List<String> engineNames() {
        List<String> names = Check.words(engines);
        for (String e : names) {
            if (!List.of("remixdb", "rocksdb").contains(e)) {
                throw new UsageException("--engines: unknown engine '" + e + "'; engines: remixdb, rocksdb");
            }
        }
        return names;
    }

    /** {@return --dir, created, or a new temporary directory named after {@code command}} */
    Path baseDir(String command) throws IOException {
        return dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("remixdb-" + command);
    }

    /** Deletes {@code base} when it is the temporary directory of {@link #baseDir}, not the user's --dir. */
    void deleteBaseIfTemporary(Path base) throws IOException {
        if (dir == null) {
            DirSize.delete(base);
        }
    }

    /** Something that takes puts: each store's adapter. */
    @FunctionalInterface
    interface Put {
        void put(byte[] key, byte[] value) throws Exception;
    }

    /** Puts keys 0..keys-1 in random order ({@link WriteAmpCommand#key}) with values of {@code seed}. */
    static void load(Put store, long keys, long seed) throws Exception {
        byte[] k = new byte[16];
        byte[] v = new byte[120];
        for (long i = 0; i < keys; i++) {
            WriteAmpCommand.key(i, k);
            WriteAmpCommand.value(i, seed, v);
            store.put(k, v);
        }
    }
}
