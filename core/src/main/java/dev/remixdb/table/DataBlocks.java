package dev.remixdb.table;

import dev.remixdb.io.BlockFile;
import dev.remixdb.io.BlockReader;
import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.util.Checksums;
import dev.remixdb.util.Varints;

import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.BufferOverflowException;
import java.nio.BufferUnderflowException;
import java.nio.file.Path;

import static dev.remixdb.table.TableFormat.BLOCK_RECORD;
import static dev.remixdb.table.TableFormat.U16;
import static dev.remixdb.table.TableFormat.U32;
import static dev.remixdb.table.TableFormat.U64;

/**
 * The data blocks of an open table: their records (kept in memory, checked once at open) and the
 * reading of one block into memory, which checks everything taken from the file before it is used:
 * the CRC of the stored bytes, then (after decompressing with the bounds-checking LZ4 decoder) the
 * key count, the offset array and every entry's lengths. A block that passes can be decoded without
 * further checks. Thread-safe.
 */
final class DataBlocks {
    /** Only the safe decoder: it never reads or writes outside the buffers it is given, whatever the input. */
    private static final LZ4SafeDecompressor LZ4 = LZ4Factory.safeInstance().safeDecompressor();

    private final Path path;
    private final BlockFile file;
    private final BlockReader reader;
    private final MemorySegment records;
    private final int count;

    DataBlocks(Path path, BlockFile file, BlockReader reader, MemorySegment records, TableFooter footer) {
        this.path = path;
        this.file = file;
        this.reader = reader;
        this.records = records;
        this.count = footer.blockCount;
        check(footer);
    }

    long offset(int b) {
        return records.get(U64, (long) b * BLOCK_RECORD + TableFormat.BR_OFFSET);
    }

    int storedLength(int b) {
        return records.get(U32, (long) b * BLOCK_RECORD + TableFormat.BR_STORED);
    }

    int rawLength(int b) {
        return records.get(U32, (long) b * BLOCK_RECORD + TableFormat.BR_RAW);
    }

    int keyCount(int b) {
        return Short.toUnsignedInt(records.get(U16, (long) b * BLOCK_RECORD + TableFormat.BR_KEYS));
    }

    boolean compressed(int b) {
        return (records.get(U16, (long) b * BLOCK_RECORD + TableFormat.BR_FLAGS) & TableFormat.FLAG_LZ4) != 0;
    }

    private int crc(int b) {
        return records.get(U32, (long) b * BLOCK_RECORD + TableFormat.BR_CRC);
    }

    /** Record-level checks, so that every length used later is within the file and the format's limits. */
    private void check(TableFooter footer) {
        long dataEnd = footer.offset(TableFormat.SECTION_BLOCKS);
        long previousEnd = 0;
        long keys = 0;
        for (int b = 0; b < count; b++) {
            long at = dataEnd + (long) b * BLOCK_RECORD;
            long offset = offset(b);
            long stored = Integer.toUnsignedLong(storedLength(b));
            long raw = Integer.toUnsignedLong(rawLength(b));
            int n = keyCount(b);
            int flags = Short.toUnsignedInt(records.get(U16, (long) b * BLOCK_RECORD + TableFormat.BR_FLAGS));
            String what = null;
            if (offset < previousEnd || stored == 0 || stored > dataEnd - offset) {
                what = "lies outside the data region [" + previousEnd + ", " + dataEnd + ") or overlaps the previous block";
            } else if (n < 1 || n > RunAddress.MAX_KEYS_PER_BLOCK) {
                what = "has a bad key count " + n;
            } else if ((flags & ~TableFormat.FLAG_LZ4) != 0) {
                what = "has unknown flags " + Integer.toHexString(flags);
            } else if (raw < 2 + 2L * n + 2L * n || raw > (n == 1 ? TableFormat.MAX_RAW_BLOCK : footer.blockBytes)) {
                what = "has a bad raw length " + raw + " for " + n + " keys";
            } else if ((flags & TableFormat.FLAG_LZ4) != 0 ? stored >= raw : stored != raw) {
                what = "has a stored length " + stored + " that does not fit its raw length " + raw;
            }
            if (what != null) {
                throw new CorruptionException(path, at, "block " + b + " (offset " + offset + ", " + stored + " bytes) " + what);
            }
            previousEnd = offset + stored;
            keys += n;
        }
        if (keys != footer.keyCount) {
            throw new CorruptionException(path, dataEnd, "blocks hold " + keys + " keys, the footer says " + footer.keyCount);
        }
    }

    /**
     * Reads block {@code b} into {@code dst} (exactly its raw length) and checks it. A compressed
     * block is first read into {@code scratch} (at least its stored length).
     */
    void read(int b, MemorySegment dst, MemorySegment scratch) throws IOException {
        long offset = offset(b);
        int stored = storedLength(b);
        MemorySegment src = compressed(b) ? scratch.asSlice(0, stored) : dst;
        try {
            reader.readFully(file, offset, src);
        } catch (EOFException e) {
            throw new CorruptionException(path, offset, "file ends inside block " + b + " (truncated after open?)");
        }
        finish(b, src, dst);
    }

    /** Where the blocks' stored bytes are, for a batch of reads. */
    BlockFile file() {
        return file;
    }

