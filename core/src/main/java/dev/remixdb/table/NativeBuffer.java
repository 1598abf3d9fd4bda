package dev.remixdb.table;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A growable byte buffer in native memory for the writer's metadata and blocks. It owns its arena
 * until {@link #close()}; growing replaces the arena (by doubling, so a buffer that reaches n bytes
 * has been replaced about log2(n) times). Shared arenas, because a writer may be handed from one
 * thread to another. Not thread-safe.
 */
final class NativeBuffer implements AutoCloseable {
    private Arena arena;
    private MemorySegment segment;
    private long size;

    NativeBuffer(long initialCapacity) {
        arena = Arena.ofShared();
        segment = arena.allocate(Math.max(64, initialCapacity), 8);
    }

    long size() {
        return size;
    }

    /** The memory; its first {@link #size()} bytes are the written ones. Replaced when the buffer grows. */
    MemorySegment segment() {
        return segment;
    }

    /** Grows to hold {@code n} more bytes and returns the offset where they go. */
    long reserve(long n) {
        long need = size + n;
        if (need > segment.byteSize()) {
            long capacity = Math.max(need, 2 * segment.byteSize());
            Arena next = Arena.ofShared();
            MemorySegment grown = next.allocate(capacity, 8);
            MemorySegment.copy(segment, 0, grown, 0, size);
            arena.close();
            arena = next;
            segment = grown;
        }
        long at = size;
        size = need;
        return at;
    }

    void putU16(int v) {
        long at = reserve(2);
        segment.set(TableFormat.U16, at, (short) v);
    }

    void putU32(int v) {
        long at = reserve(4);
        segment.set(TableFormat.U32, at, v);
    }

    void putU64(long v) {
        long at = reserve(8);
        segment.set(TableFormat.U64, at, v);
    }

    void putVarint(int v) {
        long at = reserve(TableFormat.varintSize(v));
        TableFormat.putVarint(segment, at, v);
    }

    void put(MemorySegment src, long offset, long length) {
        long at = reserve(length);
        MemorySegment.copy(src, offset, segment, at, length);
    }

    void clear() {
        size = 0;
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
            arena = null;
            segment = null;
        }
    }
}
