package dev.remixdb;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.NavigableMap;

/**
 * The child process of {@link DeleteRangeTest}'s crash test: applies {@link #apply operation} after
 * operation (puts, deletes and range deletes) to a store, syncing every 10 and printing "S i" when
 * every operation up to i is synced, until it is killed.
 */
public final class DeleteRangeChild {
    static final int KEYS = 3000;

    private DeleteRangeChild() {}

    static byte[] key(long n) {
        return String.format("r%05d", n % KEYS).getBytes(StandardCharsets.UTF_8);
    }

    /** Operation i, on the store (when {@code db} is not null) and on the model. */
    static void apply(long i, RemixDB db, NavigableMap<String, String> model) throws java.io.IOException {
        long k = (i * 2654435761L) % KEYS;
        if (i % 97 == 96) {
            byte[] from = key(k);
            byte[] to = key(Math.min(k + 1 + i % 60, KEYS - 1));
            if (java.util.Arrays.compareUnsigned(from, to) >= 0) {
                return;
            }
            if (db != null) {
                db.deleteRange(from, to);
            }
            model.subMap(new String(from, StandardCharsets.UTF_8), true, new String(to, StandardCharsets.UTF_8), false)
                    .clear();
        } else if (i % 7 == 6) {
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
        try (RemixDB db = RemixDB.open(Path.of(args[0]), CrashChild.options())) {
            NavigableMap<String, String> ignored = new java.util.TreeMap<>();
            for (long i = 0; ; i++) {
                apply(i, db, ignored);
                if (i % 10 == 9) {
                    db.sync();
                    System.out.println("S " + i);
                    System.out.flush();
                }
            }
        }
    }
}
