package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Through the store: a flipped bit in a record that a returned sync covered, that a checkpoint
 * holds, or that an open after a kill replayed and synced, is damage (the open refuses, or the
 * writes read back), never a torn tail cut with the writes in it. (The first version of WAL format
 * 3 cut all three: the sync was recorded only in the next record opened.)
 */
class SyncRecordStoreTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Every write in the file at once (a record each), none synced by itself. */
    private static Options options() {
        return Options.builder().walFlushMillis(0).syncWrites(false).build();
    }

    @Test
    void writesASyncAcknowledgedAreNotDroppedWhenTheirRecordRots() throws IOException {
        Path live = tmp.resolve("live");
        Path image = tmp.resolve("image");
        try (RemixDB db = RemixDB.open(live, options())) {
            putThree(db);
            db.sync();  // a, b and c are durable: the sync returned
            copyDir(live, image);  // a kill now (or a power cut: everything is synced)
        }
        flipFirstRecordAndOpen(image);
    }

    @Test
    void writesACheckpointHoldsAreNotDroppedWhenTheirRecordRots() throws IOException {
        Path live = tmp.resolve("live");
        Path cp = tmp.resolve("cp");
        try (RemixDB db = RemixDB.open(live, options())) {
            putThree(db);
            db.checkpoint(cp);  // a copy of the active WAL up to this moment: no closing mark, no synced op
        }
        flipFirstRecordAndOpen(cp);
    }

    @Test
    void writesAnOpenAfterAKillReplayedAreNotDroppedWhenTheirRecordRots() throws IOException {
        Path live = tmp.resolve("live");
        Path killed = tmp.resolve("killed");
        Path image = tmp.resolve("image");
        try (RemixDB db = RemixDB.open(live, options())) {
            putThree(db);
            copyDir(live, killed);  // a kill: in the WAL file, never synced
        }
        try (RemixDB db = RemixDB.open(killed, options())) {
            assertArrayEquals(b("1"), db.get(b("a")));  // replayed, and synced by the open
            copyDir(killed, image);  // a crash now: before any other write
        }
        flipFirstRecordAndOpen(image);
    }

    /** a, b and c, a record each (walFlushMillis 0), none synced. */
    private static void putThree(RemixDB db) throws IOException {
        db.put(b("a"), b("1"));
        db.put(b("b"), b("2"));
        db.put(b("c"), b("3"));
    }

    /** Bit rot in the newest WAL's first record: the open refuses, or a and c read back. */
    private void flipFirstRecordAndOpen(Path dir) throws IOException {
        flipInFirstRecord(newestWal(dir));
        openExpectingDataOrCorruption(dir);
    }

    private void openExpectingDataOrCorruption(Path dir) throws IOException {
        try (RemixDB db = RemixDB.open(dir, options())) {
            byte[] a = db.get(b("a"));
            byte[] c = db.get(b("c"));
            if (a == null || c == null) {
                fail("the store opened without a (" + (a == null ? "missing" : "there") + ") and c ("
                        + (c == null ? "missing" : "there") + "): a damaged synced record was cut as a torn tail");
            }
            assertArrayEquals(b("1"), a);
        } catch (dev.remixdb.CorruptionException | dev.remixdb.remix.CorruptionException expected) {
            // damage reported: right
        }
    }

    private static void flipInFirstRecord(Path wal) throws IOException {
        byte[] bytes = Files.readAllBytes(wal);
        bytes[24 + 12 + 12 + 3] ^= 1;  // the first record's first key byte
        Files.write(wal, bytes);
    }

    private static Path newestWal(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> wals = s.filter(p -> p.toString().endsWith(".wal"))
                    .filter(p -> {
                        try {
                            return Files.size(p) > 24;
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .sorted(Comparator.naturalOrder()).toList();
            return wals.getLast();
        }
    }

    private static void copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path p : s.toList()) {
                if (!p.getFileName().toString().equals("LOCK") && Files.isRegularFile(p)) {
                    Files.copy(p, to.resolve(p.getFileName()));
                }
            }
        }
    }
}
