package dev.remixdb.wal;

import static dev.remixdb.wal.WalFormat.DELETE;
import static dev.remixdb.wal.WalFormat.FILE_HEADER_SIZE;
import static dev.remixdb.wal.WalFormat.INT;
import static dev.remixdb.wal.WalFormat.LONG;
import static dev.remixdb.wal.WalFormat.MAX_PAYLOAD;
import static dev.remixdb.wal.WalFormat.PAYLOAD_PREFIX;
import static dev.remixdb.wal.WalFormat.PUT;
import static dev.remixdb.wal.WalFormat.RECORD_HEADER_SIZE;

import dev.remixdb.util.Checksums;
import dev.remixdb.util.Closeables;
import dev.remixdb.util.NativeBuffer;
import dev.remixdb.util.Varints;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;

/**
 * Appends records to a new write-ahead log file. One WAL belongs to one memtable; a record is a
 * group of operations (a write batch, or a single put) that replay applies all or not at all.
 * Appending does not sync: the engine appends the records of several writers and then calls
 * {@link #sync()} once (group commit).
 *
 * <p>File layout, little-endian:
 * <pre>
 * file header (24 bytes)
 *   offset size field
 *   0      6    magic "RMXWAL" (ASCII)
 *   6      2    u16 format version, 1
 *   8      8    u64 file number of this WAL (checked on replay: a WAL renamed or mixed up is refused)
 *   16     4    reserved, 0
 *   20     4    u32 CRC32C of bytes [0, 20)
 * records, back to back until the end of the file
 *   0      4    u32 payload length N, 12 &lt;= N &lt;= 2^30
 *   4      4    u32 CRC32C of the N payload bytes (keys and values included)
 *   8      4    u32 CRC32C of bytes [0, 8) of this header: a damaged length is caught before it is used
 *   12     N    payload
 * payload
 *   0      8    u64 first seq; the ops get first seq, first seq + 1, ... in order
 *   8      4    u32 op count, at least 1
 *   12     ...  ops, back to back:
 *                 u8      type: 1 = put, 2 = delete
 *                 varint  key length (unsigned LEB128, at most 5 bytes)
 *                 varint  value length (0 for a delete)
 *                 bytes   key
 *                 bytes   value
 * </pre>
 * A zero-filled region never passes the header check (the CRC32C of eight zero bytes is not zero),
 * so a preallocated or zero-extended tail is recognized as the end of the log; see
 * {@link WalReader} for the torn-tail rules.
 *
 * <p>Thread-safe: {@link #append} calls are serialized by this object; {@link #sync()} may run
 * while another thread appends (it then makes durable at least what was appended before it
 * started). After an I/O error during an append the file may end in a partial record, so the
 * writer refuses further appends; the engine moves on to a new WAL.
 */
public final class WalWriter implements AutoCloseable {
    /** Records up to this size are encoded in a reused buffer; larger ones in a temporary one. */
    private static final int REUSED_BUFFER_LIMIT = 4 << 20;

    private final Path path;
    private final FileChannel channel;
    /** Shared: appends may come from different threads over time (whoever leads the group commit). */
    private final NativeBuffer buffer = NativeBuffer.shared(64 << 10);
    private volatile long size;
    private boolean failed;
    /** Why the append that left {@link #failed} set failed. */
    private Exception failure;
    private volatile boolean closed;
    /** Set when {@link #close()} did not sync (an append had failed, or the sync failed). */
    private volatile boolean closedUnsynced;

