package dev.remixdb.table;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.cache.CachedFile;
import dev.remixdb.io.BlockFile;
import dev.remixdb.io.BlockReader;
import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.KeySource;
import dev.remixdb.remix.Run;
import dev.remixdb.util.Closeables;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * An open table file: an immutable sorted run (REMIX §4.1) that a REMIX indexes. The block records
 * and the block index are read and checked at open and stay in native memory; data blocks are read
 * on demand through the shared {@link BlockCache} (blocks over one cache slot, "jumbo" blocks, go to
 * the reading cursor's own buffer). Safe for concurrent use, one {@link TableCursor} per thread.
 *
 * <h2>File layout</h2> All integers little-endian; varints are unsigned LEB128 of at most 4 bytes.
 * <pre>
 * offset      size        content
 * 0           ...         data blocks in key order. Uncompressed tables: each block starts at a multiple
 *                         of the block size, zero padding between blocks (covered by no CRC, never read).
 *                         LZ4 tables: packed, no padding.
 * B           24 * N      block records, one per block          (section BLOCKS)
 * I           ...         block index                           (section INDEX)
 * C           ...         compressed keys block, may be empty   (section CKB)
 * size-128    128         footer
 *
 * raw data block (what the CRC covers after decompression is undone; a block is stored raw or LZ4)
 * 0           u16         n: key count, 1..4095
 * 2           u16 * n     offset of each entry from the block start
 * 2+2n        entries     varint key length | varint (value length &lt;&lt; 1 | tombstone) | key | value
 *   A block holds entries while they fit the block size; an entry that does not fit an empty block gets
 *   a "jumbo" block of its own (n = 1), as long as it needs.
 *
 * block record (24 bytes)
 * 0           u64         file offset of the stored block
 * 8           u32         stored length
 * 12          u32         raw length
 * 16          u32         CRC32C of the stored bytes
 * 20          u16         key count
 * 22          u16         flags: bit 0 = stored LZ4-compressed (only when that saves 1/8 or more)
 *
 * block index
 * 0           u32         F, first key length
 * 4           u32         L, last key length
 * 8           F + L       first key, last key
 * 8+F+L       u32 * (N+1) start of each block's separator in the separator bytes; the last is their total
 * ...         ...         separator bytes: block b's is the shortest prefix of its first key greater
 *                         than block b-1's last key; block 0's is empty
 *
 * compressed keys block: per key, in order
 *             varint      length of the prefix shared with the previous key
 *             varint      (suffix length &lt;&lt; 1) | tombstone
 *             ...         suffix bytes
 *
 * footer (128 bytes)
 * 0           u64         magic "RMXTABLE"
 * 8           u32         format version (1)
 * 12          u32         block size used by the writer (256..4096)
 * 16          u64         key count (tombstones included)
 * 24          u64         tombstone count
 * 32          u32         N, block count
 * 36          u32         flags: bit 0 = compressed keys block present
 * 40          3 * 16      BLOCKS, INDEX, CKB: u64 offset, u64 length each
 * 88          3 * 4       BLOCKS, INDEX, CKB: u32 CRC32C each
 * 100         u32         reserved, 0
 * 104         u64         file length
 * 112         12          reserved, 0
 * 124         u32         CRC32C of bytes [0, 124)
 * </pre>
 * Every byte that is read is covered by a CRC32C, checked before use, and every length is checked
 * against its bounds before it sizes or addresses anything, so a damaged file gives a
 * {@link CorruptionException} naming the file and offset, never wrong data.
 */
public final class Table implements Run, AutoCloseable {
    private final long fileId;
    private final Path path;
    private final BlockFile file;
    private final BlockReader reader;
    private final BlockCache cache;
    private final CachedFile cached;
    private final TableFooter footer;
    private final Arena arena;
    private final DataBlocks blocks;
    private final BlockIndex index;
    private final long memoryBytes;
    private volatile boolean closed;

    private Table(long fileId, Path path, BlockFile file, BlockReader reader, BlockCache cache, TableFooter footer,
                  Arena arena, MemorySegment meta) {
        this.fileId = fileId;
        this.path = path;
        this.file = file;
        this.reader = reader;
        this.cache = cache;
        this.cached = cache.file(fileId, footer.blockCount);
        this.footer = footer;
        this.arena = arena;
        long recordBytes = footer.length(TableFormat.SECTION_BLOCKS);
        this.blocks = new DataBlocks(path, file, reader, meta.asSlice(0, recordBytes), footer);
        this.index = new BlockIndex(path, meta.asSlice(recordBytes), footer);
        this.memoryBytes = meta.byteSize();
    }

    /**
     * Opens the table at {@code path}: reads and checks its footer, block records and block index.
     * {@code fileId} names the table's blocks in {@code cache}; it must be unique among open tables.
     *
     * @throws CorruptionException when any check fails, including a truncated file
     */
    public static Table open(long fileId, Path path, BlockReader reader, BlockCache cache) throws IOException {
        Objects.requireNonNull(cache, "cache");
        if (fileId < 0 || fileId > BlockCache.MAX_FILE_ID) {
            throw new IllegalArgumentException("file id out of range [0, " + BlockCache.MAX_FILE_ID + "]: " + fileId);
        }
        BlockFile file = reader.open(path);
        Arena arena = null;
        try {
            long size = file.size();
            if (size < TableFormat.FOOTER) {
                throw new CorruptionException(path, 0, "file of " + size + " bytes is shorter than the "
                        + TableFormat.FOOTER + "-byte footer (truncated?)");
            }
            TableFooter footer;
            try (Arena temp = Arena.ofConfined()) {
                MemorySegment f = temp.allocate(TableFormat.FOOTER);
                readChecked(reader, file, size - TableFormat.FOOTER, f);
                footer = TableFooter.parse(path, f, size);
            }
            arena = Arena.ofShared();
            long recordBytes = footer.length(TableFormat.SECTION_BLOCKS);
            long metaBytes = recordBytes + footer.length(TableFormat.SECTION_INDEX);
            MemorySegment meta = arena.allocate(Math.max(1, metaBytes), 8).asSlice(0, metaBytes);
            readChecked(reader, file, footer.offset(TableFormat.SECTION_BLOCKS), meta);
            footer.checkCrc(path, TableFormat.SECTION_BLOCKS, meta, 0);
            footer.checkCrc(path, TableFormat.SECTION_INDEX, meta, recordBytes);
            return new Table(fileId, path, file, reader, cache, footer, arena, meta);
        } catch (IOException | RuntimeException | Error e) {
            Closeables.closeAll(List.<AutoCloseable>of(arena == null ? () -> { } : arena, file), e);
            throw e;
        }
    }

    /** Reads a checked range of the file; the file ending early means it was cut after its size was taken. */
    static void readChecked(BlockReader reader, BlockFile file, long offset, MemorySegment dst) throws IOException {
        try {
            reader.readFully(file, offset, dst);
        } catch (EOFException e) {
            throw new CorruptionException(file.path(), offset, "file ends before the " + dst.byteSize()
                    + " bytes at this offset (truncated?)");
        }
    }

    // ------------------------------------------------------------------ Run

    @Override
    public int blockCount() {
        return footer.blockCount;
    }

    @Override
    public int keyCount(int block) {
        return blocks.keyCount(block);
    }

    @Override
    public long keyCount() {
        return footer.keyCount;
    }

    /** A new cursor, not positioned. Close it to release its pinned block. */
    @Override
    public TableCursor newCursor() {
        checkOpen();
        return new TableCursor(this, TableCursor.Mode.CACHING);
    }

    /**
     * A cursor that reads only cached blocks: where it needs one the cache does not hold, it throws
     * {@link BlockNotCached} naming it, having read nothing.
     */
    @Override
    public TableCursor newCachedCursor() {
        checkOpen();
        return new TableCursor(this, TableCursor.Mode.CACHED_ONLY);
    }

    /** A cursor that reads blocks the cache does not hold into its own buffer, leaving the cache as it is. */
    @Override
    public TableCursor newScanCursor() {
        checkOpen();
        return new TableCursor(this, TableCursor.Mode.SCAN);
    }

    @Override
    public long keysBlockBytes() {
        return footer.hasKeysBlock ? keysBlockLength() : -1;
    }

    /**
     * The keys from the compressed keys block, which is read whole (into memory confined to the calling
     * thread) and checked against its CRC; data blocks are not read. A table written without a keys
     * block reads its keys through a cursor instead.
     */
    @Override
    public KeySource keySource() {
        checkOpen();
        if (!footer.hasKeysBlock) {
            return Run.super.keySource();
        }
        try {
            return new KeysBlockSource(this);
        } catch (IOException e) {
            throw new UncheckedIOException(path + ": reading the keys block at offset "
                    + footer.offset(TableFormat.SECTION_CKB) + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Reads the whole file and checks every checksum: each data block (and its entries), the
     * zero padding between blocks, and the compressed keys block. For {@code verify}: reads
     * through the cache check only the blocks they touch.
     *
     * @throws CorruptionException at the first damage found
     */
    public void verify() throws IOException {
        checkOpen();
        blocks.verifyAll(footer.offset(TableFormat.SECTION_BLOCKS));
        if (footer.hasKeysBlock) {
            try (KeySource keys = new KeysBlockSource(this)) {
                long n = 0;
                while (keys.next()) {
                    n++;
                }
                if (n != footer.keyCount) {
                    throw new CorruptionException(path, footer.offset(TableFormat.SECTION_CKB),
                            "the keys block holds " + n + " keys, the footer says " + footer.keyCount);
                }
            }
        }
    }

    // ------------------------------------------------------------------ table facts

    /** The id of this table's blocks in the cache. */
    public long fileId() {
        return fileId;
    }

    public Path path() {
        return path;
    }

    /** Size of the file in bytes. */
    public long fileBytes() {
        return footer.offset(TableFormat.SECTION_CKB) + footer.length(TableFormat.SECTION_CKB) + TableFormat.FOOTER;
    }

    /** Number of tombstones among the keys. */
    public long tombstoneCount() {
        return footer.tombstoneCount;
    }

    /** Native memory held while the table is open (block records and block index). */
    public long memoryBytes() {
        return memoryBytes;
    }

    /** The smallest key (a copy), or null for an empty table. */
    public byte[] firstKey() {
        checkOpen();
        return index.firstKey();
    }

    /** The largest key (a copy), or null for an empty table. */
    public byte[] lastKey() {
        checkOpen();
        return index.lastKey();
    }

    /**
     * Closes the file, frees the in-memory metadata and drops the table's blocks from the cache.
     * Cursors used afterwards throw {@link IllegalStateException}. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        cached.close();
        cache.evictFile(fileId);
        try {
            file.close();
        } catch (IOException e) {
            throw new UncheckedIOException(path + ": close failed: " + e.getMessage(), e);
        } finally {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "Table[" + fileId + ", " + path + "]";
    }

    // ------------------------------------------------------------------ for cursors and key sources

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("table " + path + " (file id " + fileId + ") is closed");
        }
    }

    DataBlocks blocks() {
        return blocks;
    }

    BlockIndex index() {
        return index;
    }

    /** The cache, as seen by this table's blocks. */
    CachedFile cache() {
        return cached;
    }

    /** Reads the compressed keys block into {@code dst} and checks its CRC. */
    void readKeysBlock(MemorySegment dst) throws IOException {
        readChecked(reader, file, footer.offset(TableFormat.SECTION_CKB), dst);
        footer.checkCrc(path, TableFormat.SECTION_CKB, dst, 0);
    }

    long keysBlockOffset() {
        return footer.offset(TableFormat.SECTION_CKB);
    }

    long keysBlockLength() {
        return footer.length(TableFormat.SECTION_CKB);
    }
}
