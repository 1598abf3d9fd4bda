package dev.remixdb.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.table.TableFixture.Kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

/** {@link TableWriter}: argument checks that leave the writer usable, limits, and the file's life cycle. */
class TableWriterTest {
    @TempDir
    Path dir;

    private static byte[] b(int... v) {
        byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (byte) v[i];
        }
        return out;
    }

    @Test
    void outOfOrderAndDuplicateKeysAreRejectedAndChangeNothing() throws IOException {
        Path p = dir.resolve("t");
        try (TableWriter w = new TableWriter(p, TableOptions.DEFAULT)) {
            w.add(b(1), b(10));
            w.add(b(3), b(30));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.add(b(2), b(20)));
            assertTrue(e.getMessage().contains("0x02") && e.getMessage().contains("0x03"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> w.add(b(3), b(31)));
            assertThrows(IllegalArgumentException.class, () -> w.delete(b(0)));
            assertEquals(2, w.keyCount());
            w.add(b(0xFF), b(40));
            w.finish();
        }
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            List<Kv> expected = List.of(new Kv(b(1), b(10)), new Kv(b(3), b(30)), new Kv(b(0xFF), b(40)));
            new CursorChecks(f.open("t"), expected, "after rejected keys").all(new Random(1));
        }
    }

    @Test
    void closeBeforeFinishDeletesThePartialFile() throws IOException {
        Path p = dir.resolve("t");
        try (TableWriter w = new TableWriter(p, TableOptions.DEFAULT)) {
            for (int i = 0; i < 5000; i++) {
                w.add(String.format("key%08d", i).getBytes(), new byte[100]);
            }
            assertTrue(Files.exists(p));
            assertThrows(IllegalArgumentException.class, () -> w.add(b(0), b()));
        }
        assertFalse(Files.exists(p));
    }

    @Test
    void lifeCycle() throws IOException {
        Path p = dir.resolve("t");
        Files.write(p, b(1));
        assertThrows(FileAlreadyExistsException.class, () -> new TableWriter(p, TableOptions.DEFAULT));
        Files.delete(p);
        TableWriter w = new TableWriter(p, TableOptions.DEFAULT);
        w.add(b(1), b(2));
        TableInfo info = w.finish();
        assertEquals(1, info.keyCount());
        assertEquals(Files.size(p), info.fileBytes());
        assertArrayEquals(b(1), info.firstKey());
        assertArrayEquals(b(1), info.lastKey());
        assertThrows(IllegalStateException.class, () -> w.add(b(2), b(3)));
        assertThrows(IllegalStateException.class, w::finish);
        w.close();
        w.close();
        assertTrue(Files.exists(p), "close after finish keeps the file");
    }

    @Test
    void lengthLimits() throws IOException {
        Path p = dir.resolve("t");
        byte[] longest = new byte[65536];
        Arrays.fill(longest, (byte) 0x61);
        try (TableWriter w = new TableWriter(p, TableOptions.DEFAULT)) {
            assertThrows(IllegalArgumentException.class, () -> w.add(new byte[65537], b()));
            assertThrows(IllegalArgumentException.class,
                    () -> w.add(MemorySegment.ofArray(b(1)), 0, 1, MemorySegment.NULL, 0, 1, true));
            assertThrows(IndexOutOfBoundsException.class,
                    () -> w.add(MemorySegment.ofArray(b(1)), 0, 2, MemorySegment.NULL, 0, 0, false));
            w.add(new byte[0], new byte[0]);
            w.delete(b(0));
            w.add(longest, b(7));
            w.delete(b(0x62));
            w.finish();
        }
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            List<Kv> expected = List.of(new Kv(new byte[0], new byte[0]), new Kv(b(0), null), new Kv(longest, b(7)),
                    new Kv(b(0x62), null));
            new CursorChecks(f.open("t"), expected, "limits").all(new Random(2));
        }
    }

    @Test
    void largestValue() throws IOException {
        Path p = dir.resolve("big");
        byte[] value = new byte[64 << 20];
        new Random(3).nextBytes(value);
        for (int i = 1 << 20; i < value.length; i++) {
            value[i] = value[i - (1 << 20)];  // compressible, so the LZ4 path sees it
        }
        CRC32C crc = new CRC32C();
        crc.update(value);
        long expected = crc.getValue();
        try (TableWriter w = new TableWriter(p, TableOptions.DEFAULT.withCompression(BlockCompression.LZ4))) {
            assertThrows(IllegalArgumentException.class, () -> w.add(b(0), new byte[(64 << 20) + 1]));
            w.add(b(1), b(1));
            w.add(b(2), value);
            w.add(b(3), b(3));
            w.finish();
        }
        value = null;
        try (TableFixture f = new TableFixture(dir, 1 << 20)) {
            Table t = f.open("big");
            assertEquals(3, t.blockCount());
            try (TableCursor c = t.newCursor()) {
                c.seek(MemorySegment.ofArray(b(2)), 0, 1);
                assertEquals(64 << 20, c.valueLength());
                CRC32C actual = new CRC32C();
                actual.update(c.valueSegment().asSlice(c.valueOffset(), c.valueLength()).asByteBuffer());
                assertEquals(expected, actual.getValue());
                c.next();
                assertArrayEquals(b(3), TableFixture.bytes(c.keySegment(), c.keyOffset(), c.keyLength()));
            }
        }
    }

    @Test
    void estimatedBytesTracksTheFileSize() throws IOException {
        Random rnd = new Random(4);
        List<Kv> kvs = TableFixture.randomKvs(rnd, 3000, 0.1);
        Path p = dir.resolve("t");
        long estimate;
        try (TableWriter w = new TableWriter(p, TableOptions.DEFAULT)) {
            long previous = 0;
            for (Kv kv : kvs) {
                if (kv.tombstone()) {
                    w.delete(kv.key());
                } else {
                    w.add(kv.key(), kv.value());
                }
                assertTrue(w.estimatedBytes() >= previous);
                previous = w.estimatedBytes();
            }
            estimate = w.estimatedBytes();
            w.finish();
        }
        long actual = Files.size(p);
        assertTrue(Math.abs(estimate - actual) <= actual / 20, "estimate " + estimate + ", file " + actual);
    }
}