    private WalWriter(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /**
     * Creates the WAL file (it must not exist) and writes its header. The header becomes durable
     * with the first {@link #sync()}; making the new directory entry durable is the caller's job.
     */
    public static WalWriter create(Path path, long fileNumber) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        WalWriter writer = new WalWriter(path, channel);
        try {
            writer.writeFully(ByteBuffer.wrap(WalFormat.fileHeader(fileNumber)), 0);
            writer.size = FILE_HEADER_SIZE;
            return writer;
        } catch (IOException | RuntimeException | Error e) {
            try {
                channel.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Encodes {@code ops} as one record with seqs {@code firstSeq, firstSeq + 1, ...} and appends
     * it; returns the bytes appended. Not synced. Throws {@link IllegalArgumentException} for an
     * empty list, a negative first seq or a record over 1 GiB of payload; nothing is written then.
     */
    public synchronized long append(long firstSeq, List<WalOp> ops) throws IOException {
        checkOpen();
        if (failed) {
            // The first failure is the cause the caller needs (a full disk, an I/O error).
            throw new IOException(path + ": an earlier append failed at offset " + size
                    + "; the WAL takes no more records", failure);
        }
        if (ops.isEmpty()) {
            throw new IllegalArgumentException("a record needs at least one op");
        }
        if (firstSeq < 0 || firstSeq > Long.MAX_VALUE - ops.size()) {
            throw new IllegalArgumentException("first seq out of range: " + firstSeq);
        }
        long payload = PAYLOAD_PREFIX;
        for (WalOp op : ops) {
            Objects.requireNonNull(op, "op");
            payload += 1 + Varints.size(op.key().length) + Varints.size(op.value().length) + op.key().length + op.value().length;
        }
        if (payload > MAX_PAYLOAD) {
            throw new IllegalArgumentException("record payload over " + MAX_PAYLOAD + " bytes: " + payload);
        }
        long total = RECORD_HEADER_SIZE + payload;
        try (Arena temporary = total > REUSED_BUFFER_LIMIT ? Arena.ofConfined() : null) {
            MemorySegment record = temporary != null ? temporary.allocate(total) : buffer.scratch(total);
            encode(record, firstSeq, ops, (int) payload);
            failed = true;  // until the whole record is written
            try {
                writeFully(record.asSlice(0, total).asByteBuffer(), size);
            } catch (IOException | RuntimeException e) {
                failure = e;
                throw e;
            }
            failed = false;
        }
        size += total;
        return total;
    }

    private static void encode(MemorySegment record, long firstSeq, List<WalOp> ops, int payload) {
        long at = RECORD_HEADER_SIZE;
        record.set(LONG, at, firstSeq);
        record.set(INT, at + 8, ops.size());
        at += PAYLOAD_PREFIX;
        for (WalOp op : ops) {
            record.set(ValueLayout.JAVA_BYTE, at++, op.delete() ? DELETE : PUT);
            at = Varints.put(record, at, op.key().length);
            at = Varints.put(record, at, op.value().length);
            MemorySegment.copy(op.key(), 0, record, ValueLayout.JAVA_BYTE, at, op.key().length);
            at += op.key().length;
            MemorySegment.copy(op.value(), 0, record, ValueLayout.JAVA_BYTE, at, op.value().length);
            at += op.value().length;
        }
        record.set(INT, 0, payload);
        record.set(INT, 4, Checksums.crc32c(record, RECORD_HEADER_SIZE, payload));
        record.set(INT, 8, Checksums.crc32c(record, 0, 8));
    }


    private void writeFully(ByteBuffer bytes, long position) throws IOException {
        long at = position;
        while (bytes.hasRemaining()) {
            at += channel.write(bytes, at);
        }
    }

    /**
     * Makes everything appended so far durable (file data and length; {@code force(false)}). After a
     * clean {@link #close()}, which synced, there is nothing left to do.
     *
     * @throws IOException when the sync fails, or the writer was closed after a failed append
     */
    public void sync() throws IOException {
        if (!closed) {
            try {
                channel.force(false);
                return;
            } catch (ClosedChannelException e) {
                if (!closed) {
                    throw e;
                }
                // Closed meanwhile: the close synced, or says why not.
            }
        }
        synchronized (this) {  // waits for a close in progress
            if (closedUnsynced) {
                throw new IOException(path + " was closed without a sync (after a failed append or sync);"
                        + " what it holds is not known to be durable");
            }
        }
    }

    /** The file length: header plus the records appended. */
    public long bytesWritten() {
        return size;
    }

    /** The WAL file. */
    public Path path() {
        return path;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("WAL writer is closed: " + path);
        }
    }

    /** Syncs (unless an append failed) and closes the file. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closedUnsynced = true;
        closed = true;
        Throwable failure = null;
        try {
            if (!failed) {
                channel.force(false);
                closedUnsynced = false;
            }
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
        failure = Closeables.closeAll(List.of(channel, buffer), failure);
        Closeables.rethrow(failure);
    }

    @Override
    public String toString() {
        return "WalWriter[" + path + ", " + size + " bytes" + (closed ? ", closed" : "") + "]";
    }
}
