package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A write that comes after a quiet spell of at least {@code walFlushMillis} is written to the WAL
 * file by its own thread, before it returns; writes that follow it closely are buffered and share
 * one write call, as before.
 */
class SparseWalWritesTest {
    @TempDir
    Path dir;

    @Test
    void aWriteAfterAQuietSpellIsInTheFileAtOnceAndCloseOnesAreBuffered() throws Exception {
        // A long interval: what reaches the file here cannot be the flusher's timed write.
        Options options = Options.builder().walFlushMillis(10_000).build();
        try (RemixDB db = RemixDB.open(dir, options)) {
            Thread.sleep(200);  // the flusher finds nothing to do and sleeps
            long before = walBytes();
            db.put(key(1), new byte[100]);
            long afterFirst = walBytes();
            assertTrue(afterFirst >= before + 100, "the first write after a quiet spell is in the file: "
                    + before + " -> " + afterFirst + " bytes");
            for (int i = 2; i <= 10; i++) {
                db.put(key(i), new byte[100]);
            }
            assertEquals(afterFirst, walBytes(), "writes close behind it stay buffered");
        }
        try (RemixDB db = RemixDB.open(dir, Options.builder().build())) {
            for (int i = 1; i <= 10; i++) {
                assertArrayEquals(new byte[100], db.get(key(i)), "key " + i + " after reopen");
            }
        }
    }

    private long walBytes() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            long sum = 0;
            for (Path p : files.filter(p -> p.getFileName().toString().endsWith(".wal")).toList()) {
                sum += Files.size(p);
            }
            return sum;
        }
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
