package dev.remixdb.table;

import dev.remixdb.remix.Keys;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.util.Checksums;
import dev.remixdb.util.Closeables;
import dev.remixdb.util.NativeBuffer;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Writes one table file (format in {@link Table}) from keys given in strictly increasing order.
 * Data blocks are written as they fill; the block records, block index and compressed keys block
 * are kept in native memory and written by {@link #finish()}, which also forces the file to disk.
 * For the thread that created it only: its memory is confined to that thread, because freeing
 * shared native memory stops every thread of the JVM for a moment (a handshake), and a compaction
 * writes tables all the time.
 *
 * <p>A rejected key (out of order, too long, ...) leaves the writer as it was. An I/O error leaves
 * it failed: only {@link #close()} is then allowed, which deletes the partial file.
 */
public final class TableWriter implements AutoCloseable {
    /** Buffers above this size are freed after use, so one huge value does not pin memory for the writer's life. */
    private static final long KEEP_BUFFER = 1 << 20;

    private enum State { OPEN, FINISHED, FAILED, CLOSED }

    private final Path path;
    private final TableOptions options;
    private final LZ4Compressor compressor;
    private final TableOutput out;
    private final BlockBuilder block;
    private final NativeBuffer records;
    private final NativeBuffer separatorOffsets;
    private final NativeBuffer separators;
    private final NativeBuffer keys;
    private final NativeBuffer lastKey;
    private NativeBuffer jumbo;
    private NativeBuffer compressed;
    private byte[] firstKey;
    private long keyCount;
    private long tombstoneCount;
    private int blockCount;
    private State state = State.OPEN;

    /** Creates {@code path} (it must not exist) and prepares to write a table with {@code options}. */
    public TableWriter(Path path, TableOptions options) throws IOException {
        this.path = Objects.requireNonNull(path, "path");
        this.options = Objects.requireNonNull(options, "options");
        this.compressor = options.compression() == BlockCompression.LZ4 ? LZ4Factory.fastestJavaInstance().fastCompressor() : null;
        // Native buffers only once the file exists: a refused path must not leave memory behind.
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        this.out = new TableOutput(path, channel);
        this.block = new BlockBuilder(options.blockBytes());
        this.records = NativeBuffer.confined(1024);
        this.separatorOffsets = NativeBuffer.confined(256);
        this.separators = NativeBuffer.confined(1024);
        this.keys = NativeBuffer.confined(4096);
        this.lastKey = NativeBuffer.confined(256);
    }

    /** Adds {@code key} with {@code value}. */
    public void add(byte[] key, byte[] value) {
        addUnchecked(MemorySegment.ofArray(key), key.length, MemorySegment.ofArray(value), value.length, false);
    }

    /** Adds a tombstone for {@code key}. */
    public void delete(byte[] key) {
        addUnchecked(MemorySegment.ofArray(key), key.length, MemorySegment.NULL, 0, true);
    }

    private void addUnchecked(MemorySegment key, int keyLength, MemorySegment value, int valueLength, boolean tombstone) {
        try {
            add(key, 0, keyLength, value, 0, valueLength, tombstone);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Adds the entry {@code key[keyOff, keyOff+keyLen)} with {@code value[valueOff, valueOff+valueLen)},
     * or a tombstone ({@code valueLen} must then be 0). Keys must be strictly increasing (unsigned
     * lexicographic), at most 65536 bytes; values at most 64 MiB.
     *
     * @throws IllegalArgumentException for a key out of order or a length out of range; nothing is written
     * @throws IllegalStateException    after {@link #finish()}, {@link #close()} or a failure, or when the
     *                                  table has reached 2^20-1 blocks
     */
    public void add(MemorySegment key, long keyOff, int keyLen, MemorySegment value, long valueOff, int valueLen,
                    boolean tombstone) throws IOException {
        checkOpen();
        if (keyLen < 0 || keyLen > TableFormat.MAX_KEY) {
            throw new IllegalArgumentException("key length " + keyLen + " outside [0, " + TableFormat.MAX_KEY + "]");
        }
        if (valueLen < 0 || valueLen > TableFormat.MAX_VALUE) {
            throw new IllegalArgumentException("value length " + valueLen + " outside [0, " + TableFormat.MAX_VALUE + "]");
        }
        if (tombstone && valueLen != 0) {
            throw new IllegalArgumentException("a tombstone has no value, got " + valueLen + " bytes");
        }
        Objects.checkFromIndexSize(keyOff, keyLen, key.byteSize());
        Objects.checkFromIndexSize(valueOff, valueLen, value.byteSize());
        int common = 0;
        if (keyCount > 0) {
            MemorySegment last = lastKey.segment();
            int lastLen = (int) lastKey.size();
            if (Keys.compare(last, 0, lastLen, key, keyOff, keyLen) >= 0) {
                throw new IllegalArgumentException("keys must be strictly increasing: " + Keys.toString(key, keyOff, keyLen)
                        + " after " + Keys.toString(last, 0, lastLen) + " in " + path);
            }
            common = Keys.commonPrefix(last, 0, lastLen, key, keyOff, keyLen);
        }
        int entry = BlockBuilder.entryBytes(keyLen, valueLen, tombstone);
        boolean isJumbo = !BlockBuilder.fitsEmptyBlock(entry, options.blockBytes());
        boolean joins = !isJumbo && block.count() > 0 && block.fits(entry);
        int blocksAfter = blockCount + (block.count() > 0 ? 1 : 0) + (joins ? 0 : 1);
        if (blocksAfter > RunAddress.MAX_BLOCKS) {
            throw new IllegalStateException(path + " is full: a table has at most " + RunAddress.MAX_BLOCKS + " blocks");
        }
        int separator = keyCount == 0 ? 0 : common + 1;
        if (!joins && separators.size() + separator > Integer.MAX_VALUE) {
            throw new IllegalStateException(path + " is full: the block index passed 2 GiB");
        }
        try {
            if (!joins) {
                if (block.count() > 0) {
                    flushBlock();
                }
                separatorOffsets.putInt((int) separators.size());
                separators.put(key, keyOff, separator);
            }
            if (isJumbo) {
                writeJumbo(key, keyOff, keyLen, value, valueOff, valueLen, tombstone, entry);
            } else {
                block.add(key, keyOff, keyLen, value, valueOff, valueLen, tombstone);
            }
            if (options.keysBlock()) {
                // Compressed keys block: shared prefix length, suffix length and tombstone bit, suffix.
                keys.putVarint(common);
                keys.putVarint(BlockBuilder.valueField(keyLen - common, tombstone));
                keys.put(key, keyOff + common, keyLen - common);
            }
            if (keyCount == 0) {
                firstKey = key.asSlice(keyOff, keyLen).toArray(TableFormat.U8);
            }
            lastKey.clear();
            lastKey.put(key, keyOff, keyLen);
            keyCount++;
            if (tombstone) {
                tombstoneCount++;
            }
        } catch (IOException | RuntimeException | Error e) {
            state = State.FAILED;
            throw e;
        }
    }

    private void writeJumbo(MemorySegment key, long keyOff, int keyLen, MemorySegment value, long valueOff, int valueLen,
                            boolean tombstone, int entry) throws IOException {
        if (jumbo == null) {
            jumbo = NativeBuffer.confined(4L + entry);
        }
        jumbo.clear();
        long raw = 4L + entry;
        jumbo.reserve(raw);
        MemorySegment b = jumbo.segment();
        b.set(TableFormat.U16, 0, (short) 1);
        b.set(TableFormat.U16, 2, (short) 4);
        BlockBuilder.putEntry(b, 4, key, keyOff, keyLen, value, valueOff, valueLen, tombstone);
        writeBlock(b, raw, 1);
        if (b.byteSize() > KEEP_BUFFER) {
            jumbo.close();
            jumbo = null;
        }
    }

    private void flushBlock() throws IOException {
        int count = block.count();
        MemorySegment raw = block.finish();
        writeBlock(raw, raw.byteSize(), count);
        block.reset();
    }

    /** Writes one block, compressed when that saves at least an eighth of it, and records it. */
    private void writeBlock(MemorySegment raw, long rawLength, int count) throws IOException {
        MemorySegment stored = raw;
        long storedLength = rawLength;
        int flags = 0;
        if (compressor != null) {
            int max = compressor.maxCompressedLength((int) rawLength);
            if (compressed == null) {
                compressed = NativeBuffer.confined(max);
            }
            compressed.clear();
            compressed.reserve(max);
            int n = compressor.compress(raw.asSlice(0, rawLength).asByteBuffer(), 0, (int) rawLength,
                    compressed.segment().asByteBuffer(), 0, max);
            if (n <= rawLength - rawLength / 8) {
                stored = compressed.segment();
                storedLength = n;
                flags = TableFormat.FLAG_LZ4;
            }
        } else {
            // Uncompressed blocks start at multiples of the block size: page-aligned, ready for direct I/O.
            long misalign = out.position() % options.blockBytes();
            if (misalign != 0) {
                out.pad(options.blockBytes() - misalign);
            }
        }
        long offset = out.position();
        int crc = Checksums.crc32c(stored, 0, storedLength);
        out.write(stored, 0, storedLength);
        records.putLong(offset);
        records.putInt((int) storedLength);
        records.putInt((int) rawLength);
        records.putInt(crc);
        records.putShort(count);
        records.putShort(flags);
        blockCount++;
        if (compressed != null && compressed.segment().byteSize() > KEEP_BUFFER) {
            compressed.close();
            compressed = null;
        }
    }

    /** Keys added so far. */
    public long keyCount() {
        return keyCount;
    }

    /**
     * About the size the file would have if finished now, for cutting tables at a target size. It
     * counts the open block uncompressed and leaves out the block index's copy of the last key, so it
     * grows with every key of an uncompressed table.
     */
    public long estimatedBytes() {
        return out.position() + block.rawBytes() + records.size() + TableFormat.BLOCK_RECORD
                + 12 + (firstKey == null ? 0 : firstKey.length) + separatorOffsets.size() + separators.size()
                + keys.size() + TableFormat.FOOTER;
    }

    /**
     * Writes the open block, the block records, the block index, the keys block and the footer, and
     * forces the file to disk. (Making the file's directory entry durable is the caller's part, with
     * the manifest update that refers to it.)
     */
    public TableInfo finish() throws IOException {
        checkOpen();
        try {
            if (block.count() > 0) {
                flushBlock();
            }
            long[] offsets = new long[3];
            long[] lengths = new long[3];
            int[] crcs = new int[3];
            try (NativeBuffer index = buildIndex()) {
                MemorySegment[] sections = {records.segment(), index.segment(), keys.segment()};
                long[] sizes = {records.size(), index.size(), options.keysBlock() ? keys.size() : 0};
                for (int s = 0; s < 3; s++) {
                    offsets[s] = out.position();
                    lengths[s] = sizes[s];
                    crcs[s] = Checksums.crc32c(sections[s], 0, sizes[s]);
                    out.write(sections[s], 0, sizes[s]);
                }
            }
            long fileBytes = out.position() + TableFormat.FOOTER;
            try (NativeBuffer footer = NativeBuffer.confined(TableFormat.FOOTER)) {
                footer.reserve(TableFormat.FOOTER);
                MemorySegment f = footer.segment();
                f.fill((byte) 0);
                f.set(TableFormat.U64, TableFormat.F_MAGIC, TableFormat.MAGIC);
                f.set(TableFormat.U32, TableFormat.F_VERSION, TableFormat.VERSION);
                f.set(TableFormat.U32, TableFormat.F_BLOCK_BYTES, options.blockBytes());
                f.set(TableFormat.U64, TableFormat.F_KEYS, keyCount);
                f.set(TableFormat.U64, TableFormat.F_TOMBSTONES, tombstoneCount);
                f.set(TableFormat.U32, TableFormat.F_BLOCKS, blockCount);
                f.set(TableFormat.U32, TableFormat.F_FLAGS, options.keysBlock() ? TableFormat.FOOTER_FLAG_CKB : 0);
                for (int s = 0; s < 3; s++) {
                    f.set(TableFormat.U64, TableFormat.F_SECTIONS + 16L * s, offsets[s]);
                    f.set(TableFormat.U64, TableFormat.F_SECTIONS + 16L * s + 8, lengths[s]);
                    f.set(TableFormat.U32, TableFormat.F_CRCS + 4L * s, crcs[s]);
                }
                f.set(TableFormat.U64, TableFormat.F_FILE_BYTES, fileBytes);
                f.set(TableFormat.U32, TableFormat.F_CRC, Checksums.crc32c(f, 0, TableFormat.F_CRC));
                out.write(f, 0, TableFormat.FOOTER);
            }
            out.force();
            out.close();
            state = State.FINISHED;
            byte[] last = keyCount == 0 ? null : lastKey.segment().asSlice(0, lastKey.size()).toArray(TableFormat.U8);
            TableInfo info = new TableInfo(keyCount, tombstoneCount, fileBytes, blockCount, firstKey, last);
            freeBuffers();
            return info;
        } catch (IOException | RuntimeException | Error e) {
            state = State.FAILED;
            throw e;
        }
    }

    /** Block index section: first and last key, then the separator of each block (see {@link Table}). */
    private NativeBuffer buildIndex() {
        long lastLength = keyCount == 0 ? 0 : lastKey.size();
        NativeBuffer index = NativeBuffer.confined(8 + 2 * lastLength + separatorOffsets.size() + 4 + separators.size());
        index.putInt(firstKey == null ? 0 : firstKey.length);
        index.putInt((int) lastLength);
        if (firstKey != null) {
            index.put(MemorySegment.ofArray(firstKey), 0, firstKey.length);
        }
        index.put(lastKey.segment(), 0, lastLength);
        index.put(separatorOffsets.segment(), 0, separatorOffsets.size());
        index.putInt((int) separators.size());
        index.put(separators.segment(), 0, separators.size());
        return index;
    }

    private void checkOpen() {
        if (state != State.OPEN) {
            throw new IllegalStateException("table writer for " + path + " is " + state.name().toLowerCase(Locale.ROOT));
        }
    }

    /**
     * After {@link #finish()}: does nothing more. Before it (or after a failure): abandons the table
     * and deletes the partial file.
     */
    @Override
    public void close() {
        if (state == State.FINISHED || state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        freeBuffers();
        Throwable failure = Closeables.closeAll(List.<AutoCloseable>of(out, () -> Files.deleteIfExists(path)), null);
        if (failure != null) {
            throw new UncheckedIOException("abandoning table " + path + ": " + failure.getMessage(),
                    failure instanceof IOException io ? io : new IOException(failure));
        }
    }

    private void freeBuffers() {
        block.close();
        records.close();
        separatorOffsets.close();
        separators.close();
        keys.close();
        lastKey.close();
        if (jumbo != null) {
            jumbo.close();
            jumbo = null;
        }
        if (compressed != null) {
            compressed.close();
            compressed = null;
        }
    }
}
