package dev.remixdb.util;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A growable byte buffer in native memory, the one such buffer of the store: table and REMIX
 * writers append to it ({@link #reserve} and the {@code put} methods, little-endian), and readers
 * use it as a scratch area that only has to be large enough ({@link #scratch}).
 *
 * <p>It owns its arena until {@link #close()}. Growing doubles the capacity into a new arena and
 * closes the old one, so every segment obtained before a growth is invalid after it (reading it
 * throws {@link IllegalStateException}, never returns other data). A confined buffer is for one
 * thread (closing it is cheap); a shared one may be handed between threads (a writer whose calls
 * come from whichever thread leads a group, a cursor used by several threads in turn). Not
 * thread-safe either way.
 */
public final class NativeBuffer implements AutoCloseable {
    public static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final boolean shared;
    private final long minCapacity;
    private final long alignment;
    private Arena arena;
    private MemorySegment segment = MemorySegment.NULL;
    private long size;
    private boolean closed;

    private NativeBuffer(boolean shared, long minCapacity, long alignment) {
        if (minCapacity < 1 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("capacity " + minCapacity + ", alignment " + alignment);
        }
        this.shared = shared;
        this.minCapacity = minCapacity;
        this.alignment = alignment;
        grow(minCapacity, false);
    }

    /** A buffer for one thread, 8-byte aligned, of {@code initialCapacity} bytes to start with. */
    public static NativeBuffer confined(long initialCapacity) {
        return new NativeBuffer(false, initialCapacity, 8);
    }

    /** A buffer that may move between threads, 8-byte aligned; see {@link #confined}. */
    public static NativeBuffer shared(long initialCapacity) {
        return new NativeBuffer(true, initialCapacity, 8);
    }

    /** A buffer that may move between threads, of at least {@code minCapacity} bytes aligned to {@code alignment}. */
    public static NativeBuffer shared(long minCapacity, long alignment) {
        return new NativeBuffer(true, minCapacity, alignment);
    }

    /** Bytes appended so far. */
    public long size() {
        return size;
    }

    /** The memory; its first {@link #size()} bytes are the appended ones. Replaced when the buffer grows. */
    public MemorySegment segment() {
        return segment;
    }

    /** Grows to hold {@code n} more bytes (keeping the appended ones) and returns the offset where they go. */
    public long reserve(long n) {
        long need = size + n;
        if (need > segment.byteSize()) {
            grow(need, true);
        }
        long at = size;
        size = need;
        return at;
    }

    /**
     * The first {@code n} bytes of the buffer, growing it without keeping its contents: a scratch area.
     * Valid until the next call that grows the buffer. The appended size is reset to 0.
     */
    public MemorySegment scratch(long n) {
        size = 0;
        if (n > segment.byteSize()) {
            grow(n, false);
        }
        return segment.asSlice(0, n);
    }

    private void grow(long need, boolean keep) {
        checkOpen();
        long capacity = Math.max(Math.max(need, minCapacity), 2 * segment.byteSize());
        Arena next = shared ? Arena.ofShared() : Arena.ofConfined();
        MemorySegment grown;
        try {
            grown = next.allocate(capacity, alignment);
        } catch (RuntimeException | Error e) {
            next.close();
            throw e;
        }
        if (keep && size > 0) {
            MemorySegment.copy(segment, 0, grown, 0, size);
        }
        if (arena != null) {
            arena.close();
        }
        arena = next;
        segment = grown;
    }

    public void putByte(int v) {
        long at = reserve(1);  // reserve first: it may replace the segment
        segment.set(ValueLayout.JAVA_BYTE, at, (byte) v);
    }

    public void putShort(int v) {
        long at = reserve(2);
        segment.set(SHORT, at, (short) v);
    }

    public void putInt(int v) {
        long at = reserve(4);
        segment.set(INT, at, v);
    }

    public void putLong(long v) {
        long at = reserve(8);
        segment.set(LONG, at, v);
    }

    public void putVarint(int v) {
        long at = reserve(Varints.size(v));
        Varints.put(segment, at, v);
    }

    public void put(MemorySegment src, long offset, long length) {
        long at = reserve(length);
        MemorySegment.copy(src, offset, segment, at, length);
    }

    /** Appends {@code n} copies of byte {@code b}. */
    public void fill(int b, long n) {
        long at = reserve(n);
        segment.asSlice(at, n).fill((byte) b);
    }

    /** Overwrites the int at {@code at}, which must be below {@link #size()}. */
    public void setInt(long at, int v) {
        segment.set(INT, at, v);
    }

    /** Forgets the bytes past {@code newSize}. */
    public void truncate(long newSize) {
        if (newSize < 0 || newSize > size) {
            throw new IllegalArgumentException("truncate to " + newSize + " of " + size + " bytes");
        }
        size = newSize;
    }

    /** Forgets every appended byte; the memory stays for reuse. */
    public void clear() {
        size = 0;
    }

    /** The appended bytes, copied into a new segment of {@code target}. */
    public MemorySegment copyTo(Arena target) {
        MemorySegment out = target.allocate(Math.max(1, size), 8).asSlice(0, size);
        MemorySegment.copy(segment, 0, out, 0, size);
        return out;
    }

    /** Native bytes held. */
    public long capacity() {
        return segment.byteSize();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("native buffer is closed");
        }
    }

    /** Frees the memory. Idempotent. */
    @Override
    public void close() {
        closed = true;
        if (arena != null) {
            arena.close();
            arena = null;
        }
        segment = MemorySegment.NULL;
        size = 0;
    }
}
