package dev.remixdb.table;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/** Constants and small codecs of the table file format; the layout itself is documented on {@link Table}. */
final class TableFormat {
    static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** "RMXTABLE" read as a little-endian u64. */
    static final long MAGIC = 0x454C_4241_5458_4D52L;
    static final int VERSION = 1;

    /** Longest key: 64 KiB. */
    static final int MAX_KEY = 1 << 16;
    /** Longest value: 64 MiB. */
    static final int MAX_VALUE = 1 << 26;
    /** Longest varint: 4 bytes carry 28 bits, enough for (MAX_VALUE << 1 | 1). */
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

    private static final HexFormat HEX = HexFormat.of();

    private TableFormat() {}

    static int crc(MemorySegment s, long offset, long length) {
        CRC32C crc = new CRC32C();
        for (long at = offset, end = offset + length; at < end; ) {
            int n = (int) Math.min(end - at, 1 << 30);
            crc.update(s.asSlice(at, n).asByteBuffer());
            at += n;
        }
        return (int) crc.getValue();
    }

    static int varintSize(int v) {
        return v < 1 << 7 ? 1 : v < 1 << 14 ? 2 : v < 1 << 21 ? 3 : 4;
    }

    /** Writes {@code v} (below 2^28) as a LEB128 varint at {@code at}; returns the offset after it. */
    static long putVarint(MemorySegment s, long at, int v) {
        while (v >= 0x80) {
            s.set(U8, at++, (byte) (v | 0x80));
            v >>>= 7;
        }
        s.set(U8, at++, (byte) v);
        return at;
    }

    /**
     * Reads a varint of at most {@value #MAX_VARINT} bytes at {@code at}, not reading at or past
     * {@code limit}. Returns {@code value << 3 | size}, or -1 when it is cut off or too long.
     */
    static long getVarint(MemorySegment s, long at, long limit) {
        int value = 0;
        for (int i = 0; i < MAX_VARINT && at + i < limit; i++) {
            int b = s.get(U8, at + i);
            value |= (b & 0x7F) << (7 * i);
            if (b >= 0) {
                return ((long) value << 3) | (i + 1);
            }
        }
        return -1;
    }

    /** The key as hex for messages, shortened past 32 bytes. */
    static String hex(MemorySegment s, long offset, int length) {
        int shown = Math.min(length, 32);
        byte[] b = s.asSlice(offset, shown).toArray(U8);
        return "0x" + HEX.formatHex(b) + (shown < length ? "...(" + length + " bytes)" : "");
    }
}
