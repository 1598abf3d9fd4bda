package dev.remixdb.io;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Aligned native buffers that reads land in when they cannot land in their destination: a heap
 * destination (the kernel writes native memory), or a direct read, whose file offset, length and
 * memory must all be multiples of {@value #ALIGN}. Buffers of {@value #POOLED} bytes are pooled
 * (up to {@value #MAX_POOLED}, allocated from the pool's arena once); larger ones come from an
 * automatic arena and are left to the garbage collector. Thread-safe.
 */
final class BouncePool implements AutoCloseable {
    /** Alignment of direct I/O: a page, which covers every logical block size in use. */
    static final int ALIGN = 4096;
    /** A pooled buffer holds a 4 KiB block at any offset: two pages, plus one for a longer block. */
    static final int POOLED = 3 * ALIGN;
    private static final int MAX_POOLED = 1024;

    private final Arena arena = Arena.ofShared();
    private final ConcurrentLinkedQueue<MemorySegment> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger made = new AtomicInteger();
    private volatile boolean closed;

    /** A buffer of at least {@code bytes}, aligned to {@link #ALIGN}. */
    MemorySegment take(long bytes) {
        if (bytes <= POOLED && !closed) {
            MemorySegment s = free.poll();
            if (s != null) {
                return s;
            }
            if (made.incrementAndGet() <= MAX_POOLED) {
                synchronized (this) {
                    if (!closed) {
                        return arena.allocate(POOLED, ALIGN);
                    }
                }
            } else {
                made.decrementAndGet();
            }
        }
        return Arena.ofAuto().allocate(Math.max(bytes, 1), ALIGN);
    }

    /** Returns a buffer from {@link #take}. */
    void give(MemorySegment s) {
        if (s.byteSize() == POOLED && !closed) {
            free.add(s);
        }
    }

    /** Frees the pooled buffers; call only when no read uses one. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            free.clear();
            arena.close();
        }
    }

    static long alignDown(long x) {
        return x & -ALIGN;
    }

    static long alignUp(long x) {
        return (x + ALIGN - 1) & -ALIGN;
    }
}
