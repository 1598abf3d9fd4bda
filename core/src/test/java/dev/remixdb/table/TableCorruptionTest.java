package dev.remixdb.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.KeySource;
import dev.remixdb.table.TableFixture.Kv;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * Damaged table files: a flipped byte anywhere is detected (a {@link CorruptionException}) unless it
 * is padding between blocks, where the data must come back exactly right; a truncated or extended file
 * fails at open; and a "forged" file, damaged and then given valid CRCs again, still yields only a
 * {@link CorruptionException} or data, never another exception, because every length is bounds-checked.
 */
class TableCorruptionTest {
    @TempDir
    Path dir;

    private static final int FLIPS = 150;
    private static final int FORGERIES = 120;

    private List<Kv> kvs;
    private byte[] original;
    private TableFixture fixture;
    private int files;

    @AfterEach
    void closeFixture() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private void prepare(BlockCompression compression) throws IOException {
        kvs = TableFixture.randomKvs(new Random(1234 + compression.ordinal()), 400, 0.2);
        fixture = new TableFixture(dir, 64 * 1024);
        fixture.write("original", kvs, new TableOptions(1024, compression, true));
        original = Files.readAllBytes(dir.resolve("original"));
    }

    @ParameterizedTest
    @EnumSource(BlockCompression.class)
    void everyFlippedByteIsDetectedUnlessItIsPadding(BlockCompression compression) throws IOException {
        prepare(compression);
        boolean[] padding = padding();
        Random rnd = new Random(77);
        int detected = 0;
        int paddingFlips = 0;
        {
            for (int k = 0; k < FLIPS + 10; k++) {
                // A share of the flips goes to the small regions (footer, metadata sections), the rest anywhere.
                int at = k < 10 ? original.length - 1 - k * 12 : k % 3 == 0
                        ? metadataStart() + rnd.nextInt(original.length - metadataStart()) : rnd.nextInt(original.length);
                byte[] damaged = original.clone();
                damaged[at] ^= (byte) rnd.nextInt(1, 256);
                Outcome o = readBack(damaged, true);
                if (padding[at]) {
                    paddingFlips++;
                    assertEquals(Outcome.CORRECT, o, "flip in padding at " + at);
                } else {
                    assertEquals(Outcome.CORRUPTION, o, "flip at " + at + " of " + original.length);
                    detected++;
                }
            }
        }
        assertTrue(detected > FLIPS / 2, detected + " detected");
        if (compression == BlockCompression.NONE) {
            assertTrue(paddingFlips > 0, "uncompressed 1 KiB blocks leave padding to hit");
        }
    }

    @ParameterizedTest
    @EnumSource(BlockCompression.class)
    void truncatedOrExtendedFilesFailAtOpen(BlockCompression compression) throws IOException {
        prepare(compression);
        {
            int n = original.length;
            for (int length : new int[] {0, 1, 127, 128, 129, n / 2, n - 129, n - 128, n - 1}) {
                Path p = store(Arrays.copyOf(original, length));
                assertThrows(CorruptionException.class, () -> fixture.open(p.getFileName().toString()), "length " + length);
            }
            Path longer = store(Arrays.copyOf(original, n + 7));
            CorruptionException e = assertThrows(CorruptionException.class, () -> fixture.open(longer.getFileName().toString()));
            assertEquals(longer, e.file());
            assertEquals(Outcome.CORRECT, readBack(original, true));
        }
    }

    @ParameterizedTest
    @EnumSource(BlockCompression.class)
    void forgedFilesNeverBreakBoundsChecks(BlockCompression compression) throws IOException {
        prepare(compression);
        Random rnd = new Random(5);
        int corrupt = 0;
        {
            for (int k = 0; k < FORGERIES; k++) {
                byte[] forged = original.clone();
                int flips = rnd.nextInt(1, 4);
                for (int i = 0; i < flips; i++) {
                    int at = switch (k % 3) {
                        case 0 -> blockHead(rnd);  // key count, offset array, first entries' lengths
                        case 1 -> rnd.nextInt(forged.length);
                        default -> metadataStart() + rnd.nextInt(forged.length - metadataStart());
                    };
                    forged[at] ^= (byte) (1 << rnd.nextInt(8));
                }
                reseal(forged);
                if (readBack(forged, false) == Outcome.CORRUPTION) {
                    corrupt++;
                }
            }
        }
        assertTrue(corrupt > FORGERIES / 4, corrupt + " forgeries detected");
    }

    private enum Outcome { CORRECT, CORRUPTION, READ }

    /**
     * Opens {@code bytes} as a table and reads every entry, seeks to every key and reads the keys block.
     * With {@code strict}, everything read must equal the original entries.
     */
    /** Reads every entry from the first; with {@code strict} each must equal the original. */
    private void walk(TableCursor c, boolean strict, String label) {
        c.seekTo(0);
        for (int i = 0; c.isValid(); i++, c.next()) {
            byte[] key = TableFixture.bytes(c.keySegment(), c.keyOffset(), c.keyLength());
            byte[] value = TableFixture.bytes(c.valueSegment(), c.valueOffset(), c.valueLength());
            if (strict) {
                Kv kv = kvs.get(i);
                assertArrayEquals(kv.key(), key, label + "key " + i);
                assertEquals(kv.tombstone(), c.isTombstone(), label + "key " + i);
                assertArrayEquals(kv.tombstone() ? new byte[0] : kv.value(), value, label + "value " + i);
            }
        }
    }

