package dev.remixdb.table;

import dev.remixdb.remix.RunAddress;
import dev.remixdb.util.NativeBuffer;
import dev.remixdb.util.Varints;

import java.lang.foreign.MemorySegment;

/**
 * Collects the entries of one data block and lays the block out (format in {@link Table}). The
 * offset array at the head of a block depends on the entry count, so entries are kept apart until
 * {@link #finish()}. Not thread-safe.
 */
final class BlockBuilder implements AutoCloseable {
    private final int blockBytes;
    private final NativeBuffer entries;
    private final NativeBuffer block;
    private final int[] offsets = new int[RunAddress.MAX_KEYS_PER_BLOCK];
    private int count;

    BlockBuilder(int blockBytes) {
        this.blockBytes = blockBytes;
        // Confined: a block builder belongs to one table writer, and so to one thread.
        this.entries = NativeBuffer.confined(blockBytes);
        this.block = NativeBuffer.confined(blockBytes);
    }

    /** Bytes of one encoded entry. */
    static int entryBytes(int keyLength, int valueLength, boolean tombstone) {
        return Varints.size(keyLength) + Varints.size(valueField(valueLength, tombstone))
                + keyLength + valueLength;
    }

    static int valueField(int valueLength, boolean tombstone) {
        return valueLength << 1 | (tombstone ? 1 : 0);
    }

    /** Whether an entry of {@code entryBytes} fits a normal block on its own; if not it needs a jumbo block. */
    static boolean fitsEmptyBlock(long entryBytes, int blockBytes) {
        return 4 + entryBytes <= blockBytes;
    }

    /** Encodes an entry at {@code at} of {@code dst}; returns the offset after it. */
    static long putEntry(MemorySegment dst, long at, MemorySegment key, long keyOff, int keyLength,
                         MemorySegment value, long valueOff, int valueLength, boolean tombstone) {
        at = Varints.put(dst, at, keyLength);
        at = Varints.put(dst, at, valueField(valueLength, tombstone));
        MemorySegment.copy(key, keyOff, dst, at, keyLength);
        at += keyLength;
        if (valueLength > 0) {
            MemorySegment.copy(value, valueOff, dst, at, valueLength);
        }
        return at + valueLength;
    }

    int count() {
        return count;
    }

    /** Whether one more entry of {@code entryBytes} fits this block. */
    boolean fits(int entryBytes) {
        return count < RunAddress.MAX_KEYS_PER_BLOCK && 2 + 2L * (count + 1) + entries.size() + entryBytes <= blockBytes;
    }

    /** Bytes the block takes now (0 when empty). */
    long rawBytes() {
        return count == 0 ? 0 : 2 + 2L * count + entries.size();
    }

    void add(MemorySegment key, long keyOff, int keyLength, MemorySegment value, long valueOff, int valueLength,
             boolean tombstone) {
        int n = entryBytes(keyLength, valueLength, tombstone);
        offsets[count++] = (int) entries.size();
        long at = entries.reserve(n);
        putEntry(entries.segment(), at, key, keyOff, keyLength, value, valueOff, valueLength, tombstone);
    }

    /** The finished block: key count, offsets, entries. Valid until the next {@link #add} after {@link #reset()}. */
    MemorySegment finish() {
        int header = 2 + 2 * count;
        block.clear();
        long at = block.reserve(rawBytes());
        MemorySegment b = block.segment();
        b.set(TableFormat.U16, at, (short) count);
        for (int i = 0; i < count; i++) {
            b.set(TableFormat.U16, at + 2 + 2L * i, (short) (header + offsets[i]));
        }
        MemorySegment.copy(entries.segment(), 0, b, at + header, entries.size());
        return b.asSlice(0, block.size());
    }

    void reset() {
        count = 0;
        entries.clear();
    }

    @Override
    public void close() {
        entries.close();
        block.close();
    }
}
