package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A file where a directory must go (the store, a checkpoint, a backup or a restore target, or one
 * of their parents) is reported as such, naming the file: the JDK's own error said only that the
 * path "already exists". And a backup of a closed store makes nothing.
 */
class PathsInTheWayTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aFileWhereADirectoryMustGoIsNamed() throws Exception {
        Path file = Files.writeString(tmp.resolve("afile"), "not a directory");
        NotDirectoryException e = assertThrows(NotDirectoryException.class, () -> RemixDB.open(file));
        assertEquals(file.toString(), e.getFile());
        e = assertThrows(NotDirectoryException.class, () -> RemixDB.open(file.resolve("store")));
        assertEquals(file.toString(), e.getFile());
        try (RemixDB db = RemixDB.open(tmp.resolve("store"))) {
            db.put(b("k"), b("v"));
            e = assertThrows(NotDirectoryException.class, () -> db.checkpoint(file.resolve("cp")));
            assertEquals(file.toString(), e.getFile());
            e = assertThrows(NotDirectoryException.class, () -> Backups.create(db, file.resolve("backups")));
            assertEquals(file.toString(), e.getFile());
            Backups.create(db, tmp.resolve("backups"));
        }
        e = assertThrows(NotDirectoryException.class, () -> Backups.restore(tmp.resolve("backups"), 1, file.resolve("r")));
        assertEquals(file.toString(), e.getFile());
        Backups.restore(tmp.resolve("backups"), 1, tmp.resolve("restored"));
        try (RemixDB db = RemixDB.open(tmp.resolve("restored"))) {
            assertArrayEquals(b("v"), db.get(b("k")));
        }
    }

    @Test
    void aBackupOfAClosedStoreMakesNothing() throws Exception {
        RemixDB db = RemixDB.open(tmp.resolve("store"));
        db.put(b("k"), b("v"));
        db.close();
        assertThrows(ClosedException.class, () -> Backups.create(db, tmp.resolve("backups")));
        assertFalse(Files.exists(tmp.resolve("backups")));
    }
}
