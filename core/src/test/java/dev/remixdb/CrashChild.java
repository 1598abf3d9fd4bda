package dev.remixdb;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child process of {@link CrashTest}: writes operation after operation into a store and prints
 * "S i" each time every operation up to i is synced, until it is killed.
 *
 * <p>Operation i touches key {@link #key(long)} (keys repeat, so later operations overwrite
 * earlier ones); every fifth operation is a delete, the others put {@link #value(long)}.
 */
public final class CrashChild {
    static final int KEYS = 5000;

    private CrashChild() {}

    static byte[] key(long i) {
        long k = (i * 2654435761L) % KEYS;
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    static boolean isDelete(long i) {
        return i % 5 == 4;
    }

    /** The value of operation i: its number, then padding so that values vary in size. */
    static byte[] value(long i) {
        byte[] v = new byte[8 + (int) (i % 97) * 3];
        for (int b = 0; b < 8; b++) {
            v[b] = (byte) (i >>> (56 - 8 * b));
        }
        for (int b = 8; b < v.length; b++) {
            v[b] = (byte) (i + b);
        }
        return v;
    }

    /** The operation number a value was written by. */
    static long operation(byte[] value) {
        long i = 0;
        for (int b = 0; b < 8; b++) {
            i = (i << 8) | (value[b] & 0xFF);
        }
        return i;
    }

    static Options options() {
        return Options.builder().memtableBytes(48 * 1024).tableBytes(16 * 1024).blockCacheBytes(1 << 20).build();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long start = Long.parseLong(args[1]);
        int syncEvery = Integer.parseInt(args[2]);
        try (RemixDB db = RemixDB.open(dir, options())) {
            System.out.println("OPEN");
            System.out.flush();
            for (long i = start; ; i++) {
                if (isDelete(i)) {
                    db.delete(key(i));
                } else {
                    db.put(key(i), value(i));
                }
                if (i % syncEvery == 0) {
                    db.sync();
                    System.out.println("S " + i);
                    System.out.flush();
                }
            }
        }
    }
}
