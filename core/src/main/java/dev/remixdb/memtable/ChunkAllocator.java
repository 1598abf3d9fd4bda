package dev.remixdb.memtable;

import dev.remixdb.io.PageMemory;
import dev.remixdb.io.PreparedMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The off-heap memory of one memtable: chunks of one shared arena, handed out bump-pointer style
 * to the single writer and addressed by 64-bit handles {@code chunkIndex << 32 | offsetInChunk}.
 *
 * <p>Handles instead of raw addresses keep every access bounds- and liveness-checked by the FFM
 * API: a reader racing with {@link #close()} gets an {@link IllegalStateException}, not a crash.
 * Handle 0 is never handed out (the first 8 bytes of the first chunk stay unused), which lets 0
 * mean "no entry" or "no node" in the indexes.
 *
 * <p>An allocation larger than a quarter of a chunk gets a chunk of its own, so a 64 MiB value
 * neither needs 64 MiB chunks nor wastes the tail of the current one.
 *
 * <p>Chunks of a huge page or more are prepared one ahead ({@link PreparedMemory}): the next chunk is
 * mapped and faulted in by a background thread while the writer fills the current one, so the writer
 * does not wait for the kernel to zero a huge page every few thousand inserts. The first chunk is
 * prepared when the allocator is made (a memtable made at a switch gets its first writes at once);
 * each later one once the current chunk is half full, so that a memtable that takes few writes (an
 * idle Kafka Streams store, of which a JVM may hold hundreds) holds one chunk, not two.
 */
final class ChunkAllocator implements AutoCloseable {
    static final long NULL = 0;

    private final Arena arena = Arena.ofShared();
    private final int chunkSize;
    /**
     * Readers index this array with the chunk part of a handle they loaded with acquire semantics;
     * the writer stores the chunk into the array (or publishes a grown copy through this volatile
     * field) before it publishes any handle that points into the chunk.
     */
    private volatile MemorySegment[] chunks = new MemorySegment[16];
    /** Read-only views of the chunks, for callers outside the memtable; published like {@link #chunks}. */
    private volatile MemorySegment[] views = new MemorySegment[16];
    private int chunkCount;
    private int currentChunk = -1;
    private long used;
    private volatile long reservedBytes;
    /**
     * The next regular chunk, being prepared; null until the current one is half full, and when
     * chunks are too small to be worth it.
     */
    private PreparedMemory next;
    /** Whether this allocator prepares chunks, registered with {@link PreparedMemory} until closed. */
    private final boolean preparing;
    /** Set when close() unregistered from {@link PreparedMemory} (once). */
    private boolean unregistered;

    ChunkAllocator(int chunkSize) {
        this.chunkSize = chunkSize;
        this.preparing = chunkSize >= PageMemory.HUGE_PAGE && PageMemory.mapping();
        if (preparing) {
            PreparedMemory.register();
        }
        prepareNext();
    }

    private void prepareNext() {
        if (preparing) {
            next = PreparedMemory.prepare(arena, chunkSize);
            reservedBytes += chunkSize;
        }
    }

    /** Reserves {@code size} bytes (a multiple of 8, 8-aligned, zero-filled); writer only. */
    long allocate(long size) {
        if (size > chunkSize / 4) {
            int c = addChunk(size + 8);
            // Offset 8 in a chunk of its own: a handle of chunk 0 at offset 0 would be 0.
            return handle(c, 8);
        }
        if (currentChunk < 0 || used + size > chunkSize) {
            currentChunk = addRegularChunk();
            used = currentChunk == 0 ? 8 : 0;
        }
        long at = used;
        used += size;
        if (next == null && preparing && used > chunkSize / 2) {
            // Half the chunk still to fill: at any load a writer takes longer over it than the
            // background thread takes to fault the next one in.
            prepareNext();
        }
        return handle(currentChunk, at);
    }

    private int addRegularChunk() {
        if (next == null) {
            return addChunk(chunkSize);
        }
        // Cleared first: should the take fail (no memory), the next chunk is asked for afresh.
        PreparedMemory prepared = next;
        next = null;
        MemorySegment chunk = prepared.take();
        return add(chunk, 0);
    }

    private int addChunk(long size) {
        // Huge pages for whole chunks: a search hop is a cache miss, and without them a TLB miss too.
        return add(PageMemory.allocate(arena, size), size);
    }

    /** Publishes {@code chunk}, counting {@code newBytes} more reserved; returns its index. */
    private int add(MemorySegment chunk, long newBytes) {
        MemorySegment[] array = chunks;
        MemorySegment[] viewArray = views;
        if (chunkCount == array.length) {
            array = Arrays.copyOf(array, array.length * 2);
            viewArray = Arrays.copyOf(viewArray, viewArray.length * 2);
        }
        array[chunkCount] = chunk;
        viewArray[chunkCount] = chunk.asReadOnly();
        // Volatile writes, also when the arrays did not grow: they order the slot stores.
        views = viewArray;
        chunks = array;
        reservedBytes += newBytes;
        return chunkCount++;
    }

    private static long handle(int chunk, long offset) {
        return (long) chunk << 32 | offset;
    }

    /** The chunk a handle points into. */
    MemorySegment segment(long handle) {
        return chunks[(int) (handle >>> 32)];
    }

    /** A read-only view of the chunk a handle points into. */
    MemorySegment view(long handle) {
        return views[(int) (handle >>> 32)];
    }

    /** The offset of a handle inside its chunk. */
    static long offset(long handle) {
        return handle & 0xFFFF_FFFFL;
    }

    long reservedBytes() {
        return reservedBytes;
    }

    boolean isOpen() {
        return arena.scope().isAlive();
    }

    /** Frees every chunk; views handed out before become inaccessible. Idempotent. */
    @Override
    public synchronized void close() {
        if (preparing && !unregistered) {
            unregistered = true;
            if (next != null) {
                next.cancel();
            }
            PreparedMemory.unregister();
        }
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
