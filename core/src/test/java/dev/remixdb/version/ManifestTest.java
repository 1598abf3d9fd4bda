package dev.remixdb.version;

import dev.remixdb.files.FileNames;
import dev.remixdb.remix.CorruptionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ManifestTest {
    @TempDir
    Path dir;

    private static Manifest.Data sample() {
        return new Manifest.Data(42, 17, 123456, 9, List.of(
                new Manifest.PartitionEntry(new byte[0], 5, new long[] {1, 2, 3}),
                new Manifest.PartitionEntry(new byte[] {7, (byte) 0xFF}, 0, new long[0]),
                new Manifest.PartitionEntry(new byte[] {8}, 11, new long[] {10})));
    }

    @Test
    void writeThenReadGivesTheSameData() throws IOException {
        assertNull(Manifest.read(dir));
        Manifest.write(dir, sample());
        Manifest.Data back = Manifest.read(dir);
        assertEquals(42, back.nextFileNumber());
        assertEquals(17, back.firstLiveWal());
        assertEquals(123456, back.lastSequence());
        assertEquals(9, back.versionSequence());
        assertEquals(3, back.partitions().size());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(sample().partitions().get(i).lower(), back.partitions().get(i).lower());
            assertEquals(sample().partitions().get(i).remixFile(), back.partitions().get(i).remixFile());
            assertArrayEquals(sample().partitions().get(i).tables(), back.partitions().get(i).tables());
        }
        assertFalse(Files.exists(dir.resolve(FileNames.MANIFEST_TMP)), "the temporary file was renamed");
    }

    @Test
    void everyFlippedByteIsDetected() {
        byte[] good = Manifest.encode(sample());
        Path file = dir.resolve(FileNames.MANIFEST);
        for (int i = 0; i < good.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] bad = good.clone();
                bad[i] ^= (byte) (1 << bit);
                CorruptionException e = assertThrows(CorruptionException.class, () -> Manifest.decode(file, bad),
                        "byte " + i + " bit " + bit);
                assertEquals(file, e.file());
            }
        }
    }

    @Test
    void truncatedOrExtendedManifestIsCorrupt() {
        byte[] good = Manifest.encode(sample());
        Path file = dir.resolve(FileNames.MANIFEST);
        for (int len = 0; len < good.length; len++) {
            byte[] cut = java.util.Arrays.copyOf(good, len);
            assertThrows(CorruptionException.class, () -> Manifest.decode(file, cut), "length " + len);
        }
        byte[] longer = java.util.Arrays.copyOf(good, good.length + 3);
        assertThrows(CorruptionException.class, () -> Manifest.decode(file, longer));
    }

    @Test
    void fileNamesRoundTrip() {
        assertEquals("000123.tbl", FileNames.table(dir, 123).getFileName().toString());
        assertEquals(123, FileNames.number("000123.tbl", FileNames.TABLE).getAsLong());
        assertEquals(1234567, FileNames.number("1234567.wal", FileNames.WAL).getAsLong());
        assertFalse(FileNames.number("x123.tbl", FileNames.TABLE).isPresent());
        assertFalse(FileNames.number(".tbl", FileNames.TABLE).isPresent());
        assertFalse(FileNames.number("000123.rmx", FileNames.TABLE).isPresent());
    }
}
