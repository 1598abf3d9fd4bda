package dev.remixdb.wal;

import dev.remixdb.util.Checksums;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Constants and small codecs of the WAL format; the layout itself is documented on {@link WalWriter}. */
final class WalFormat {
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    static final byte[] MAGIC = "RMXWAL".getBytes(StandardCharsets.US_ASCII);
    /**
     * Written by this build. Still read: version 2 (the same without {@link #SYNCED} ops) and version 1
     * (also without {@link #EARLY} and {@link #MARK}).
     */
    static final short VERSION = 3;
    static final short VERSION_2 = 2;
    static final short VERSION_1 = 1;
    static final int FILE_HEADER_SIZE = 24;
    static final int RECORD_HEADER_SIZE = 12;
    /** First seq and op count. */
    static final int PAYLOAD_PREFIX = 12;
    /** Bounds what a reader may have to buffer for one record, whatever a header says. */
    static final int MAX_PAYLOAD = 1 << 30;
    static final byte PUT = 1;
    static final byte DELETE = 2;
    static final byte RANGE_DELETE = 3;
    /**
     * Version 2: a record of one op of this type (empty key and value, the seq of the op before it)
     * settles the early records before it: written once the older WALs were durable, by the sync that
     * makes those records durable too. It is not replayed.
     */
    static final byte MARK = 4;
    /**
     * Version 3: an op of this type (a 4-byte key: the log's nonce, from its file header; an 8-byte
     * value: a u64 file offset X) says that a sync of this log through offset X had returned before
     * its record was written. Not replayed. The nonce ties it to its log: the bytes of another log
     * kept in a value are not taken for this one's (a value may hold anything). It
     * tells a torn write from damage: bytes before X were durable, so a bad record there is damage,
     * while a bad record that no later record proves synced can be the unsynced tail of the log
     * that a power cut tore (the disk may have kept a later page of it and not an earlier one).
     */
    static final byte SYNCED = 5;
    /** Bytes of a {@link #SYNCED} op: type, key length 4, value length 8, the nonce, the offset. */
    static final int SYNCED_OP_BYTES = 15;
    /** Bytes of a record of one {@link #SYNCED} op. */
    static final int SYNCED_RECORD_BYTES = RECORD_HEADER_SIZE + PAYLOAD_PREFIX + SYNCED_OP_BYTES;
    /** Where a version 3 file header keeps the log's nonce (a reserved zero field in versions 1 and 2). */
    static final int NONCE_OFFSET = 16;
    /** Varints of key and value lengths take at most five bytes (lengths below 2^31). */
    static final int MAX_VARINT = 5;
    /**
     * Bit 31 of a record's op count (version 2): the record was written while an older WAL's sync
     * was still under way, so its bytes may have reached the disk before that WAL's last ones.
     */
    static final int EARLY = 0x8000_0000;

    private WalFormat() {}

    /** Writes a {@link #SYNCED} op, {@link #SYNCED_OP_BYTES} long, at {@code at}. */
    static void putSyncedOp(MemorySegment b, long at, int nonce, long through) {
        b.set(ValueLayout.JAVA_BYTE, at, SYNCED);
        b.set(ValueLayout.JAVA_BYTE, at + 1, (byte) 4);  // key length: the nonce
        b.set(ValueLayout.JAVA_BYTE, at + 2, (byte) 8);  // value length: the offset
        b.set(INT, at + 3, nonce);
        b.set(LONG, at + 7, through);
    }

    /** A whole record of one {@link #SYNCED} op with seq {@code seq}, not early, checksums included. */
    static byte[] syncedRecord(long seq, int nonce, long through) {
        MemorySegment r = MemorySegment.ofArray(new byte[SYNCED_RECORD_BYTES]);
        int payload = PAYLOAD_PREFIX + SYNCED_OP_BYTES;
        r.set(LONG, RECORD_HEADER_SIZE, seq);
        r.set(INT, RECORD_HEADER_SIZE + 8, 1);
        putSyncedOp(r, RECORD_HEADER_SIZE + PAYLOAD_PREFIX, nonce, through);
        r.set(INT, 0, payload);
        r.set(INT, 4, Checksums.crc32c(r, RECORD_HEADER_SIZE, payload));
        r.set(INT, 8, Checksums.crc32c(r, 0, 8));
        return r.toArray(ValueLayout.JAVA_BYTE);
    }

    /** The file header of WAL {@code fileNumber} in format {@code version}, nonce 0. */
    static byte[] fileHeader(long fileNumber, short version) {
        return fileHeader(fileNumber, version, 0);
    }

    /** The file header of WAL {@code fileNumber} in format {@code version} with {@code nonce} (version 3). */
    static byte[] fileHeader(long fileNumber, short version, int nonce) {
        MemorySegment h = MemorySegment.ofArray(new byte[FILE_HEADER_SIZE]);
        MemorySegment.copy(MemorySegment.ofArray(MAGIC), 0, h, 0, MAGIC.length);
        h.set(SHORT, 6, version);
        h.set(LONG, 8, fileNumber);
        h.set(INT, NONCE_OFFSET, nonce);
        h.set(INT, 20, Checksums.crc32c(h, 0, 20));
        return h.toArray(ValueLayout.JAVA_BYTE);
    }
}
