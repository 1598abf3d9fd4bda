package dev.remixdb.remix;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A growable little-endian byte buffer in native memory, for building runs and REMIXes without
 * per-key heap objects. Single-threaded; owns its memory until {@link #close()}.
 * {@link #copyTo(Arena)} moves the written bytes into an exactly sized segment of a longer-lived
 * arena.
 */
final class OffHeapBuffer implements AutoCloseable {
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Arena arena;
    private MemorySegment segment;
    private long size;

    OffHeapBuffer(long initialCapacity) {
        arena = Arena.ofConfined();
        segment = arena.allocate(Math.max(16, initialCapacity), 8);
    }

    long size() {
        return size;
    }

    MemorySegment segment() {
        return segment;
    }

    /** Makes room for {@code n} more bytes and returns the offset where they go. */
    long reserve(long n) {
        long need = size + n;
        if (need > segment.byteSize()) {
            long cap = segment.byteSize();
            while (cap < need) {
                cap = cap + (cap >> 1) + 16;
            }
            Arena next = Arena.ofConfined();
            MemorySegment grown = next.allocate(cap, 8);
            MemorySegment.copy(segment, 0, grown, 0, size);
            arena.close();
            arena = next;
            segment = grown;
        }
        long at = size;
        size = need;
        return at;
    }

    void putByte(int b) {
        long at = reserve(1);  // reserve first: it may replace the segment
        segment.set(ValueLayout.JAVA_BYTE, at, (byte) b);
    }

    void putInt(int v) {
        long at = reserve(4);
        segment.set(INT, at, v);
    }

    void putLong(long v) {
        long at = reserve(8);
        segment.set(LONG, at, v);
    }

    void put(MemorySegment src, long off, long len) {
        long at = reserve(len);
        MemorySegment.copy(src, off, segment, at, len);
    }

    void fill(int b, long n) {
        long at = reserve(n);
        segment.asSlice(at, n).fill((byte) b);
    }

    void setInt(long at, int v) {
        segment.set(INT, at, v);
    }

    void truncate(long newSize) {
        size = newSize;
    }

    /** The written bytes, copied into a new segment of {@code target}. */
    MemorySegment copyTo(Arena target) {
        MemorySegment out = target.allocate(Math.max(1, size), 8).asSlice(0, size);
        MemorySegment.copy(segment, 0, out, 0, size);
        return out;
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