    private Outcome readBack(byte[] bytes, boolean strict) throws IOException {
        Path p = store(bytes);
        try (Table t = fixture.open(p.getFileName().toString())) {
            // A scan cursor first, while no block is cached: it reads its blocks a window at a time.
            try (TableCursor c = t.newScanCursor()) {
                walk(c, strict, "scan ");
            }
            try (TableCursor c = t.newCursor()) {
                walk(c, strict, "");
                for (Kv kv : kvs) {
                    c.seek(MemorySegment.ofArray(kv.key()), 0, kv.key().length);
                    if (strict) {
                        assertTrue(c.isValid());
                        assertArrayEquals(kv.key(), TableFixture.bytes(c.keySegment(), c.keyOffset(), c.keyLength()));
                    } else if (c.isValid()) {
                        c.valueLength();
                    }
                }
            }
            try (KeySource ks = t.keySource()) {
                int i = 0;
                while (ks.next()) {
                    if (strict) {
                        assertArrayEquals(kvs.get(i).key(), TableFixture.bytes(ks.keySegment(), ks.keyOffset(), ks.keyLength()));
                        assertEquals(kvs.get(i).tombstone(), ks.isTombstone());
                    }
                    i++;
                }
                if (strict) {
                    assertEquals(kvs.size(), i);
                }
            }
            if (strict) {
                assertEquals(kvs.size(), t.keyCount());
                assertArrayEquals(kvs.getFirst().key(), t.firstKey());
                assertArrayEquals(kvs.getLast().key(), t.lastKey());
            }
            return strict ? Outcome.CORRECT : Outcome.READ;
        } catch (CorruptionException e) {
            assertEquals(p, e.file());
            assertTrue(e.offset() >= 0 && e.offset() <= bytes.length, e.getMessage());
            return Outcome.CORRUPTION;
        } catch (RuntimeException e) {
            fail("damaged file gave " + e + " instead of a CorruptionException", e);
            throw e;
        } finally {
            Files.delete(p);
        }
    }

    private Path store(byte[] bytes) throws IOException {
        Path p = dir.resolve("c" + files++);
        Files.write(p, bytes);
        return p;
    }

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    private int metadataStart() {
        return (int) le(original).getLong(original.length - TableFormat.FOOTER + TableFormat.F_SECTIONS);
    }

    /** Bytes of the data region outside every block: zero padding that no CRC covers. */
    private boolean[] padding() {
        boolean[] pad = new boolean[original.length];
        int end = metadataStart();
        Arrays.fill(pad, 0, end, true);
        ByteBuffer b = le(original);
        for (int r = end; r < end + (long) blockCount() * TableFormat.BLOCK_RECORD; r += TableFormat.BLOCK_RECORD) {
            int offset = (int) b.getLong(r + TableFormat.BR_OFFSET);
            int stored = b.getInt(r + TableFormat.BR_STORED);
            Arrays.fill(pad, offset, offset + stored, false);
        }
        return pad;
    }

    /** A byte among the first 24 of a random block. */
    private int blockHead(Random rnd) {
        ByteBuffer b = le(original);
        int r = metadataStart() + rnd.nextInt(blockCount()) * TableFormat.BLOCK_RECORD;
        int offset = (int) b.getLong(r + TableFormat.BR_OFFSET);
        int stored = b.getInt(r + TableFormat.BR_STORED);
        return offset + rnd.nextInt(Math.min(stored, 24));
    }

    private int blockCount() {
        return le(original).getInt(original.length - TableFormat.FOOTER + TableFormat.F_BLOCKS);
    }

    /** Recomputes every block's CRC, every section's CRC and the footer's, as far as the (damaged) footer allows. */
    private static void reseal(byte[] f) {
        ByteBuffer b = le(f);
        int footer = f.length - TableFormat.FOOTER;
        long[] offsets = new long[3];
        long[] lengths = new long[3];
        for (int s = 0; s < 3; s++) {
            offsets[s] = b.getLong(footer + TableFormat.F_SECTIONS + 16 * s);
            lengths[s] = b.getLong(footer + TableFormat.F_SECTIONS + 16 * s + 8);
        }
        if (inFile(offsets[0], lengths[0], footer)) {
            for (long r = offsets[0]; r + TableFormat.BLOCK_RECORD <= offsets[0] + lengths[0]; r += TableFormat.BLOCK_RECORD) {
                long offset = b.getLong((int) r + TableFormat.BR_OFFSET);
                long stored = Integer.toUnsignedLong(b.getInt((int) r + TableFormat.BR_STORED));
                if (inFile(offset, stored, footer)) {
                    b.putInt((int) r + TableFormat.BR_CRC, crc(f, offset, stored));
                }
            }
        }
        for (int s = 0; s < 3; s++) {
            if (inFile(offsets[s], lengths[s], footer)) {
                b.putInt(footer + TableFormat.F_CRCS + 4 * s, crc(f, offsets[s], lengths[s]));
            }
        }
        b.putInt(footer + TableFormat.F_CRC, crc(f, footer, TableFormat.F_CRC));
    }

    private static boolean inFile(long offset, long length, int limit) {
        return offset >= 0 && length >= 0 && offset <= limit && length <= limit - offset;
    }

    private static int crc(byte[] f, long offset, long length) {
        CRC32C c = new CRC32C();
        c.update(f, (int) offset, (int) length);
        return (int) c.getValue();
    }

}