    /** The reader of {@link #file()}. */
    BlockReader reader() {
        return reader;
    }

    /**
     * Checks block {@code b}'s stored bytes in {@code src} (exactly its stored length), and when it is
     * compressed decompresses them into {@code dst} (exactly its raw length; for an uncompressed
     * block {@code src} is the block and {@code dst} is not used); then checks the entries.
     */
    void finish(int b, MemorySegment src, MemorySegment dst) {
        long offset = offset(b);
        int stored = storedLength(b);
        int actual = Checksums.crc32c(src, 0, stored);
        if (actual != crc(b)) {
            throw new CorruptionException(path, offset, String.format(
                    "block %d (%d bytes) checksum mismatch: expected %08x, actual %08x", b, stored, crc(b), actual));
        }
        if (compressed(b)) {
            decompress(b, src, dst);
        } else {
            dst = src;
        }
        checkEntries(b, dst);
    }

    /**
     * Reads every block (checking each as {@link #read} does) and the padding between blocks, which
     * no CRC covers and reads never touch, but which must be zero in a sound file.
     */
    void verifyAll(long dataEnd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(GAP_CHUNK);
            MemorySegment scratch = arena.allocate(GAP_CHUNK);
            MemorySegment zeros = arena.allocate(GAP_CHUNK);
            long end = 0;
            for (int b = 0; b < count; b++) {
                checkZero(end, offset(b), scratch, zeros);
                int raw = rawLength(b);
                int stored = storedLength(b);
                if (raw > dst.byteSize()) {
                    dst = arena.allocate(raw);  // a jumbo block; rare
                }
                if (stored > scratch.byteSize()) {
                    scratch = arena.allocate(stored);
                }
                read(b, dst.asSlice(0, raw), scratch);
                end = offset(b) + stored;
            }
            checkZero(end, dataEnd, scratch, zeros);
        }
    }

    /** Bytes of padding checked per read: a block's worth, so one buffer serves every gap. */
    private static final int GAP_CHUNK = 8192;

    /** Checks that [{@code from}, {@code to}) is all zero, reading it through {@code buffer}. */
    private void checkZero(long from, long to, MemorySegment buffer, MemorySegment zeros) throws IOException {
        for (long at = from; at < to; at += GAP_CHUNK) {
            long n = Math.min(GAP_CHUNK, to - at);
            MemorySegment chunk = buffer.asSlice(0, n);
            try {
                reader.readFully(file, at, chunk);
            } catch (EOFException e) {
                throw new CorruptionException(path, at, "file ends inside the padding before offset " + to);
            }
            long bad = MemorySegment.mismatch(chunk, 0, n, zeros, 0, n);
            if (bad >= 0) {
                throw new CorruptionException(path, at + bad, "non-zero byte in the padding between blocks");
            }
        }
    }

    private void decompress(int b, MemorySegment src, MemorySegment dst) {
        int raw = (int) dst.byteSize();
        int n;
        try {
            n = LZ4.decompress(src.asByteBuffer(), 0, (int) src.byteSize(), dst.asByteBuffer(), 0, raw);
        } catch (LZ4Exception | IndexOutOfBoundsException | BufferOverflowException | BufferUnderflowException e) {
            throw new CorruptionException(path, offset(b), "block " + b + " does not decompress: " + e.getMessage());
        }
        if (n != raw) {
            throw new CorruptionException(path, offset(b), "block " + b + " decompresses to " + n + " bytes, expected " + raw);
        }
    }

    /** Checks the offset array and each entry's lengths, so that cursors can decode without checks. */
    private void checkEntries(int b, MemorySegment data) {
        long raw = data.byteSize();
        int n = Short.toUnsignedInt(data.get(U16, 0));
        if (n != keyCount(b)) {
            throw corrupt(b, "holds " + n + " keys, its record says " + keyCount(b));
        }
        long end = 2 + 2L * n;
        for (int i = 0; i < n; i++) {
            long at = Short.toUnsignedInt(data.get(U16, 2 + 2L * i));
            if (at != end) {
                throw corrupt(b, "entry " + i + " starts at " + at + ", expected " + end);
            }
            long k = Varints.get(data, at, raw, TableFormat.MAX_VARINT);
            long v = k < 0 ? -1 : Varints.get(data, at + (k & 7), raw, TableFormat.MAX_VARINT);
            if (v < 0) {
                throw corrupt(b, "entry " + i + " has a malformed length");
            }
            long keyLength = k >>> 3;
            long field = v >>> 3;
            long valueLength = field >>> 1;
            if (keyLength > TableFormat.MAX_KEY || valueLength > TableFormat.MAX_VALUE
                    || ((field & 1) != 0 && valueLength != 0)) {
                throw corrupt(b, "entry " + i + " has bad lengths " + keyLength + ", " + field);
            }
            end = at + (k & 7) + (v & 7) + keyLength + valueLength;
            if (end > raw) {
                throw corrupt(b, "entry " + i + " ends at " + end + ", past the block's " + raw + " bytes");
            }
        }
        if (end != raw) {
            throw corrupt(b, (raw - end) + " bytes after the last entry");
        }
    }

    private CorruptionException corrupt(int b, String what) {
        return new CorruptionException(path, offset(b), "block " + b + " " + what);
    }
}
