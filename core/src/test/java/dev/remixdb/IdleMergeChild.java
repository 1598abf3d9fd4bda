package dev.remixdb;

import dev.remixdb.compaction.RangeReducePolicy;
import dev.remixdb.compaction.RemixDbPolicy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.NavigableMap;

/**
 * The child process of {@link IdleMergeTest}'s crash test: writes into a window of keys that moves
 * along the key space, scans the whole store now and then and pauses, so that RangeReduce merges
 * the partitions the window has left while they are scanned. It prints "S i" when every operation
 * up to i is synced, and writes the number of idle merges so far to {@code args[1]}, until killed.
 */
public final class IdleMergeChild {
    static final int KEYS = 4000;

    private IdleMergeChild() {}

    static Options options() {
        return Options.builder().memtableBytes(48 * 1024).tableBytes(16 * 1024).blockCacheBytes(1 << 20)
                .compactionPolicy(RangeReducePolicy.builder(RemixDbPolicy.defaults()).minScanned(100).minDebtFraction(0)
                        .budget(Double.POSITIVE_INFINITY).build())
                .build();
    }

    static byte[] key(long n) {
        return String.format("m%05d", n % KEYS).getBytes(StandardCharsets.UTF_8);
    }

    /** Operation i, on the store (when {@code db} is not null) and on the model. */
    static void apply(long i, RemixDB db, NavigableMap<String, String> model) throws java.io.IOException {
        // 600 keys around a point that moves 300 keys every 3,000 operations.
        long k = ((i / 3000) * 300 + (i * 2654435761L) % 600) % KEYS;
        if (i % 3 == 2) {
            if (db != null) {
                db.delete(key(k));
            }
            model.remove(new String(key(k), StandardCharsets.UTF_8));
        } else {
            String v = "op" + i;
            if (db != null) {
                db.put(key(k), v.getBytes(StandardCharsets.UTF_8));
            }
            model.put(new String(key(k), StandardCharsets.UTF_8), v);
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("remixdb.idleMergeMillis", "10");
        Path idleFile = Path.of(args[1]);
        try (RemixDB db = RemixDB.open(Path.of(args[0]), options())) {
            NavigableMap<String, String> ignored = new java.util.TreeMap<>();
            for (long i = 0; ; i++) {
                apply(i, db, ignored);
                if (i % 10 == 9) {
                    db.sync();
                    System.out.println("S " + i);
                    System.out.flush();
                }
                if (i % 500 == 499) {
                    try (Cursor c = db.cursor()) {
                        for (c.seekToFirst(); c.isValid(); c.next()) {
                            c.key();
                        }
                    }
                    Thread.sleep(20);
                    // Renamed into place: a kill during the write must not leave the file empty.
                    Path tmp = idleFile.resolveSibling(idleFile.getFileName() + ".tmp");
                    Files.writeString(tmp, Long.toString(db.stats().compactions().idle()));
                    Files.move(tmp, idleFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
            }
        }
    }
}
