package dev.remixdb.wal;

import static dev.remixdb.wal.WalFormat.FILE_HEADER_SIZE;
import static dev.remixdb.wal.WalFormat.INT;
import static dev.remixdb.wal.WalFormat.LONG;
import static dev.remixdb.wal.WalFormat.MAX_PAYLOAD;
import static dev.remixdb.wal.WalFormat.PAYLOAD_PREFIX;
import static dev.remixdb.wal.WalFormat.RECORD_HEADER_SIZE;

import dev.remixdb.util.Checksums;
import dev.remixdb.util.Closeables;
import dev.remixdb.util.NativeBuffer;
import dev.remixdb.util.Varints;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Appends records to a new write-ahead log file. One WAL belongs to one memtable; a record is a
 * group of operations (write batches and single puts with consecutive sequence numbers) that
 * replay applies all or not at all. Adding does not sync: the engine adds the writes of several
 * writers and then calls {@link #sync()} once (group commit).
 *
 * <p>File layout, little-endian:
 * <pre>
 * file header (24 bytes)
 *   offset size field
 *   0      6    magic "RMXWAL" (ASCII)
 *   6      2    u16 format version, 3 (version 2: the same without sync ops; version 1: also
 *               without the early bit and marks)
 *   8      8    u64 file number of this WAL (checked on replay: a WAL renamed or mixed up is refused)
 *   16     4    version 3: a random nonce, which the log's synced ops repeat; versions 1 and 2: 0
 *   20     4    u32 CRC32C of bytes [0, 20)
 * records, back to back until the end of the file
 *   0      4    u32 payload length N, 12 &lt;= N &lt;= 2^30
 *   4      4    u32 CRC32C of the N payload bytes (keys and values included)
 *   8      4    u32 CRC32C of bytes [0, 8) of this header: a damaged length is caught before it is used
 *   12     N    payload
 * payload
 *   0      8    u64 first seq; the ops get first seq, first seq + 1, ... in order
 *   8      4    u32 op count, at least 1, in bits 0-30; bit 31 set: an <em>early</em> record, written
 *               while an older WAL's sync was still under way (see below)
 *   12     ...  ops, back to back:
 *                 u8      type: 1 = put, 2 = delete, 3 = range delete (every key from the key,
 *                         inclusive, to the value, exclusive; an empty value: to the end of the keys),
 *                         4 = mark (version 2: empty key and value, not replayed; see below),
 *                         5 = synced (version 3: a 4-byte key, the header's nonce, and an 8-byte
 *                         value, a u64 file offset X: a sync of the file through X had returned
 *                         before this record was written; alone in its record; not replayed; see below)
 *                 varint  key length (unsigned LEB128, at most 5 bytes)
 *                 varint  value length (0 for a delete)
 *                 bytes   key
 *                 bytes   value
 * </pre>
 * A zero-filled region never passes the header check (the CRC32C of eight zero bytes is not zero),
 * so a preallocated or zero-extended tail is recognized as the end of the log; see
 * {@link WalReader} for the torn-tail rules.
 *
 * <p>Early records: after a memtable switch the old WAL is synced in the background while writes
 * go to the new one (so that they reach its file within the flush interval), and a power cut in
 * that window may leave the new WAL's bytes on disk and not all of the old one's. A record written
 * before the older WALs were durable says so; a reader that finds an older WAL torn and only early
 * records after it knows that none of them was ever synced and can drop them, while a torn WAL
 * followed by a record written after it was synced is damage. An early record can be synced all the
 * same (a sync waits for the older WALs, then syncs this one): so a {@link #sync()} or
 * {@link #close()} that finds early records written since the last mark, once the older WALs are
 * durable, first adds a mark record, which is not early; a reader then sees the early records as
 * settled. A {@link #close()} also ends a WAL that holds records with a mark, written and synced
 * after them: a damaged last record is then not at the tail, and a reader reports it as damage
 * instead of dropping it as a torn write.
 *
 * <p>Sync records (version 3): a power cut can keep any subset of the pages written since the last
 * sync, a later page and not an earlier one, so damage followed by good records is not always
 * damage: it can be a torn write in the unsynced tail. To tell the two apart, each {@link #sync()}
 * that made new bytes durable writes, once it returned, a record of one <em>synced</em> op giving
 * the offset it covered (39 bytes and one write call per sync; the seq of the last op, not
 * replayed), and the closing mark is such a record. A reader that meets a bad record with good ones
 * after it looks among those for a synced op past the bad record: found, the record had been synced
 * and is damage; not found, nothing from the bad record on was ever synced (but for a crash between
 * a sync's return and its record's write), and it is cut off as a torn tail (the log stays a prefix
 * of the writes). {@link #appendSyncedMark} adds such a record to a log synced by other means (a
 * checkpoint's copy, a log replayed after a crash).
 *
 * <p>Buffering: {@link #add} encodes ops into a buffer, where consecutive writes whose sequence
 * numbers follow on share one open record (up to {@value #RECORD_TARGET} bytes of payload), so the
 * framing (24 bytes a record) is paid once for many small writes. {@link #flush()} closes the open
 * record and writes the buffer to the file; {@link #sync()} flushes and then forces the file. A
 * record is replayed all or nothing, so writes that share one are too, and a crash can only lose a
 * suffix of the log: what replays is always the state after some write. {@link #append} writes one
 * record of its own at once.
 *
 * <p>Thread-safe: {@link #add} and {@link #append} are serialized by this object. Writing to the
 * file is serialized by a lock of its own and happens outside that monitor: a flush takes the
 * buffer as it is and leaves an empty one in its place, so writers keep adding while the bytes
 * before them are written (a writer used to wait for the whole write, up to a megabyte, each time
 * the flusher ran). {@link #sync()} may run while another thread adds (it then makes durable at
 * least what was added before it started). After an I/O error while writing, the file may end in a
 * partial record, so the writer refuses further writes; the engine then stops taking writes.
 */
public final class WalWriter implements AutoCloseable {
    /** A record shared by consecutive writes grows to about this much payload; then a new one starts. */
    static final int RECORD_TARGET = 256 << 10;
    /** Buffered bytes at which {@link #add} writes them out itself, unless a flush is writing already. */
    static final int FLUSH_BYTES = 1 << 20;
    /** Buffered bytes at which {@link #add} waits for a flush in progress and writes them out. */
    static final int FORCE_FLUSH_BYTES = 4 * FLUSH_BYTES;
    /** A buffer that grew past this for a large write is given back after it is written. */
    private static final int KEEP_BUFFER = 2 * FORCE_FLUSH_BYTES;
    /** A buffer's first size unless the WAL before this one says more ({@link #bufferCapacity}). */
    static final int INITIAL_BUFFER = 64 << 10;

    private final Path path;
    private final long fileNumber;
    /** A random number in the file header that this log's synced ops repeat (see {@link WalFormat#SYNCED}). */
    private final int nonce;
    /**
     * The file. Reopened when the interrupt of a thread in an I/O call closed it (see
     * {@link #uninterruptibly}); replaced under {@link #writeLock}.
     */
    private volatile FileChannel channel;
    /** Set when {@link #close()} closes the channel for good (under {@link #writeLock}). */
    private volatile boolean channelReleased;
    /**
     * Bytes not yet written to the file: finished records, then the open one. Shared: writes come
     * from different threads over time (whoever leads the group commit, the flusher).
     */
    private NativeBuffer buffer;
    /** The size a new buffer starts with. */
    private final int initialBuffer;
    /** The buffer a finished flush gave back, to take {@link #buffer}'s place at the next flush; or null. */
    private NativeBuffer spare;
    /** Serializes writes to the file, in log order; taken before this object's monitor, never after. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /** File length written so far (changed under {@link #writeLock} and the monitor). */
    private long written;
    /** Bytes a flush took from the buffer and is writing now (under the monitor). */
    private long writing;
    /** Where the open record's header starts in {@link #buffer}, or -1 when none is open. */
    private long openAt = -1;
    private long openFirstSeq;
    private int openCount;
    /** The sequence number an op must have to join the open record. */
    private long openNextSeq;
    /** Whether the open record is early (see the class comment). */
    private boolean openEarly;
    /** Whether the last record closed is early, with no mark after it (under the monitor). */
    private boolean unsettled;
    /** The offset a returned sync covered the file through (under the monitor). */
    private long syncedThrough;
    /** The offset the last synced op buffered gives (under the monitor). */
    private long syncRecorded = FILE_HEADER_SIZE;
    /** The log's length after its last record that is not a synced op's (under the monitor). */
    private long dataEnd = FILE_HEADER_SIZE;
    /**
     * Until it says true, whether the older WALs are durable; null once they are (or when there
     * are none), so that a record opened then is not early. Read under the monitor.
     */
    private BooleanSupplier olderWalsDurable;
    /** Bytes added and not yet written: read without the lock by the flusher. */
    private volatile long buffered;
    /** {@link System#nanoTime()} when the oldest buffered byte was added. */
    private volatile long bufferedSince;
    private boolean failed;
    /** Why the write that left {@link #failed} set failed. */
    private Exception failure;
    private volatile boolean closed;
    /** Set when {@link #close()} did not sync (a write had failed, or the sync failed). */
    private volatile boolean closedUnsynced;

    private WalWriter(Path path, long fileNumber, FileChannel channel, BooleanSupplier olderWalsDurable,
                      int initialBuffer) {
        this.initialBuffer = initialBuffer;
        this.buffer = NativeBuffer.shared(initialBuffer);
        this.path = path;
        this.fileNumber = fileNumber;
        this.channel = channel;
        this.olderWalsDurable = olderWalsDurable;
        int n;
        do {
            n = java.util.concurrent.ThreadLocalRandom.current().nextInt();
        } while (n == 0);
        this.nonce = n;
    }

    /**
     * Creates the WAL file (it must not exist) and writes its header. The header becomes durable
     * with the first {@link #sync()}; making the new directory entry durable is the caller's job.
     * The WALs before it, if any, must be durable already.
     */
    public static WalWriter create(Path path, long fileNumber) throws IOException {
        return create(path, fileNumber, null);
    }

    /**
     * {@link #create(Path, long)} for a WAL whose predecessors may still be syncing:
     * {@code olderWalsDurable} says when they are all durable (once it has said true it is not asked
     * again); records opened before then are early (see the class comment). Null: they are durable.
     */
    public static WalWriter create(Path path, long fileNumber, BooleanSupplier olderWalsDurable) throws IOException {
        return create(path, fileNumber, olderWalsDurable, INITIAL_BUFFER);
    }

    /**
     * {@link #create(Path, long, BooleanSupplier)} with buffers of {@code bufferBytes} to start with
     * (at least {@value #INITIAL_BUFFER}, at most what a writer keeps): the {@link #bufferCapacity}
     * of the WAL this one follows, so that a store writing fast does not grow its buffers again
     * with every new WAL. Each growth frees shared memory, which stops every thread of the JVM for a
     * moment (a handshake) while the writer that grew the buffer waits: up to 10-20 ms on two busy
     * cores.
     */
    public static WalWriter create(Path path, long fileNumber, BooleanSupplier olderWalsDurable, long bufferBytes)
            throws IOException {
        int initial = (int) Math.clamp(bufferBytes, INITIAL_BUFFER, KEEP_BUFFER);
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        WalWriter writer;
        try {
            writer = new WalWriter(path, fileNumber, channel, olderWalsDurable, initial);
        } catch (RuntimeException | Error e) {
            Closeables.closeAll(List.<AutoCloseable>of(channel), e);
            throw e;
        }
        try {
            writer.writeFully(ByteBuffer.wrap(WalFormat.fileHeader(fileNumber, WalFormat.VERSION, writer.nonce)), 0);
            writer.written = FILE_HEADER_SIZE;
            return writer;
        } catch (IOException | RuntimeException | Error e) {
            Closeables.closeAll(List.<AutoCloseable>of(writer.channel, writer.buffer), e);
            throw e;
        }
    }

    /**
     * Appends to the WAL at {@code path}, which must end after a whole record and be durable up to
     * there by other means (a checkpoint's copy, synced with it; a log replayed and synced after a
     * crash), a record of one synced op giving its length, with seq {@code seq} (the last op's, or
     * any seq not above the store's last). Not synced: the caller syncs the file after. Without it a
     * later damaged record there would read as a torn, never synced, tail. Does nothing to a log
     * that holds no record, that ends with such a record already, or of an older format (version
     * 2 has no synced op); returns whether it appended.
     */
    public static boolean appendSyncedMark(Path path, long seq) throws IOException {
        if (seq < 0) {
            throw new IllegalArgumentException("seq " + seq);
        }
        try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = c.size();
            ByteBuffer header = ByteBuffer.allocate(FILE_HEADER_SIZE).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            if (size <= FILE_HEADER_SIZE || c.read(header, 0) < FILE_HEADER_SIZE
                    || header.getShort(6) != WalFormat.VERSION) {
                return false;
            }
            int nonce = header.getInt(WalFormat.NONCE_OFFSET);
            int recordBytes = WalFormat.SYNCED_RECORD_BYTES;
            if (size >= FILE_HEADER_SIZE + recordBytes) {
                ByteBuffer last = ByteBuffer.allocate(recordBytes);
                c.read(last, size - recordBytes);
                // The last record is one this method would write (its length, op count and op; the
                // seq and so the checksums may differ): it says so already.
                byte[] same = WalFormat.syncedRecord(0, nonce, size - recordBytes);
                int countAt = RECORD_HEADER_SIZE + 8;
                if (!last.hasRemaining() && Arrays.mismatch(last.array(), 0, 4, same, 0, 4) < 0
                        && Arrays.mismatch(last.array(), countAt, recordBytes, same, countAt, recordBytes) < 0) {
                    return false;
                }
            }
            ByteBuffer out = ByteBuffer.wrap(WalFormat.syncedRecord(seq, nonce, size));
            for (long at = size; out.hasRemaining(); ) {
                at += c.write(out, at);
            }
            return true;
        }
    }

    /**
     * Encodes {@code ops} with seqs {@code firstSeq, firstSeq + 1, ...} into the buffer: into the open
     * record when their seqs follow its own and it has room, else into a new record. Nothing reaches
     * the file until {@link #flush()} (or until a megabyte is buffered). Returns the bytes added to the
     * log, record headers included. Throws {@link IllegalArgumentException} for an empty list, a
     * negative first seq or ops over 1 GiB; nothing is added then.
     */
    public long add(long firstSeq, List<WalOp> ops) throws IOException {
        return add(firstSeq, ops, null);
    }

    /**
     * Where the bytes of an add's puts and deletes are read from instead of the ops' arrays: a copy
     * already made (the memtable's), so that the log and the memtable hold the same bytes even if
     * the caller's arrays change meanwhile. The lengths are the ops'.
     */
    public interface Copies {
        /** The segment holding op {@code i}'s key and value; null: read the op's own arrays. */
        MemorySegment segment(int i);

        /** Where op {@code i}'s key starts in {@link #segment}. */
        long keyOffset(int i);

        /** Where op {@code i}'s value starts in {@link #segment}. */
        long valueOffset(int i);
    }

    /**
     * {@link #add(long, List)}, reading each op's key and value from {@code copies} where it gives a
     * segment (range deletes always from the op).
     */
    public long add(long firstSeq, List<WalOp> ops, Copies copies) throws IOException {
        long added;
        long size;
        synchronized (this) {
            added = addLocked(firstSeq, ops, copies);
            size = buffer.size();
        }
        // Outside the monitor: the file write must not hold up the next writer's add. While a flush
        // is writing, a buffer over a megabyte waits for the next one, up to a bound.
        if (size >= FORCE_FLUSH_BYTES) {
            flush();
        } else if (size >= FLUSH_BYTES && writeLock.tryLock()) {
            try {
                flush();
            } finally {
                writeLock.unlock();
            }
        }
        return added;
    }

    private long addLocked(long firstSeq, List<WalOp> ops, Copies copies) throws IOException {
        long payload = checkWritable(firstSeq, ops);
        long before = buffer.size();
        if (openAt < 0 || firstSeq != openNextSeq || openPayload() + payload > RECORD_TARGET) {
            closeRecord();
            openRecord(firstSeq);
        }
        for (int i = 0; i < ops.size(); i++) {
            encode(ops.get(i), copies == null ? null : copies.segment(i), copies, i);
        }
        openCount += ops.size();
        openNextSeq = firstSeq + ops.size();
        dataEnd = written + writing + buffer.size();
        long added = buffer.size() - before;
        if (buffered == 0) {
            bufferedSince = System.nanoTime();
        }
        buffered += added;
        return added;
    }

    /**
     * Appends {@code ops} as one record of its own and writes it to the file (with whatever was
     * buffered before it) before returning; not synced. Returns the bytes of the record.
     */
    public long append(long firstSeq, List<WalOp> ops) throws IOException {
        long added;
        synchronized (this) {
            checkWritable(firstSeq, ops);
            closeRecord();
            added = addLocked(firstSeq, ops, null);
        }
        flush();
        return added;
    }

    /** Checks the arguments and the writer's state; returns the ops' payload bytes. */
    private long checkWritable(long firstSeq, List<WalOp> ops) throws IOException {
        checkOpen();
        if (failed) {
            // The first failure is the cause the caller needs (a full disk, an I/O error).
            throw new IOException(path + ": an earlier write failed at offset " + written
                    + "; the WAL takes no more records", failure);
        }
        if (ops.isEmpty()) {
            throw new IllegalArgumentException("a record needs at least one op");
        }
        if (firstSeq < 0 || firstSeq > Long.MAX_VALUE - ops.size()) {
            throw new IllegalArgumentException("first seq out of range: " + firstSeq);
        }
        long payload = 0;
        for (int i = 0; i < ops.size(); i++) {  // indexed: no iterator per write
            WalOp op = Objects.requireNonNull(ops.get(i), "op");
            payload += opBytes(op);
        }
        if (PAYLOAD_PREFIX + payload > MAX_PAYLOAD) {
            throw new IllegalArgumentException("record payload over " + MAX_PAYLOAD + " bytes: " + (PAYLOAD_PREFIX + payload));
        }
        return payload;
    }

    private static long opBytes(WalOp op) {
        return 1 + Varints.size(op.key().length) + Varints.size(op.value().length) + op.key().length
                + (long) op.value().length;
    }

    private long openPayload() {
        return buffer.size() - openAt - RECORD_HEADER_SIZE;
    }

    private void openRecord(long firstSeq) {
        openAt = buffer.reserve(RECORD_HEADER_SIZE + PAYLOAD_PREFIX);
        openFirstSeq = firstSeq;
        openCount = 0;
        // Asked at the open, before any of the record's bytes can reach the file: a record that
        // grows after the older WALs became durable stays early, which only makes a reader stricter.
        if (olderWalsDurable != null && olderWalsDurable.getAsBoolean()) {
            olderWalsDurable = null;
        }
        openEarly = olderWalsDurable != null;
    }

    private void encode(WalOp op, MemorySegment copy, Copies copies, int i) {
        long at = buffer.reserve(opBytes(op));
        MemorySegment b = buffer.segment();
        b.set(ValueLayout.JAVA_BYTE, at++, (byte) (op.type().ordinal() + 1));
        int keyLen = op.key().length;
        int valueLen = op.value().length;
        at = Varints.put(b, at, keyLen);
        at = Varints.put(b, at, valueLen);
        if (copy != null && op.type() != WalOp.Type.RANGE_DELETE) {
            MemorySegment.copy(copy, copies.keyOffset(i), b, at, keyLen);
            MemorySegment.copy(copy, copies.valueOffset(i), b, at + keyLen, valueLen);
            return;
        }
        MemorySegment.copy(op.key(), 0, b, ValueLayout.JAVA_BYTE, at, keyLen);
        at += keyLen;
        MemorySegment.copy(op.value(), 0, b, ValueLayout.JAVA_BYTE, at, valueLen);
    }

    /** Finishes the open record, if any: its prefix, length and checksums. */
    private void closeRecord() {
        if (openAt < 0) {
            return;
        }
        MemorySegment b = buffer.segment();
        long at = openAt;
        int payload = (int) openPayload();
        b.set(LONG, at + RECORD_HEADER_SIZE, openFirstSeq);
        b.set(INT, at + RECORD_HEADER_SIZE + 8, openEarly ? openCount | WalFormat.EARLY : openCount);
        // A record that is not early settles the early ones before it as a mark would.
        unsettled = openEarly;
        b.set(INT, at, payload);
        b.set(INT, at + 4, Checksums.crc32c(b, at + RECORD_HEADER_SIZE, payload));
        b.set(INT, at + 8, Checksums.crc32c(b, at, 8));
        openAt = -1;
    }

    /**
     * Under the monitor, before a sync: adds a mark record after early records not yet settled, once
     * the older WALs are durable (see the class comment). A sync that runs before they are cannot
     * promise the early records anyway.
     */
    private void settleLocked() {
        // The open record, when there is one, is the last: closed now, it settles or needs a mark.
        boolean early = openAt >= 0 ? openEarly : unsettled;
        if (!early || failed) {
            return;
        }
        if (olderWalsDurable != null && !olderWalsDurable.getAsBoolean()) {
            return;
        }
        olderWalsDurable = null;
        addMarkLocked();
    }

    /** Under the monitor: buffers a mark record, not early, after the last record. */
    private void addMarkLocked() {
        closeRecord();
        long before = buffer.size();
        openRecord(openNextSeq - 1);  // not early now; the seq of the last op, which it does not replay
        long at = buffer.reserve(3);
        MemorySegment b = buffer.segment();
        b.set(ValueLayout.JAVA_BYTE, at, WalFormat.MARK);
        b.set(ValueLayout.JAVA_BYTE, at + 1, (byte) 0);  // key length
        b.set(ValueLayout.JAVA_BYTE, at + 2, (byte) 0);  // value length
        openCount = 1;
        closeRecord();
        if (buffered == 0) {
            bufferedSince = System.nanoTime();
        }
        buffered += buffer.size() - before;
        unsettled = false;
        dataEnd = written + writing + buffer.size();
    }

    /** Under the monitor: encodes a synced op (version 3) giving {@code through} into the open record. */
    private void encodeSynced(long through) {
        WalFormat.putSyncedOp(buffer.segment(), buffer.reserve(WalFormat.SYNCED_OP_BYTES), nonce, through);
        syncRecorded = through;
    }

    /**
     * In a close, under {@link #writeLock}, once the records (the file's first {@code records} bytes)
     * are durable: writes and syncs the buffered closing mark. The mark only guards the records, so
     * its failure (a full disk, an I/O error) does not fail the close: what of it reached the file is
     * cut off again, since a torn mark at the end of a WAL that newer ones follow would read as an
     * older WAL torn short. Only when that cut fails too does the close fail.
     */
    private void closeWithMark(long records) throws IOException {
        try {
            flushLocked();
            force();
        } catch (IOException | RuntimeException e) {
            try {
                if (uninterruptibly(FileChannel::size) > records) {
                    uninterruptibly(c -> {
                        c.truncate(records);
                        return null;
                    });
                    force();
                }
            } catch (IOException | RuntimeException cut) {
                e.addSuppressed(cut);
                throw e;
            }
        }
    }

    /**
     * Under the monitor, in a close whose records, the file's first {@code records} bytes, are all
     * synced: buffers the closing mark (see {@link #close()}), a record of one synced op, unless
     * there is nothing to guard (no record). The record asks whether the older WALs are durable as
     * any other does: if not yet, it is early and settles nothing (only a sync after them may).
     */
    private boolean addClosingMarkLocked(long records) {
        if (failed || openNextSeq == 0
                || (syncRecorded > FILE_HEADER_SIZE && syncRecorded + WalFormat.SYNCED_RECORD_BYTES == records)) {
            // The last record says the file was synced up to it: once a synced op was written (its
            // record starts at or after the offset it gives), only one giving its own offset and
            // followed by nothing ends the log there.
            return false;
        }
        addSyncedMarkLocked(records);
        return true;
    }

    /**
     * Closes the open record and writes every buffered byte to the file (not synced). After a failed
     * write the writer takes nothing more.
     */
    public void flush() throws IOException {
        writeLock.lock();
        try {
            if (closed) {
                return;  // close() flushed
            }
            flushLocked();
        } finally {
            writeLock.unlock();
        }
    }

    /** {@link #flush()} under {@link #writeLock}: takes the buffer, writes it outside the monitor. */
    private void flushLocked() throws IOException {
        NativeBuffer out;
        long n;
        long at;
        synchronized (this) {
            if (failed) {
                throw new IOException(path + ": an earlier write failed at offset " + written
                        + "; what was buffered after it is lost", failure);
            }
            closeRecord();
            n = buffer.size();
            if (n == 0) {
                return;
            }
            out = buffer;
            buffer = spare != null ? spare : NativeBuffer.shared(initialBuffer);
            spare = null;
            writing = n;
            at = written;
            buffered = 0;
        }
        try {
            writeFully(out.segment().asSlice(0, n).asByteBuffer(), at);
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                failed = true;
                failure = e;
                writing = 0;
            }
            out.close();
            throw e;
        }
        synchronized (this) {
            written = at + n;
            writing = 0;
            out.clear();
            if (out.capacity() > KEEP_BUFFER) {
                out.close();  // grown for a large write: the next flush makes a small one
            } else {
                spare = out;
            }
        }
    }

    /** The capacity the buffers have grown to: what the WAL after this one should start with. */
    public synchronized long bufferCapacity() {
        long c = buffer.capacity();
        return spare != null ? Math.max(c, spare.capacity()) : c;
    }

    /** Bytes added and not yet written to the file. */
    public long bufferedBytes() {
        return buffered;
    }

    /** {@link System#nanoTime()} when the oldest byte not yet written was added (meaningless when none is). */
    public long bufferedSinceNanos() {
        return bufferedSince;
    }

    private void writeFully(ByteBuffer bytes, long position) throws IOException {
        uninterruptibly(c -> {
            ByteBuffer b = bytes.duplicate();  // a repeated call writes it all again, at the same place
            long at = position;
            while (b.hasRemaining()) {
                at += c.write(b, at);
            }
            return null;
        });
    }

    private void force() throws IOException {
        uninterruptibly(c -> {
            c.force(false);
            return null;
        });
    }

    /** One I/O call on the channel, which may be repeated. */
    @FunctionalInterface
    private interface ChannelCall<T> {
        T run(FileChannel channel) throws IOException;
    }

    /**
     * Runs {@code call} so that no interrupt breaks the log. A {@link FileChannel} is closed, for
     * every thread, when a thread in an I/O call on it is interrupted; any writer's thread may lead a
     * group commit and write the log, so one interrupted caller (an executor's {@code shutdownNow},
     * a cancelled task) would fail the whole store. The thread's interrupt status is cleared for the
     * call and set again after it; an interrupt arriving during the call still closes the channel,
     * which is then reopened and the call repeated (positional writes and a force can be). The
     * writer's own {@link #close()} is not undone: a call after it releases the channel throws
     * {@link ClosedChannelException}. Not covered: an fsync that fails (EIO) while an interrupt
     * closes the channel reports the close instead, and the repeated fsync through a new descriptor
     * may not see that error again (Linux reports a writeback error once per open file); writes
     * through native descriptors, which no interrupt closes, would close that gap.
     */
    private <T> T uninterruptibly(ChannelCall<T> call) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            for (int attempt = 1; ; attempt++) {
                FileChannel c = channel;
                try {
                    return call.run(c);
                } catch (ClosedChannelException e) {
                    // Closed by an interrupt: of this thread (ClosedByInterruptException), of another
                    // thread during this call (AsynchronousCloseException) or before it.
                    interrupted |= Thread.interrupted();
                    if (channelReleased || attempt >= 100) {
                        throw e;
                    }
                    reopen(c);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Replaces {@code broken}, closed by an interrupt, unless another thread did or {@link #close()}
     * released the channel (a close's own I/O, under the lock, reopens it too).
     */
    private void reopen(FileChannel broken) throws IOException {
        writeLock.lock();  // close() holds it throughout: another thread's waits for it to finish
        try {
            if (channelReleased) {
                throw new ClosedChannelException();
            }
            if (channel == broken) {
                channel = FileChannel.open(path, StandardOpenOption.WRITE);
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Writes what is buffered and makes everything added so far durable (file data and length;
     * {@code force(false)}). After a clean {@link #close()}, which synced, there is nothing left to do.
     *
     * @throws IOException when the write or the sync fails, or the writer was closed after a failure
     */
    public void sync() throws IOException {
        if (!closed) {
            try {
                synchronized (this) {
                    if (!closed) {
                        settleLocked();
                    }
                }
                flush();
                long through;
                synchronized (this) {
                    through = written;  // every byte the force below covers, at least
                }
                force();
                synchronized (this) {
                    syncedThrough = Math.max(syncedThrough, through);
                }
                recordSync();
                return;
            } catch (ClosedChannelException e) {
                if (!closed) {
                    throw e;
                }
                // Closed meanwhile: the close synced, or says why not.
            }
        }
        writeLock.lock();  // waits for a close in progress
        try {
            if (closedUnsynced) {
                throw new IOException(path + " was closed without a sync (after a failed write or sync);"
                        + " what it holds is not known to be durable");
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * After a sync returned: writes (not synced) a record of one synced op saying how far it
     * reached, unless one says so already, so that the proof is in the file at once: a crash before
     * the next write would otherwise leave every record that sync covered unproven, and a reader
     * would take damage in them for a torn tail. A record opened during the sync (writes added
     * meanwhile, not covered) is closed first, the mark after it. A failure to write the mark does
     * not fail the sync, whose records are durable; the writer takes nothing more then, and the next
     * write or sync reports why.
     */
    private void recordSync() {
        writeLock.lock();
        try {
            if (closed) {
                return;
            }
            synchronized (this) {
                // Only for records not proven yet: a sync after nothing but the last such record adds none.
                if (failed || Math.min(syncedThrough, dataEnd) <= syncRecorded || openNextSeq == 0) {
                    return;
                }
                if (openAt < 0 && buffer.size() == 0) {
                    writeMarkAloneLocked();
                    return;
                }
                // Writes came during the sync: the mark goes after them, and is written with them
                // (their write failing is a write failure like any).
                addSyncedMarkLocked(syncedThrough);
            }
            flushLocked();
        } catch (IOException | RuntimeException e) {
            // failed is set: the next add or sync reports it
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Under {@link #writeLock} and the monitor (no add can slip in: one small write), with nothing
     * buffered: writes a synced op's record at the end of the file. Its failure (a full disk) costs
     * the mark alone, as a closing mark's does: what of it reached the file is cut off again and the
     * writer goes on, its records durable; only a failed cut stops it (the file may end torn).
     */
    private void writeMarkAloneLocked() {
        long at = written;
        long recorded = syncRecorded;
        boolean wasUnsettled = unsettled;
        addSyncedMarkLocked(syncedThrough);
        long n = buffer.size();
        try {
            writeFully(buffer.segment().asSlice(0, n).asByteBuffer(), at);
            written = at + n;
        } catch (IOException | RuntimeException e) {
            syncRecorded = recorded;
            unsettled = wasUnsettled;
            try {
                uninterruptibly(c -> {
                    if (c.size() > at) {
                        c.truncate(at);
                    }
                    return null;
                });
            } catch (IOException | RuntimeException cut) {
                e.addSuppressed(cut);
                failed = true;
                failure = e;
            }
        } finally {
            buffer.clear();
            buffered = 0;
        }
    }

    /** Under the monitor: buffers a record of one synced op giving {@code through}, after the last record. */
    private void addSyncedMarkLocked(long through) {
        closeRecord();
        long before = buffer.size();
        openRecord(openNextSeq - 1);  // the seq of the last op, which it does not replay
        encodeSynced(through);
        openCount = 1;
        closeRecord();
        if (buffered == 0) {
            bufferedSince = System.nanoTime();
        }
        buffered += buffer.size() - before;
    }

    /** The log's length: the file header plus every record added, written or still buffered. */
    public synchronized long bytesWritten() {
        return written + writing + buffer.size();
    }

    /**
     * The bytes in the file so far: a prefix of whole records (a flush in progress not counted).
     * After a {@link #flush()}, at least what was added before it; a sync's mark record added since
     * may be in it or not.
     */
    public synchronized long bytesInFile() {
        return written;
    }

    /** The WAL file. */
    public Path path() {
        return path;
    }

    /** The WAL's file number. */
    public long fileNumber() {
        return fileNumber;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("WAL writer is closed: " + path);
        }
    }

    /** Writes what is buffered, syncs (unless a write failed) and closes the file. Idempotent. */
    @Override
    public void close() throws IOException {
        writeLock.lock();
        try {
            synchronized (this) {  // adds from now on see the writer closed: none can slip in after the last flush
                if (closed) {
                    return;
                }
                settleLocked();  // the close syncs
                closedUnsynced = true;
                closed = true;
            }
            Throwable failure = null;
            try {
                flushLocked();
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
            boolean writeFailed;
            synchronized (this) {
                writeFailed = failed;
            }
            try {
                if (!writeFailed) {
                    force();
                    closedUnsynced = false;
                    // The closing mark, written and synced after the records: a damaged last record
                    // is then followed by a good one, so a reader takes it for damage, not for a
                    // torn tail it may drop (a flipped bit in a closed WAL used to lose that record
                    // silently). Written only once they are durable, so that a power cut during this
                    // sync can cost the mark alone, never make synced records look damaged.
                    boolean mark;
                    long records;
                    synchronized (this) {
                        records = written;
                        mark = addClosingMarkLocked(records);
                    }
                    if (mark) {
                        closeWithMark(records);
                    }
                }
            } catch (IOException | RuntimeException e) {
                failure = Closeables.add(failure, e);
            }
            channelReleased = true;  // from here a closed channel is this close's, not an interrupt's
            List<AutoCloseable> resources = new ArrayList<>(List.of(channel, buffer));
            if (spare != null) {
                resources.add(spare);
            }
            failure = Closeables.closeAll(resources, failure);
            Closeables.rethrow(failure);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "WalWriter[" + path + ", " + written + " bytes written, " + buffered + " buffered"
                + (closed ? ", closed" : "") + "]";
    }
}
