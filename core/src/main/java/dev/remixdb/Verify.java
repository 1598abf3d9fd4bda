package dev.remixdb;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The command line of {@link RemixDB#verify}: {@code java -cp remixdb-core.jar:... dev.remixdb.Verify
 * DIR...} (or {@code bench/run verify DIR...}). Prints each store's report; exits 0 when every
 * store is sound, 1 when one is damaged, 2 when one cannot be checked (open, missing, unreadable).
 */
public final class Verify {
    private Verify() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Verifies each directory in {@code args}; returns the exit code. */
    public static int run(String... args) {
        if (args.length == 0) {
            System.err.println("usage: verify DIR...   (checks every checksum of each closed store)");
            return 2;
        }
        int code = 0;
        for (String a : args) {
            try {
                VerifyReport r = RemixDB.verify(Path.of(a));
                System.out.println(a + ": " + r);
                code = Math.max(code, r.ok() ? 0 : 1);
            } catch (IOException | RuntimeException e) {
                System.out.println(a + ": CANNOT CHECK: " + e);
                code = 2;
            }
        }
        return code;
    }
}
