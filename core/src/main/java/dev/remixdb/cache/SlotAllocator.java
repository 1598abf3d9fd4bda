package dev.remixdb.cache;

import dev.remixdb.io.PageMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The slots of a {@link BlockCache}, shared by its shards: carved from chunks of one shared arena,
 * returned to one free list. Shared rather than per shard so that memory taken beyond the budget
 * while a shard's blocks are all pinned is reused by any shard later: new memory is carved only
 * when every carved slot is in use, which bounds the cache at budget + pinned blocks. Thread-safe.
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
    private long nativeBytes;

    SlotAllocator(Arena arena, long budgetSlots) {
        this.arena = arena;
        this.budgetSlots = budgetSlots;
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
            chunk = PageMemory.allocate(arena, slots * BlockCache.SLOT_BYTES);
            chunkUsed = 0;
            nativeBytes += chunk.byteSize();
        }
        MemorySegment s = chunk.asSlice(chunkUsed, BlockCache.SLOT_BYTES);
        chunkUsed += BlockCache.SLOT_BYTES;
        carved++;
        return s;
    }

    synchronized void give(MemorySegment slot) {
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = slot;
    }

    synchronized long nativeBytes() {
        return nativeBytes;
    }

    /** Forgets all slots; the cache frees the memory by closing the arena. */
    synchronized void clear() {
        free = new MemorySegment[0];
        freeCount = 0;
        chunk = MemorySegment.NULL;
        chunkUsed = 0;
        nativeBytes = 0;
    }
}
