package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link Backups} does with the directory it is given: it refuses the store's own directory,
 * a directory inside it and a directory of other files, never deletes what a damaged descriptor's
 * backup needs, and replaces a shared file whose size shows it damaged.
 */
class BackupDirectoryTest {
    @TempDir
    Path tmp;

    private static Options small() {
        return Options.builder().memtableBytes(64 * 1024).tableBytes(16 * 1024).blockCacheBytes(1 << 20).build();
    }

    private static void load(RemixDB db, int from, int n) throws Exception {
        for (int i = from; i < from + n; i++) {
            db.put(String.format("k%06d", i).getBytes(StandardCharsets.UTF_8), new byte[100]);
        }
        db.compactMemtable();
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theStoresOwnDirectoryAndDirectoriesOfOtherFilesAreRefusedUntouched() throws Exception {
        Path store = tmp.resolve("store");
        Path others = Files.createDirectories(tmp.resolve("others"));
        Files.writeString(others.resolve("notes.txt"), "keep me");
        Files.createDirectories(others.resolve("shared"));
        Files.writeString(others.resolve("shared").resolve("photo.jpg"), "keep me too");
        try (RemixDB db = RemixDB.open(store, small())) {
            load(db, 0, 500);
            List<String> before = names(store);
            assertThrows(IllegalArgumentException.class, () -> Backups.create(db, store));
            assertThrows(IllegalArgumentException.class, () -> Backups.create(db, store.resolve("backups")));
            assertThrows(IllegalArgumentException.class, () -> Backups.create(db, tmp));
            Path link = Files.createSymbolicLink(tmp.resolve("link"), store);
            assertThrows(IllegalArgumentException.class, () -> Backups.create(db, link.resolve("b")));
            assertEquals(before, names(store), "nothing was created in the store's directory");

            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Backups.create(db, others));
            assertTrue(e.getMessage().contains("notes.txt"), e.getMessage());
            assertEquals("keep me too", Files.readString(others.resolve("shared").resolve("photo.jpg")));
            assertEquals(List.of("LOCK", "notes.txt", "shared"), names(others));

            // The store still works, and a proper backup directory still takes backups.
            load(db, 500, 10);
            assertEquals(1, Backups.create(db, tmp.resolve("backups")).id());
        }
    }

