package dev.remixdb.wal;

import static dev.remixdb.wal.WalFormat.DELETE;
import static dev.remixdb.wal.WalFormat.FILE_HEADER_SIZE;
import static dev.remixdb.wal.WalFormat.INT;
import static dev.remixdb.wal.WalFormat.LONG;
import static dev.remixdb.wal.WalFormat.MAX_PAYLOAD;
import static dev.remixdb.wal.WalFormat.MAX_VARINT;
import static dev.remixdb.wal.WalFormat.PAYLOAD_PREFIX;
import static dev.remixdb.wal.WalFormat.PUT;
import static dev.remixdb.wal.WalFormat.RANGE_DELETE;
import static dev.remixdb.wal.WalFormat.RECORD_HEADER_SIZE;

import dev.remixdb.remix.CorruptionException;
import dev.remixdb.util.Checksums;
import dev.remixdb.util.Limits;
import dev.remixdb.util.Varints;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Replays a WAL written by {@link WalWriter}, record by record, with bounded memory (a read window
 * in a confined arena). A record's ops reach the visitor only after its checksums and structure
 * have been verified, so a record is applied whole or not at all.
 *
 * <p>Torn tail: a crash can leave the last record incomplete, and the file system may have
 * extended the file with zeros. A record at offset {@code p} is a <em>torn tail</em> when
 * <ul>
 *   <li>fewer than 12 bytes (its header) remain in the file, or</li>
 *   <li>its header is intact but its payload runs past the end of the file, or</li>
 *   <li>its header checksum fails and every byte after the header, to the end of the file, is zero, or</li>
 *   <li>its payload checksum fails and every byte after the record, to the end of the file, is zero, or</li>
 *   <li>(version 3) its header or payload checksum fails, and no whole record after it holds a
 *       synced op (see {@link WalWriter}) past its offset: none of it was ever synced, and a power
 *       cut may have kept later pages of the last writes and not earlier ones. Everything from it
 *       on is cut, so what replays is still the state after some write.</li>
 * </ul>
 * A zero-filled tail after the last record is a torn tail by the third rule. A file shorter than
 * its 24-byte header whose bytes are a prefix of the expected header (or zeros), and a file of
 * zeros only, are torn at offset 0: the WAL was being created. With {@code tolerateTornTail}, the
 * file is truncated to the end of the last good record (and synced), so a second replay ends
 * cleanly; without it, a torn tail is a {@link CorruptionException}.
 *
 * <p>Corruption (always a {@link CorruptionException} naming the file and the offset of the bad
 * record or field): a checksum failure followed by non-zero bytes (version 3: by a record whose
 * synced op shows the bad record had been synced), a record header whose checksum
 * passes but whose length is out of range, a payload that passes its checksum but does not parse,
 * and a file header with the wrong magic, checksum, version or file number.
 */
public final class WalReader {
    /**
     * Receives the ops of a WAL in order. The key and value are {@code [off, off + len)} of a
     * read-only buffer that is reused: copy what must outlive the call.
     */
    @FunctionalInterface
    public interface Visitor {
        /**
         * One op; for a delete the value length is 0; for a range delete the key is the first key
         * deleted and the value the end (exclusive; empty: to the end of the key space).
         */
        void op(long seq, WalOp.Type type, MemorySegment key, long keyOff, int keyLen,
                MemorySegment value, long valueOff, int valueLen);
    }

    private static final WalOp.Type[] TYPES = WalOp.Type.values();

    private final Path path;
    private final WalInput in;
    private final Visitor visitor;
    private long records;
    private long ops;
    private long maxSeq = -1;
    /** Records with the early bit (see {@link WalWriter}). */
    private long earlyRecords;
    /** The file's format version, once its header was read. */
    private short version;
    /** Version 3: the nonce of the file header, which the log's synced ops repeat. */
    private int nonce;
    /** Whether {@link #nonce} is known (the header was read whole): a zeroed header's is not. */
    private boolean nonceKnown;
    /** Why the log ended early, once a torn tail is found. */
    private String tornReason;
    /** Parse position in the read buffer. */
    private long at;

    private WalReader(Path path, WalInput in, Visitor visitor) {
        this.path = path;
        this.in = in;
        this.visitor = visitor;
    }

