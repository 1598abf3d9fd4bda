package dev.remixdb.memtable;

import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The entries of a {@link Memtable}: each version of a key, written once by the writer into the
 * memtable's chunks and never changed or moved, addressed by a handle. Layout at the handle, native
 * byte order:
 * <pre>
 * offset     size      field
 * 0          8         seq
 * 8          4         key length
 * 12         4         value length, bit 31 set for a tombstone
 * 16         keyLen    key bytes
 * 16+keyLen  valueLen  value bytes (then padding to 8)
 * </pre>
 * The index in front of them (tree or skip list) only orders handles: an entry's bytes are read
 * where they were written, by readers and the writer alike.
 */
final class Entries {
    static final int HEADER = 16;
    static final int TOMBSTONE = 0x8000_0000;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;

    private final ChunkAllocator memory;

    Entries(ChunkAllocator memory) {
        this.memory = memory;
    }

    /** Bytes an entry with these lengths takes, padded to 8. */
    static long bytes(int keyLen, int valueLen) {
        return (HEADER + keyLen + (long) valueLen + 7) & ~7L;
    }

    /** Writes an entry at {@code e} (memory from {@link ChunkAllocator#allocate}). */
    void write(long e, long seq, MemorySegment key, long keyOff, int keyLen, MemorySegment value, long valueOff,
               int valueLen, boolean tombstone) {
        MemorySegment seg = memory.segment(e);
        long at = ChunkAllocator.offset(e);
        seg.set(LONG, at, seq);
        seg.set(INT, at + 8, keyLen);
        seg.set(INT, at + 12, tombstone ? valueLen | TOMBSTONE : valueLen);
        MemorySegment.copy(key, keyOff, seg, at + HEADER, keyLen);
        if (valueLen > 0) {
            MemorySegment.copy(value, valueOff, seg, at + HEADER + keyLen, valueLen);
        }
    }

    /** {@link #write(long, long, MemorySegment, long, int, MemorySegment, long, int, boolean)} from arrays. */
    void write(long e, long seq, byte[] key, byte[] value, int valueLen, boolean tombstone) {
        MemorySegment seg = memory.segment(e);
        long at = ChunkAllocator.offset(e);
        seg.set(LONG, at, seq);
        seg.set(INT, at + 8, key.length);
        seg.set(INT, at + 12, tombstone ? valueLen | TOMBSTONE : valueLen);
        MemorySegment.copy(key, 0, seg, ValueLayout.JAVA_BYTE, at + HEADER, key.length);
        if (valueLen > 0) {
            MemorySegment.copy(value, 0, seg, ValueLayout.JAVA_BYTE, at + HEADER + key.length, valueLen);
        }
    }

    MemorySegment segment(long e) {
        return memory.segment(e);
    }

    long seq(long e) {
        return memory.segment(e).get(LONG, ChunkAllocator.offset(e));
    }

    /** Sets the seq of an entry no index holds yet (see {@link DeferredEntries}). */
    void setSeq(long e, long seq) {
        memory.segment(e).set(LONG, ChunkAllocator.offset(e), seq);
    }

    long keyOffset(long e) {
        return ChunkAllocator.offset(e) + HEADER;
    }

    int keyLength(long e) {
        return memory.segment(e).get(INT, ChunkAllocator.offset(e) + 8);
    }

    int rawValueLength(long e) {
        return memory.segment(e).get(INT, ChunkAllocator.offset(e) + 12);
    }

    /** Order of entry {@code e} against (key, seq): key ascending, then seq descending. */
    int compare(long e, MemorySegment key, long keyOff, int keyLen, long seq) {
        MemorySegment seg = memory.segment(e);
        long at = ChunkAllocator.offset(e);
        int c = Keys.compare(seg, at + HEADER, seg.get(INT, at + 8), key, keyOff, keyLen);
        return c != 0 ? c : Long.compare(seq, seg.get(LONG, at));
    }

    boolean keyEquals(long e, MemorySegment key, long keyOff, int keyLen) {
        MemorySegment seg = memory.segment(e);
        long at = ChunkAllocator.offset(e);
        return seg.get(INT, at + 8) == keyLen && Keys.equal(seg, at + HEADER, key, keyOff, keyLen);
    }

    boolean sameKey(long a, long b) {
        return keyEquals(a, memory.segment(b), keyOffset(b), keyLength(b));
    }
}
