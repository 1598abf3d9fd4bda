package dev.remixdb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.RemixDB;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code verify}'s exit codes through the command line: 0 sound, 1 damaged, 2 not checkable or no store named. */
class VerifyCommandTest {
    @TempDir
    Path tmp;

    private static int run(String... argv) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        System.setOut(sink);
        System.setErr(sink);
        try {
            return BenchMain.run(argv);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void exitCodesSayWhatWasFound() throws Exception {
        Path store = tmp.resolve("store");
        try (RemixDB db = RemixDB.open(store)) {
            for (int i = 0; i < 5000; i++) {
                db.put(String.format("%016x", i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            db.compactMemtable();
        }
        assertEquals(0, run("verify", store.toString()), "a sound store");
        assertEquals(2, run("verify", tmp.resolve("absent").toString()), "no store there");
        assertEquals(2, run("verify"), "no directory named");
        assertEquals(0, run("verify", "--help"));

        // Damage the largest file (a table) in its middle: a checksum no longer matches.
        Path largest;
        try (Stream<Path> files = Files.walk(store)) {
            largest = files.filter(Files::isRegularFile).max(Comparator.comparingLong(VerifyCommandTest::size))
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(largest);
        assertTrue(bytes.length > 1000, largest + " is " + bytes.length + " bytes");
        bytes[bytes.length / 2] ^= 0x5A;
        Files.write(largest, bytes);
        assertEquals(1, run("verify", store.toString()), "damage found in " + largest.getFileName());
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (java.io.IOException e) {
            return -1;
        }
    }
}
