package dev.remixdb;

import dev.remixdb.util.Limits;
import dev.remixdb.wal.WalOp;

import java.util.ArrayList;
import java.util.List;

/**
 * Puts and deletes applied together by {@link RemixDB#write(WriteBatch)}: one WAL record, so after
 * a crash either all of them are visible or none; readers never see part of a batch. Later
 * operations on the same key win over earlier ones.
 *
 * <p>Keys and values are copied when added, so the caller may reuse its arrays. Bad input is
 * refused when added (the batch stays as it was). A batch holds at most {@link #MAX_BYTES} of keys,
 * values and per-operation overhead; split larger loads into several batches. A batch can be
 * written more than once and reused after {@link #clear()}. Not thread-safe.
 */
public final class WriteBatch {
    /** Most bytes one batch holds, counting {@link #OP_OVERHEAD} per operation: half the WAL's record limit. */
    public static final long MAX_BYTES = 512L << 20;
    /** Bytes each operation counts beyond its key and value (its share of the WAL record). */
    public static final int OP_OVERHEAD = 16;

    private final List<WalOp> ops = new ArrayList<>();
    private long bytes;

    /** Adds a put of {@code value} under {@code key}. */
    public WriteBatch put(byte[] key, byte[] value) {
        Limits.checkKey(key);
        Limits.checkValue(value);
        reserve(key.length + (long) value.length);
        ops.add(WalOp.put(key.clone(), value.clone()));
        return this;
    }

    /** Adds a delete of {@code key}. */
    public WriteBatch delete(byte[] key) {
        Limits.checkKey(key);
        reserve(key.length);
        ops.add(WalOp.delete(key.clone()));
        return this;
    }

    /**
     * Adds a delete of every key in [{@code from}, {@code to}) (a null bound is open: from the first
     * key, to past the last); one operation however many keys it covers. Writes before it in the
     * batch that it covers are deleted, writes after it are not. An empty range ({@code from} equal
     * to {@code to}) adds nothing, as in RocksDB.
     *
     * @throws IllegalArgumentException when {@code from} is above {@code to}, or a key is over the limit
     */
    public WriteBatch deleteRange(byte[] from, byte[] to) {
        WalOp op = rangeDelete(from, to);
        if (op != null) {
            reserve(op.key().length + (long) op.value().length);
            ops.add(op);
        }
        return this;
    }

    /**
     * The op of a range delete, arguments checked and copied; null for an empty range (bounds
     * equal), which deletes nothing: computed ends may meet, as in {@code subMap(k, k)}.
     */
    static WalOp rangeDelete(byte[] from, byte[] to) {
        byte[] lower = from == null ? new byte[0] : from.clone();
        Limits.checkKey(lower);
        if (to != null) {
            Limits.checkKey(to);
            int c = java.util.Arrays.compareUnsigned(lower, to);
            if (c > 0) {
                throw new IllegalArgumentException("range delete: from is above to");
            }
            if (c == 0) {
                return null;
            }
        }
        return WalOp.rangeDelete(lower, to == null ? null : to.clone());
    }

    private void reserve(long kv) {
        long next = bytes + kv + OP_OVERHEAD;
        if (next > MAX_BYTES) {
            throw new IllegalArgumentException("write batch would hold " + next + " bytes, over the limit of "
                    + MAX_BYTES + "; split it");
        }
        bytes = next;
    }

    /** Operations in the batch. */
    public int size() {
        return ops.size();
    }

    public boolean isEmpty() {
        return ops.isEmpty();
    }

    /** Bytes the batch counts against {@link #MAX_BYTES}. */
    public long byteSize() {
        return bytes;
    }

    /** Empties the batch for reuse. */
    public void clear() {
        ops.clear();
        bytes = 0;
    }

    /** The operations, for the engine (the arrays were copied when added; the list is copied here). */
    List<WalOp> ops() {
        return List.copyOf(ops);
    }

    @Override
    public String toString() {
        return "WriteBatch[" + ops.size() + " ops, " + bytes + " bytes]";
    }
}
