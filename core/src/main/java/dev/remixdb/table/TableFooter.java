package dev.remixdb.table;

import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.util.Checksums;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static dev.remixdb.table.TableFormat.FOOTER;
import static dev.remixdb.table.TableFormat.U32;
import static dev.remixdb.table.TableFormat.U64;

/**
 * The fixed-size footer of a table file (layout in {@link Table}), parsed and checked: every field is
 * validated against the file size before any other part of the file is read.
 */
final class TableFooter {
    final int blockBytes;
    final long keyCount;
    final long tombstoneCount;
    final int blockCount;
    final boolean hasKeysBlock;
    private final long[] offsets = new long[3];
    private final long[] lengths = new long[3];
    private final int[] crcs = new int[3];

    private TableFooter(MemorySegment f) {
        blockBytes = f.get(U32, TableFormat.F_BLOCK_BYTES);
        keyCount = f.get(U64, TableFormat.F_KEYS);
        tombstoneCount = f.get(U64, TableFormat.F_TOMBSTONES);
        blockCount = f.get(U32, TableFormat.F_BLOCKS);
        hasKeysBlock = (f.get(U32, TableFormat.F_FLAGS) & TableFormat.FOOTER_FLAG_CKB) != 0;
        for (int s = 0; s < 3; s++) {
            offsets[s] = f.get(U64, TableFormat.F_SECTIONS + 16L * s);
            lengths[s] = f.get(U64, TableFormat.F_SECTIONS + 16L * s + 8);
            crcs[s] = f.get(U32, TableFormat.F_CRCS + 4L * s);
        }
    }

    /** Parses the {@value TableFormat#FOOTER} bytes {@code f} read from the end of a file of {@code fileSize} bytes. */
    static TableFooter parse(Path path, MemorySegment f, long fileSize) {
        long at = fileSize - FOOTER;
        if (f.get(U64, TableFormat.F_MAGIC) != TableFormat.MAGIC) {
            throw new CorruptionException(path, at, "bad magic: not a table file, or truncated or extended");
        }
        int expected = f.get(U32, TableFormat.F_CRC);
        int actual = Checksums.crc32c(f, 0, TableFormat.F_CRC);
        if (expected != actual) {
            throw new CorruptionException(path, at, String.format("footer checksum mismatch: expected %08x, actual %08x",
                    expected, actual));
        }
        int version = f.get(U32, TableFormat.F_VERSION);
        if (version != TableFormat.VERSION) {
            throw new CorruptionException(path, at + TableFormat.F_VERSION, "unsupported table format version "
                    + version + " (this build reads " + TableFormat.VERSION + ")");
        }
        long fileBytes = f.get(U64, TableFormat.F_FILE_BYTES);
        if (fileBytes != fileSize) {
            throw new CorruptionException(path, at + TableFormat.F_FILE_BYTES, "footer says " + fileBytes
                    + " bytes but the file has " + fileSize);
        }
        int flags = f.get(U32, TableFormat.F_FLAGS);
        if ((flags & ~TableFormat.FOOTER_FLAG_CKB) != 0) {
            throw new CorruptionException(path, at + TableFormat.F_FLAGS, "unknown footer flags " + Integer.toHexString(flags));
        }
        TableFooter footer = new TableFooter(f);
        footer.check(path, at);
        return footer;
    }

    private void check(Path path, long at) {
        if (blockBytes < 256 || blockBytes > 4096 || Integer.bitCount(blockBytes) != 1) {
            throw new CorruptionException(path, at + TableFormat.F_BLOCK_BYTES, "bad block size " + blockBytes);
        }
        if (blockCount < 0 || blockCount > RunAddress.MAX_BLOCKS) {
            throw new CorruptionException(path, at + TableFormat.F_BLOCKS, "bad block count " + blockCount);
        }
        if (keyCount < blockCount || keyCount > (long) blockCount * RunAddress.MAX_KEYS_PER_BLOCK) {
            throw new CorruptionException(path, at + TableFormat.F_KEYS, keyCount + " keys cannot fill " + blockCount + " blocks");
        }
        if (tombstoneCount < 0 || tombstoneCount > keyCount) {
            throw new CorruptionException(path, at + TableFormat.F_TOMBSTONES, "bad tombstone count " + tombstoneCount);
        }
        // Sections follow the data blocks and each other without gaps; the footer follows the last one.
        long expectedOffset = offsets[TableFormat.SECTION_BLOCKS];
        for (int s = 0; s < 3; s++) {
            if (offsets[s] != expectedOffset || offsets[s] < 0 || lengths[s] < 0 || lengths[s] > at - offsets[s]) {
                throw new CorruptionException(path, at + TableFormat.F_SECTIONS + 16L * s, "section '"
                        + TableFormat.SECTION_NAMES[s] + "' at " + offsets[s] + " of " + lengths[s]
                        + " bytes does not fit between the previous section and the footer");
            }
            expectedOffset += lengths[s];
        }
        if (expectedOffset != at) {
            throw new CorruptionException(path, at + TableFormat.F_SECTIONS, (at - expectedOffset)
                    + " unaccounted bytes before the footer");
        }
        if (lengths[TableFormat.SECTION_BLOCKS] != (long) blockCount * TableFormat.BLOCK_RECORD) {
            throw new CorruptionException(path, at + TableFormat.F_SECTIONS + 8, "block records take "
                    + lengths[TableFormat.SECTION_BLOCKS] + " bytes, " + blockCount + " blocks need "
                    + (long) blockCount * TableFormat.BLOCK_RECORD);
        }
        if (!hasKeysBlock && lengths[TableFormat.SECTION_CKB] != 0) {
            throw new CorruptionException(path, at + TableFormat.F_SECTIONS + 40, "keys block present but not flagged");
        }
    }

    long offset(int section) {
        return offsets[section];
    }

    long length(int section) {
        return lengths[section];
    }

    /** Checks section {@code section}, held in {@code data[from, from+length)}, against its CRC. */
    void checkCrc(Path path, int section, MemorySegment data, long from) {
        int actual = Checksums.crc32c(data, from, lengths[section]);
        if (actual != crcs[section]) {
            throw new CorruptionException(path, offsets[section], String.format(
                    "%s checksum mismatch over %d bytes: expected %08x, actual %08x", TableFormat.SECTION_NAMES[section],
                    lengths[section], crcs[section], actual));
        }
    }
}