    /**
     * Replays every record of the WAL at {@code path} in order. Returns what was replayed, where the
     * good records end, and how many bytes of torn tail were cut (see the class comment). When it
     * throws, the visitor has already received the records before the bad one: discard what was built.
     */
    public static ReplayResult replay(Path path, long expectedFileNumber, boolean tolerateTornTail, Visitor visitor)
            throws IOException {
        Objects.requireNonNull(visitor, "visitor");
        ReplayResult result;
        String reason;
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
             WalInput in = new WalInput(path, channel, channel.size())) {
            WalReader reader = new WalReader(path, in, visitor);
            result = reader.run(expectedFileNumber);
            reason = reader.tornReason;
        }
        if (result.torn()) {
            if (!tolerateTornTail) {
                throw new CorruptionException(path, result.validLength(), "torn tail of " + result.tornBytes()
                        + " bytes: " + reason);
            }
            cut(path, result.validLength());
        }
        return result;
    }

    /** Cuts the WAL at {@code path} to {@code length} bytes (where its good records end) and syncs it. */
    public static void cut(Path path, long length) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.truncate(length);
            channel.force(true);
        }
    }

    /** Forces the WAL at {@code path} to disk (what a killed process wrote may be in the page cache only). */
    public static void sync(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.force(false);
        }
    }

    /**
     * Reads the WAL at {@code path} as {@link #replay} does but changes nothing: a torn tail is
     * reported in the result ({@link ReplayResult#torn()}), not cut. For {@code verify}.
     *
     * @throws CorruptionException for damage that is not a torn tail
     */
    public static ReplayResult check(Path path, long expectedFileNumber, Visitor visitor) throws IOException {
        Objects.requireNonNull(visitor, "visitor");
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
             WalInput in = new WalInput(path, channel, channel.size())) {
            return new WalReader(path, in, visitor).run(expectedFileNumber);
        }
    }

    /**
     * Whether the WAL at {@code path} holds a record: true when its first record is whole, and when
     * the file is damaged in a way that is not a torn tail (so that a replay meets and reports the
     * damage); false for a file that holds only its header, a torn first record, or a header being
     * written. Reads the header and the first record only.
     */
    public static boolean holdsRecords(Path path, long expectedFileNumber) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
             WalInput in = new WalInput(path, channel, channel.size())) {
            WalReader reader = new WalReader(path, in, (seq, type, key, ko, kl, value, vo, vl) -> { });
            return reader.checkFileHeader(expectedFileNumber) && in.size() > FILE_HEADER_SIZE
                    && reader.readRecord(FILE_HEADER_SIZE) >= 0;
        } catch (CorruptionException e) {
            return true;
        }
    }

    private ReplayResult run(long expectedFileNumber) throws IOException {
        if (!checkFileHeader(expectedFileNumber)) {
            return result(0);
        }
        long pos = FILE_HEADER_SIZE;
        while (pos < in.size()) {
            long end = readRecord(pos);
            if (end < 0) {
                break;
            }
            pos = end;
        }
        return result(pos);
    }

    private ReplayResult result(long validLength) {
        return new ReplayResult(records, ops, maxSeq, validLength, in.size() - validLength, earlyRecords);
    }

    /** Whether the header is good; false for a torn one (see the class comment). */
    private boolean checkFileHeader(long expectedFileNumber) throws IOException {
        long size = in.size();
        MemorySegment expected = MemorySegment.ofArray(WalFormat.fileHeader(expectedFileNumber, WalFormat.VERSION));
        MemorySegment older = MemorySegment.ofArray(WalFormat.fileHeader(expectedFileNumber, WalFormat.VERSION_2));
        MemorySegment oldest = MemorySegment.ofArray(WalFormat.fileHeader(expectedFileNumber, WalFormat.VERSION_1));
        if (size < FILE_HEADER_SIZE) {
            if (size == 0) {
                return false;
            }
            MemorySegment s = in.load(0, size);
            long known = Math.min(size, WalFormat.NONCE_OFFSET);  // version 3: the nonce and CRC are unknown
            if (MemorySegment.mismatch(s, 0, known, expected, 0, known) < 0
                    || MemorySegment.mismatch(s, 0, size, older, 0, size) < 0
                    || MemorySegment.mismatch(s, 0, size, oldest, 0, size) < 0 || in.zeroFrom(0)) {
                tornReason = "file header incomplete (" + size + " bytes): the WAL was being created";
                return false;
            }
            throw new CorruptionException(path, 0, "file of " + size + " bytes is neither a WAL nor the start of one");
        }
        MemorySegment s = in.load(0, FILE_HEADER_SIZE);
        if (MemorySegment.mismatch(s, 0, WalFormat.NONCE_OFFSET, expected, 0, WalFormat.NONCE_OFFSET) < 0
                && s.get(INT, 20) == Checksums.crc32c(s, 0, 20)) {
            version = WalFormat.VERSION;
            nonce = s.get(INT, WalFormat.NONCE_OFFSET);
            nonceKnown = true;
            return true;
        }
        if (MemorySegment.mismatch(s, 0, FILE_HEADER_SIZE, older, 0, FILE_HEADER_SIZE) < 0) {
            version = WalFormat.VERSION_2;
            return true;
        }
        if (MemorySegment.mismatch(s, 0, FILE_HEADER_SIZE, oldest, 0, FILE_HEADER_SIZE) < 0) {
            version = WalFormat.VERSION_1;
            return true;
        }
        if (in.zeroFrom(0)) {
            tornReason = "file holds only zero bytes: the WAL was being created";
            return false;
        }
        s = in.load(0, FILE_HEADER_SIZE);
        long h = in.offset(0);
        if ((s.get(LONG, h) | s.get(LONG, h + 8) | s.get(LONG, h + 16)) == 0) {
            // The first sync makes the header durable: a header of zeros with bytes after it was never
            // synced, unless a record says otherwise (a power cut kept later pages, not the first).
            long synced = syncedAfter(0);
            if (synced > 0) {
                throw new CorruptionException(path, 0, "file header is zero bytes, but a record says the file was synced"
                        + " through offset " + synced);
            }
            tornReason = "file header is zero bytes and no record says the file was ever synced: a WAL never synced,"
                    + " of which a power cut kept later pages only";
            return false;
        }
        s = in.load(0, FILE_HEADER_SIZE);
        if (MemorySegment.mismatch(s, 0, WalFormat.MAGIC.length, expected, 0, WalFormat.MAGIC.length) >= 0) {
            throw new CorruptionException(path, 0, "bad magic: not a RemixDB WAL");
        }
        int stored = s.get(INT, 20);
        int actual = Checksums.crc32c(s, 0, 20);
        if (stored != actual) {
            throw new CorruptionException(path, 20, "file header checksum mismatch: stored " + hex(stored) + ", computed " + hex(actual));
        }
        short v = s.get(WalFormat.SHORT, 6);
        if (v < WalFormat.VERSION_1 || v > WalFormat.VERSION) {
            throw new CorruptionException(path, 6, "unsupported WAL format version " + v + ", expected "
                    + WalFormat.VERSION_1 + " to " + WalFormat.VERSION);
        }
        long number = s.get(LONG, 8);
        if (number != expectedFileNumber) {
            throw new CorruptionException(path, 8, "WAL file number " + number + ", expected " + expectedFileNumber);
        }
        throw new CorruptionException(path, 16, "reserved file header field is not zero");
    }

    /** Replays the record at {@code pos}; returns the offset after it, or -1 when it is a torn tail. */
    private long readRecord(long pos) throws IOException {
        long size = in.size();
        if (size - pos < RECORD_HEADER_SIZE) {
            tornReason = "record header at offset " + pos + " incomplete (" + (size - pos) + " bytes)";
            return -1;
        }
        MemorySegment s = in.load(pos, RECORD_HEADER_SIZE);
        long o = in.offset(pos);
        int length = s.get(INT, o);
        int payloadCrc = s.get(INT, o + 4);
        int stored = s.get(INT, o + 8);
        int actual = Checksums.crc32c(s, o, 8);
        if (stored != actual) {
            return tornOrCorrupt(pos, pos + RECORD_HEADER_SIZE,
                    "record header checksum mismatch at offset " + pos + ": stored " + hex(stored) + ", computed " + hex(actual));
        }
        if (length < PAYLOAD_PREFIX || length > MAX_PAYLOAD) {
            throw new CorruptionException(path, pos, "record payload length out of range: " + Integer.toUnsignedString(length));
        }
        long end = pos + RECORD_HEADER_SIZE + length;
        if (end > size) {
            tornReason = "record at offset " + pos + " needs " + (end - pos) + " bytes, " + (size - pos) + " remain";
            return -1;
        }
        long payloadPos = pos + RECORD_HEADER_SIZE;
        s = in.load(payloadPos, length);
        o = in.offset(payloadPos);
        actual = Checksums.crc32c(s, o, length);
        if (actual != payloadCrc) {
            return tornOrCorrupt(pos, end,
                    "record payload checksum mismatch at offset " + pos + ": stored " + hex(payloadCrc) + ", computed " + hex(actual));
        }
        parse(s, o, length, payloadPos, false);
        parse(s, o, length, payloadPos, true);
        return end;
    }

    private long tornOrCorrupt(long pos, long after, String what) throws IOException {
        if (in.zeroFrom(after)) {
            tornReason = what + ", only zero bytes after it";
            return -1;
        }
        if (version < WalFormat.VERSION) {
            throw new CorruptionException(path, pos, what + "; non-zero bytes follow, so it is not a torn tail");
        }
        long synced = syncedAfter(pos);
        if (synced > pos) {
            throw new CorruptionException(path, pos, what + "; a later record says the file was synced through offset "
                    + synced + ", so it is damage, not a torn write");
        }
        tornReason = what + "; no later record says it was ever synced: the unsynced tail of the log, torn"
                + " (a power cut can keep later pages of a write and not earlier ones)";
        return -1;
    }

    /**
     * Version 3, after a bad record at {@code pos}: the largest offset a synced op in a whole record
     * after it gives, or 0 when there is none. The bad record's length cannot be trusted, so records
     * are looked for at every offset: a header whose checksum passes with a length in range, and a
     * payload whose checksum passes. Reads the rest of the file once (only when damage was found;
     * about half a second for 64 MiB).
     */
    private long syncedAfter(long pos) throws IOException {
        long size = in.size();
        long synced = 0;
        for (long p = pos + 1; p + RECORD_HEADER_SIZE <= size; ) {
            MemorySegment s = in.load(p, RECORD_HEADER_SIZE);
            long o = in.offset(p);
            long length = Integer.toUnsignedLong(s.get(INT, o));
            if (length >= PAYLOAD_PREFIX && length <= MAX_PAYLOAD && p + RECORD_HEADER_SIZE + length <= size
                    && s.get(INT, o + 8) == Checksums.crc32c(s, o, 8)) {
                int payloadCrc = s.get(INT, o + 4);
                s = in.load(p + RECORD_HEADER_SIZE, length);
                o = in.offset(p + RECORD_HEADER_SIZE);
                if (Checksums.crc32c(s, o, (int) length) == payloadCrc) {
                    // Not skipped over: a record found inside another one's bytes (a value that
                    // holds one) must not hide the real records it overlaps.
                    synced = Math.max(synced, syncedIn(s, o, (int) length, p, nonceKnown, nonce));
                }
            }
            p++;
        }
        return synced;
    }

    /**
     * The largest offset a synced op of the payload at {@code o} gives (below its record at {@code
     * recordPos}, with this log's nonce when it is known), or 0.
     */
    private static long syncedIn(MemorySegment s, long o, int length, long recordPos, boolean nonceKnown, int nonce) {
        long end = o + length;
        long synced = 0;
        int count = s.get(INT, o + 8) & ~WalFormat.EARLY;
        long at = o + PAYLOAD_PREFIX;
        for (int i = 0; i < count && at < end; i++) {
            byte type = s.get(ValueLayout.JAVA_BYTE, at++);
            long k = Varints.get(s, at, end, MAX_VARINT);
            if (k < 0) {
                return synced;
            }
            at += k & 7;
            long v = Varints.get(s, at, end, MAX_VARINT);
            if (v < 0) {
                return synced;
            }
            at += v & 7;
            long keyLen = k >>> 3;
            long valueLen = v >>> 3;
            // The key is the nonce, the value the offset.
            if (type == WalFormat.SYNCED && keyLen == 4 && valueLen == 8 && at + 12 <= end
                    && (!nonceKnown || s.get(INT, at) == nonce)) {
                long x = s.get(LONG, at + 4);
                if (x <= recordPos) {
                    synced = Math.max(synced, x);
                }
            }
            at += keyLen + valueLen;
        }
        return synced;
    }

    /**
     * Checks the structure of a payload that passed its checksum ({@code visit} false), then hands
     * its ops to the visitor ({@code visit} true): a malformed record is refused before any of it is applied.
     */
    private void parse(MemorySegment s, long o, int length, long filePos, boolean visit) {
        long end = o + length;
        long marks = 0;
        long firstSeq = s.get(LONG, o);
        int count = s.get(INT, o + 8);
        boolean early = version >= WalFormat.VERSION_2 && (count & WalFormat.EARLY) != 0;
        if (early) {
            count &= ~WalFormat.EARLY;
        }
        if (firstSeq < 0 || count <= 0 || firstSeq > Long.MAX_VALUE - count) {
            throw new CorruptionException(path, filePos, "bad first seq " + firstSeq + " or op count " + Integer.toUnsignedString(count));
        }
        at = o + PAYLOAD_PREFIX;
        for (int i = 0; i < count; i++) {
            long opAt = at;
            if (at >= end) {
                throw new CorruptionException(path, filePos + (opAt - o), "record ends before op " + i + " of " + count);
            }
            byte type = s.get(ValueLayout.JAVA_BYTE, at++);
            int keyLen = varint(s, end, filePos - o);
            int valueLen = varint(s, end, filePos - o);
            if (type == WalFormat.MARK && version >= WalFormat.VERSION_2 && keyLen == 0 && valueLen == 0) {
                marks++;  // settles the early records before it; nothing to replay
                continue;
            }
            if (type == WalFormat.SYNCED && version >= WalFormat.VERSION && keyLen == 4 && valueLen == 8 && at + 12 <= end) {
                int opNonce = s.get(INT, at);  // the key: the log's nonce
                long through = s.get(LONG, at + 4);  // the value: the offset
                long recordPos = filePos - RECORD_HEADER_SIZE;
                if (opNonce != nonce || through < FILE_HEADER_SIZE || through > recordPos) {
                    throw new CorruptionException(path, filePos + (opAt - o), "synced op " + i + " gives offset " + through
                            + " and nonce " + hex(opNonce) + ": not between the file header and its own record at "
                            + recordPos + ", or not this log's nonce " + hex(nonce));
                }
                at += 12;
                marks++;  // nothing to replay
                continue;
            }
            if (type < PUT || type > RANGE_DELETE || keyLen > Limits.MAX_KEY_BYTES || valueLen > Limits.MAX_VALUE_BYTES
                    || (type == DELETE && valueLen != 0) || (type == RANGE_DELETE && valueLen > Limits.MAX_KEY_BYTES)
                    || at + keyLen + valueLen > end) {
                throw new CorruptionException(path, filePos + (opAt - o), "bad op " + i + ": type " + type
                        + ", key length " + keyLen + ", value length " + valueLen);
            }
            if (visit) {
                visitor.op(firstSeq + i, TYPES[type - 1], s, at, keyLen, s, at + keyLen, valueLen);
            }
            at += keyLen + valueLen;
        }
        if (at != end) {
            throw new CorruptionException(path, filePos + (at - o), (end - at) + " bytes after the last op of the record");
        }
        if (visit) {
            records++;
            if (early) {
                earlyRecords++;
            }
            ops += count - marks;
            maxSeq = Math.max(maxSeq, firstSeq + count - 1);
        }
    }

    /** An unsigned LEB128 varint below 2^31 at {@link #at}; {@code toFile} maps buffer to file offsets. */
    private int varint(MemorySegment s, long end, long toFile) {
        long v = Varints.get(s, at, end, MAX_VARINT);
        if (v < 0) {
            throw new CorruptionException(path, at + toFile, "bad varint");
        }
        at += v & 7;
        return (int) (v >>> 3);
    }

    private static String hex(int v) {
        return String.format("%08x", v);
    }
}
