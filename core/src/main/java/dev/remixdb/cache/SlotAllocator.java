package dev.remixdb.cache;

import dev.remixdb.io.PageMemory;
import dev.remixdb.io.PreparedMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The slots of a {@link BlockCache}, shared by its shards: carved from chunks of one shared arena,
 * returned to one free list. Shared rather than per shard so that memory taken beyond the budget
 * while a shard's blocks are all pinned is reused by any shard later: new memory is carved only
 * when every carved slot is in use, which bounds the cache at budget + pinned blocks. Thread-safe.
 *
 * <p>While the cache fills, the next chunk within the budget is prepared in the background
 * ({@link PreparedMemory}): otherwise the reader that first writes a block into a fresh chunk waits
 * for the kernel to zero its huge page, milliseconds on a virtual machine, once every 512 misses.
 */
final class SlotAllocator {
    /** Slots per chunk: 2 MiB chunks keep native allocations few, and each is one huge page. */
    private static final int CHUNK_SLOTS = (int) (PageMemory.HUGE_PAGE / BlockCache.SLOT_BYTES);

    private final Arena arena;
    private final long budgetSlots;
    private MemorySegment[] free = new MemorySegment[64];
    private int freeCount;
    private MemorySegment chunk = MemorySegment.NULL;
    private long chunkUsed;
    private long carved;
    /** Written under the lock, read without it: the engine asks for it at every write group (see BlockCache#memoryBytes). */
    private volatile long nativeBytes;
    /** The next chunk within the budget, being prepared; null when none is. */
    private PreparedMemory next;

    /** Whether chunks are prepared in the background: registered with {@link PreparedMemory} until {@link #clear()}. */
    private boolean preparing;

    SlotAllocator(Arena arena, long budgetSlots) {
        this.arena = arena;
        this.budgetSlots = budgetSlots;
        this.preparing = budgetSlots * BlockCache.SLOT_BYTES >= 2 * PageMemory.HUGE_PAGE && PageMemory.mapping();
        if (preparing) {
            PreparedMemory.register();
        }
    }

    synchronized MemorySegment take() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (chunkUsed == chunk.byteSize()) {
            // Within the budget, chunks of up to CHUNK_SLOTS; beyond it (all blocks pinned), one slot at a time.
            long slots = carved < budgetSlots ? Math.min(CHUNK_SLOTS, budgetSlots - carved) : 1;
            // Page-aligned, so slots can later be targets of direct (O_DIRECT) reads; whole chunks are
            // mapped on huge pages (see PageMemory).
            long bytes = slots * BlockCache.SLOT_BYTES;
            // Cleared first: should the take fail (no memory), the next chunk is asked for afresh.
            PreparedMemory prepared = next;
            next = null;
            if (prepared != null && prepared.bytes() == bytes) {
                chunk = prepared.take();  // counted when prepared
            } else {
                chunk = PageMemory.allocate(arena, bytes);
                nativeBytes += bytes;
            }
            chunkUsed = 0;
            prepareNext(carved + slots);
        }
        MemorySegment s = chunk.asSlice(chunkUsed, BlockCache.SLOT_BYTES);
        chunkUsed += BlockCache.SLOT_BYTES;
        carved++;
        return s;
    }

    /** Prepares the chunk that follows one ending at slot {@code end}, when it is a huge page within the budget. */
    private void prepareNext(long end) {
        long slots = Math.min(CHUNK_SLOTS, budgetSlots - end);
        if (preparing && slots * BlockCache.SLOT_BYTES >= PageMemory.HUGE_PAGE) {
            next = PreparedMemory.prepare(arena, slots * BlockCache.SLOT_BYTES);
            nativeBytes += slots * BlockCache.SLOT_BYTES;
        }
    }

    synchronized void give(MemorySegment slot) {
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = slot;
    }

    long nativeBytes() {
        return nativeBytes;
    }

    /** Forgets all slots; the cache frees the memory by closing the arena. */
    synchronized void clear() {
        if (next != null) {
            next.cancel();
            next = null;
        }
        if (preparing) {
            preparing = false;
            PreparedMemory.unregister();
        }
        free = new MemorySegment[0];
        freeCount = 0;
        chunk = MemorySegment.NULL;
        chunkUsed = 0;
        nativeBytes = 0;
    }
}