    @Test
    void aDirectoryOfAnOlderBuildIsMarkedAndKept() throws Exception {
        Path backups = tmp.resolve("backups");
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            load(db, 0, 300);
            Backups.create(db, backups);
            Files.delete(backups.resolve("BACKUPS"));  // as a build before the mark left it
            assertEquals(2, Backups.create(db, backups).id());
            assertTrue(Files.exists(backups.resolve("BACKUPS")));
            assertEquals(List.of(1L, 2L), Backups.list(backups).stream().map(BackupInfo::id).toList());
        }
    }

    @Test
    void aDamagedDescriptorKeepsItsBackupsFilesAndNumber() throws Exception {
        Path backups = tmp.resolve("backups");
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            load(db, 0, 500);
            Backups.create(db, backups);
            load(db, 500, 500);
            Backups.create(db, backups);
            List<String> shared = names(backups.resolve("shared"));
            // Backup 1's descriptor loses a byte: its backup stops being listed, nothing more.
            Path meta1 = backups.resolve("meta").resolve("1");
            byte[] bytes = Files.readAllBytes(meta1);
            bytes[20] ^= 1;
            Files.write(meta1, bytes);
            assertEquals(List.of(2L), Backups.list(backups).stream().map(BackupInfo::id).toList());
            List<String> damaged = Backups.damaged(backups);
            assertEquals(1, damaged.size(), damaged.toString());
            assertTrue(damaged.getFirst().contains("CRC32C"), damaged.getFirst());

            load(db, 1000, 100);
            assertEquals(3, Backups.create(db, backups, 1).id(), "number 1 is not taken again");
            assertTrue(Files.exists(meta1), "the damaged descriptor is kept");
            assertTrue(Files.isDirectory(backups.resolve("private").resolve("1")), "so are its own files");
            assertTrue(names(backups.resolve("shared")).containsAll(shared), "and every shared file");
            assertEquals(List.of(3L), Backups.list(backups).stream().map(BackupInfo::id).toList(), "keep 1");
        }
    }

    @Test
    void aSharedFileOfTheWrongSizeIsCopiedAgain() throws Exception {
        Path backups = tmp.resolve("backups");
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            load(db, 0, 500);
            Backups.create(db, backups);
            Path victim;
            try (Stream<Path> s = Files.list(backups.resolve("shared"))) {
                victim = s.filter(p -> p.getFileName().toString().contains(".tbl.")).findFirst().orElseThrow();
            }
            byte[] whole = Files.readAllBytes(victim);
            Files.write(victim, java.util.Arrays.copyOf(whole, whole.length / 2));
            assertFalse(Backups.verify(backups, 1).isEmpty());

            Backups.create(db, backups);
            assertEquals(List.of(), Backups.verify(backups, 2), "the new backup has a whole copy");
            assertEquals(List.of(), Backups.verify(backups, 1), "which repairs the older one sharing it");
            Backups.restore(backups, 2, tmp.resolve("restored"));
        }
    }

    @Test
    void aMarkLeftHalfWrittenByACrashDoesNotSpoilTheDirectory() throws Exception {
        Path backups = Files.createDirectories(tmp.resolve("backups"));
        // What a kill inside the first create leaves: the lock, and the mark before its rename.
        Files.writeString(backups.resolve("LOCK"), "");
        Files.writeString(backups.resolve("BACKUPS.tmp"), "remixdb-backups 1\n");
        assertTrue(Backups.list(backups).isEmpty());
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            load(db, 0, 100);
            Backups.create(db, backups, 2);
        }
        assertEquals(1, Backups.list(backups).size());
    }

    @Test
    void listingWhileCreatePrunesSeesWholeBackupsOnly() throws Exception {
        Path backups = tmp.resolve("backups");
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            load(db, 0, 100);
            Backups.create(db, backups, 1);
            java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread creating = new Thread(() -> {
                try {
                    for (int i = 0; i < 30 && !stop.get(); i++) {
                        db.put(new byte[] {(byte) i}, new byte[] {1});
                        Backups.create(db, backups, 1);  // prunes the one before
                    }
                } catch (Throwable t) {
                    failed.set(t);
                } finally {
                    stop.set(true);
                }
            });
            creating.start();
            try {
                while (!stop.get()) {
                    Backups.list(backups);
                    Backups.damaged(backups);
                }
            } finally {
                stop.set(true);
                creating.join();
            }
            assertEquals(null, failed.get());
        }
    }

    @Test
    void twoRestoresToOneTargetAtOnceLeaveOneWholeStore() throws Exception {
        Path backups = tmp.resolve("backups");
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            load(db, 0, 2_000);
            Backups.create(db, backups, 2);
        }
        long id = Backups.list(backups).getFirst().id();
        for (int round = 0; round < 10; round++) {
            Path target = tmp.resolve("restored-" + round);
            AtOnce.oneMakesItTheOtherIsRefused("round " + round, i -> Backups.restore(backups, id, target));
            assertTrue(RemixDB.verify(target).ok(), "round " + round + ": " + RemixDB.verify(target));
        }
    }

    /** A store restored inside the backups' directory used to stop every later backup there. */
    @Test
    void aRestoreInsideTheBackupDirectoryIsRefused() throws Exception {
        Path backups = tmp.resolve("backups");
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            db.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
            Backups.create(db, backups);
            Path link = Files.createSymbolicLink(tmp.resolve("link-to-backups"), backups);
            for (Path inside : List.of(backups.resolve("r"), backups.resolve("shared").resolve("r"),
                    backups.resolve("x").resolve("..").resolve("r2"), link.resolve("r3"))) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> Backups.restore(backups, 1, inside));
                assertTrue(e.getMessage().contains("inside the backup directory"), e.getMessage());
                assertFalse(Files.exists(inside));
            }
            assertEquals(2, Backups.create(db, backups).id(), "backups go on");
        }
    }

    @Test
    void listingAMissingDirectoryIsAnError() {
        assertThrows(NoSuchFileException.class, () -> Backups.list(tmp.resolve("typo")));
    }

    @Test
    void listingADirectoryThatIsNotOneOfBackupsIsAnErrorAndAnEmptyOneIsNot() throws Exception {
        Path store = tmp.resolve("store");
        try (RemixDB db = RemixDB.open(store, small())) {
            db.put(new byte[] {1}, new byte[] {2});
        }
        java.nio.file.FileSystemException e = assertThrows(java.nio.file.FileSystemException.class,
                () -> Backups.list(store));
        assertTrue(e.getMessage().contains("not a backup directory"), e.getMessage());
        assertTrue(Backups.list(Files.createDirectories(tmp.resolve("empty"))).isEmpty());
    }
}
