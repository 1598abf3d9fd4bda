package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Backups}: numbered backups that share unchanged files, each restoring to the store as of
 * its moment; retention; damage found at restore, never restored silently; torn backups ignored and
 * cleaned; kill -9 while backing up.
 */
class BackupsTest {
    @TempDir
    Path tmp;

    private static Options small() {
        return Options.builder().memtableBytes(64 * 1024).tableBytes(16 * 1024).blockCacheBytes(1 << 20).build();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> contents(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (RemixDB db = RemixDB.open(dir, small()); Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                out.put(new String(c.key(), StandardCharsets.UTF_8), new String(c.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static void writeSome(RemixDB db, TreeMap<String, String> model, Random r, int n, int round)
            throws IOException {
        writeSome(db, model, r, n, round, 3000);
    }

    /** {@code n} puts and deletes of keys below {@code keys}. */
    private static void writeSome(RemixDB db, TreeMap<String, String> model, Random r, int n, int round, int keys)
            throws IOException {
        for (int i = 0; i < n; i++) {
            String k = String.format("k%06d", r.nextInt(keys));
            if (r.nextInt(8) == 0) {
                db.delete(b(k));
                model.remove(k);
            } else {
                String v = "v" + round + "-" + i + "x".repeat(r.nextInt(50));
                db.put(b(k), b(v));
                model.put(k, v);
            }
        }
    }

    @Test
    void backupsShareFilesAndEachRestoresItsMoment() throws Exception {
        Path backups = tmp.resolve("backups");
        TreeMap<String, String> model = new TreeMap<>();
        List<Map<String, String>> expected = new ArrayList<>();
        List<BackupInfo> made = new ArrayList<>();
        Random r = new Random(3);
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            for (int round = 0; round < 4; round++) {
                // A big first load over many partitions, then small updates at the start of the key
                // space: later backups share the untouched partitions' files. The load is compacted
                // before the first backup: otherwise that backup may catch most of it still in WALs
                // and the second one its tables, depending on how far compaction got (CI saw 1.1 MB
                // of 1.6 MB added by backup 2).
                writeSome(db, model, r, round == 0 ? 60_000 : 500, round, round == 0 ? 40_000 : 400);
                if (round == 0 || round == 2) {
                    db.compactMemtable();
                }
                BackupInfo info = Backups.create(db, backups);
                assertEquals(round + 1, info.id());
                made.add(info);
                expected.add(new TreeMap<>(model));
            }
        }
        assertTrue(made.get(1).bytesAdded() < made.get(1).bytes() / 2,
                "a later backup adds its new files only: " + made.get(1));
        assertEquals(List.of(1L, 2L, 3L, 4L), Backups.list(backups).stream().map(BackupInfo::id).toList());
        for (int i = 0; i < made.size(); i++) {
            long id = made.get(i).id();
            assertEquals(List.of(), Backups.verify(backups, id));
            Path target = tmp.resolve("restored-" + id);
            Backups.restore(backups, id, target);
            assertTrue(RemixDB.verify(target).ok());
            assertEquals(expected.get(i), contents(target), "backup " + id);
        }
        assertThrows(FileAlreadyExistsException.class, () -> Backups.restore(backups, 1, tmp.resolve("restored-1")));
        assertThrows(NoSuchFileException.class, () -> Backups.restore(backups, 9, tmp.resolve("nine")));
        assertFalse(Files.exists(tmp.resolve("nine")));
    }

    @Test
    void retentionKeepsTheNewestAndDropsUnusedFiles() throws Exception {
        Path backups = tmp.resolve("backups");
        TreeMap<String, String> model = new TreeMap<>();
        Random r = new Random(4);
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            for (int round = 0; round < 5; round++) {
                writeSome(db, model, r, 3000, round);
                db.compactMemtable();
                Backups.create(db, backups, 2);
            }
        }
        List<BackupInfo> left = Backups.list(backups);
        assertEquals(List.of(4L, 5L), left.stream().map(BackupInfo::id).toList());
        long sharedFiles;
        try (Stream<Path> s = Files.list(backups.resolve("shared"))) {
            sharedFiles = s.count();
        }
        assertTrue(sharedFiles <= left.get(0).files() + left.get(1).files(), "unused shared files were deleted");
        assertFalse(Files.exists(backups.resolve("private").resolve("1")));
        Backups.restore(backups, 5, tmp.resolve("r5"));
        assertEquals(model, contents(tmp.resolve("r5")));
        Backups.delete(backups, 4);
        assertEquals(List.of(5L), Backups.list(backups).stream().map(BackupInfo::id).toList());
        Backups.restore(backups, 5, tmp.resolve("r5b"));
        assertEquals(model, contents(tmp.resolve("r5b")));
    }

    @Test
    void damageIsReportedNeverRestored() throws Exception {
        Path backups = tmp.resolve("backups");
        TreeMap<String, String> model = new TreeMap<>();
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            writeSome(db, model, new Random(5), 5000, 0);
            db.compactMemtable();
            Backups.create(db, backups);
        }
        Path victim;
        try (Stream<Path> s = Files.list(backups.resolve("shared"))) {
            victim = s.filter(p -> p.getFileName().toString().contains(".tbl.")).findFirst().orElseThrow();
        }
        try (FileChannel ch = FileChannel.open(victim, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, 100);
            one.put(0, (byte) (one.get(0) ^ 0x40)).rewind();
            ch.write(one, 100);
        }
        List<String> problems = Backups.verify(backups, 1);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().contains(victim.getFileName().toString()));
        Path target = tmp.resolve("restored");
        CorruptionException e = assertThrows(CorruptionException.class, () -> Backups.restore(backups, 1, target));
        assertEquals(victim, e.file());
        assertFalse(Files.exists(target), "nothing is left at the target");
        Files.delete(victim);
        assertThrows(CorruptionException.class, () -> Backups.restore(backups, 1, target));
        assertFalse(Files.exists(target));
    }

    @Test
    void tornBackupsAreIgnoredAndCleaned() throws Exception {
        Path backups = tmp.resolve("backups");
        TreeMap<String, String> model = new TreeMap<>();
        try (RemixDB db = RemixDB.open(tmp.resolve("store"), small())) {
            writeSome(db, model, new Random(6), 3000, 0);
            Backups.create(db, backups);
            // What a crash in the middle of backup 2 leaves: its staging checkpoint, some of its
            // files, a descriptor not yet renamed; and a descriptor cut short (backup 3's).
            Files.createDirectories(backups.resolve(".staging-2"));
            Files.createDirectories(backups.resolve("private").resolve("2"));
            Files.writeString(backups.resolve("private").resolve("2").resolve("MANIFEST"), "half");
            Files.writeString(backups.resolve("shared").resolve("000999.tbl.4.0badc0de"), "junk");
            Files.writeString(backups.resolve("meta").resolve("2.tmp"), "remixdb-backup 1\nid 2\n");
            Files.writeString(backups.resolve("meta").resolve("3"), "remixdb-backup 1\nid 3\ncreated");
            assertEquals(List.of(1L), Backups.list(backups).stream().map(BackupInfo::id).toList());
            assertThrows(NoSuchFileException.class, () -> Backups.restore(backups, 3, tmp.resolve("x")));
            assertEquals(1, Backups.damaged(backups).size(), "the cut-short descriptor is reported");
            writeSome(db, model, new Random(7), 500, 1);
            // Descriptors are renamed into place whole, so one cut short is damage, not a crash: it
            // and every shared file stay (which ones it needs cannot be read), and its number is
            // not taken again. Backup 2's leftovers go.
            BackupInfo next = Backups.create(db, backups);
            assertEquals(4, next.id());
            assertFalse(Files.exists(backups.resolve(".staging-2")));
            assertFalse(Files.exists(backups.resolve("private").resolve("2")));
            assertFalse(Files.exists(backups.resolve("meta").resolve("2.tmp")));
            assertTrue(Files.exists(backups.resolve("meta").resolve("3")));
            assertTrue(Files.exists(backups.resolve("shared").resolve("000999.tbl.4.0badc0de")));
            // Once the user removes the damaged descriptor, the next backup cleans what nothing uses.
            Files.delete(backups.resolve("meta").resolve("3"));
            writeSome(db, model, new Random(8), 200, 2);
            assertEquals(5, Backups.create(db, backups).id());
        }
        assertFalse(Files.exists(backups.resolve("shared").resolve("000999.tbl.4.0badc0de")));
        Backups.restore(backups, 5, tmp.resolve("r5"));
        assertEquals(model, contents(tmp.resolve("r5")));
    }

    @Test
    void badArgumentsAreRefused() throws Exception {
        Path store = tmp.resolve("store");
        try (RemixDB db = RemixDB.open(store, small())) {
            assertThrows(IllegalArgumentException.class, () -> Backups.create(db, tmp.resolve("b"), 0));
            assertThrows(IllegalArgumentException.class, () -> Backups.create(null, tmp.resolve("b")));
            assertThrows(IllegalArgumentException.class, () -> Backups.create(db, store.resolve("inside")));
        }
    }

    /**
     * A process backing up in a loop (keeping 3) killed with SIGKILL at random moments: every
     * backup listed afterwards verifies and restores to a store that verifies and holds the state
     * after a prefix of the writes; the next backup works.
     */
    @Test
    void killNineWhileBackingUp() throws Exception {
        Random r = new Random(8);
        for (int round = 0; round < 3; round++) {
            Path store = tmp.resolve("store-" + round);
            Path backups = tmp.resolve("backups-" + round);
            KilledChild child = KilledChild.start(BackupChild.class, "B", store.toString(), backups.toString());
            long minimum = 2 + r.nextInt(3);
            long last = child.killWhen(() -> child.lines() >= minimum, r.nextInt(40));
            List<BackupInfo> listed = Backups.list(backups);
            assertFalse(listed.isEmpty());
            assertTrue(listed.getLast().id() >= last, listed + " but the child reported " + last);
            for (BackupInfo b : listed) {
                assertEquals(List.of(), Backups.verify(backups, b.id()));
                Path target = tmp.resolve("restore-" + round + "-" + b.id());
                Backups.restore(backups, b.id(), target);
                assertTrue(RemixDB.verify(target).ok());
                try (RemixDB copy = RemixDB.open(target, CrashChild.options())) {
                    CheckpointTest.assertPrefixState(copy, target);
                }
            }
            try (RemixDB db = RemixDB.open(store, CrashChild.options())) {
                BackupInfo next = Backups.create(db, backups, 3);
                assertEquals(List.of(), Backups.verify(backups, next.id()));
            }
        }
    }
}
