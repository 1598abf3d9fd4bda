package dev.remixdb.table;

import dev.remixdb.util.Limits;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Constants and small codecs of the table file format; the layout itself is documented on {@link Table}. */
final class TableFormat {
    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** "RMXTABLE" read as a little-endian u64. */
    static final long MAGIC = 0x454C_4241_5458_4D52L;
    static final int VERSION = 1;

    /** Longest key: the store's limit, 64 KiB. */
    static final int MAX_KEY = Limits.MAX_KEY_BYTES;
    /** Longest value: the store's limit, 64 MiB. */
    static final int MAX_VALUE = Limits.MAX_VALUE_BYTES;
    /**
     * Longest varint: 4 bytes carry 28 bits, enough for (MAX_VALUE << 1 | 1). Readers call
     * {@code Varints.get(segment, at, limit, MAX_VARINT)} directly: the decode of every key is on the
     * read path, and a wrapper would add a level to the deep inlining chain of FFM accesses.
     */
    static final int MAX_VARINT = 4;
    /** Largest raw block: a jumbo block of one maximal entry. */
    static final long MAX_RAW_BLOCK = 2 + 2 + 3 + MAX_VARINT + MAX_KEY + (long) MAX_VALUE;

    // Block record: one per data block in the BLOCKS section, kept in memory while the table is open.
    static final int BLOCK_RECORD = 24;
    static final int BR_OFFSET = 0;   // u64 file offset of the stored block
    static final int BR_STORED = 8;   // u32 stored length (what the CRC covers)
    static final int BR_RAW = 12;     // u32 raw (uncompressed) length
    static final int BR_CRC = 16;     // u32 CRC32C of the stored bytes
    static final int BR_KEYS = 20;    // u16 key count
    static final int BR_FLAGS = 22;   // u16 flags
    static final int FLAG_LZ4 = 1;

    // Footer: the last FOOTER bytes of the file.
    static final int FOOTER = 128;
    static final int F_MAGIC = 0;           // u64
    static final int F_VERSION = 8;         // u32
    static final int F_BLOCK_BYTES = 12;    // u32
    static final int F_KEYS = 16;           // u64
    static final int F_TOMBSTONES = 24;     // u64
    static final int F_BLOCKS = 32;         // u32 block count
    static final int F_FLAGS = 36;          // u32
    static final int F_SECTIONS = 40;       // 3 x (u64 offset, u64 length)
    static final int F_CRCS = 88;           // 3 x u32 section CRC32C
    static final int F_FILE_BYTES = 104;    // u64
    static final int F_CRC = 124;           // u32 CRC32C of [0, 124)
    static final int FOOTER_FLAG_CKB = 1;
    static final int SECTION_BLOCKS = 0;
    static final int SECTION_INDEX = 1;
    static final int SECTION_CKB = 2;
    static final String[] SECTION_NAMES = {"block records", "block index", "compressed keys block"};

    private TableFormat() {}





}
