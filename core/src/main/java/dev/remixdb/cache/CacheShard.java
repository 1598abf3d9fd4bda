package dev.remixdb.cache;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * One shard of a {@link BlockCache}: an open-addressing hash table of blocks (linear probing,
 * backward-shift deletion), which is also the CLOCK ring that the eviction hand sweeps.
 *
 * <p>Budget: the shard takes slots from the shared {@link SlotAllocator} while it holds fewer than
 * its part of the budget; at the budget it evicts an unpinned block and reuses its slot; when every
 * block is pinned it takes a slot beyond the budget rather than wait or fail, and while over budget
 * it gives a block's slot back as soon as the block's last pin goes, so the excess lasts only while
 * the pins do.
 *
 * <p>All state is guarded by the shard's monitor except the blocks' pin counts, which a
 * {@link CachedFile} raises without it (see {@link CachedBlock}); a miss loads outside the monitor,
 * so a slow read blocks no other block of the shard. Two threads missing the same block both read
 * it; the second one returns its slot and takes the first one's block.
 */
final class CacheShard {
    private final BlockCache cache;
    private final SlotAllocator slots;
    private final long budgetSlots;

    private CachedBlock[] table = new CachedBlock[16];
    /**
     * The key of each index's block, {@link #EMPTY} where there is none: probes and file evictions
     * scan this array instead of dereferencing a block object (a cache miss) per index they pass.
     */
    private long[] keys = emptyKeys(16);
    private int entries;
    private int hand;

    /** Slots this shard holds: its blocks' and those being loaded. */
    private long inUse;
    /** {@code inUse > budgetSlots}, readable without the lock by a release. */
    private volatile boolean overBudget;

    private long hits;
    private long misses;
    /** Lookups that loaded their block themselves, and those of them that waited long for it. */
    private long loads;
    private long slowLoads;

    /** No block: keys are never negative ({@link BlockCache#MAX_FILE_ID}). */
    private static final long EMPTY = -1;

    CacheShard(BlockCache cache, SlotAllocator slots, long budgetSlots) {
        this.cache = cache;
        this.slots = slots;
        this.budgetSlots = budgetSlots;
    }

    CachedBlock get(long key, int size, BlockLoader loader) throws IOException {
        MemorySegment slot;
        synchronized (this) {
            cache.checkOpen();
            CachedBlock hit = find(key);
            if (hit != null) {
                hits++;
                hit.referenced = true;
                return pin(hit, size);
            }
            misses++;
            slot = takeSlot();
        }
        MemorySegment view = slot.asSlice(0, size);
        long start = System.nanoTime();
        try {
            loader.load(view);
        } catch (IOException | RuntimeException | Error e) {
            synchronized (this) {
                freeSlot(slot);
            }
            throw e;
        }
        long took = System.nanoTime() - start;
        synchronized (this) {
            loads++;
            if (took >= BlockCache.SLOW_LOAD_NANOS) {
                slowLoads++;
            }
            cache.checkOpen();
            CachedBlock raced = find(key);
            if (raced != null) {
                freeSlot(slot);
                return pin(raced, size);
            }
            CachedBlock b = new CachedBlock(this, key, slot, view);
            b.pinLocked();
            insert(b);
            return b;
        }
    }

    synchronized CachedBlock getIfCached(long key, int size) {
        cache.checkOpen();
        CachedBlock hit = find(key);
        if (hit == null) {
            return null;
        }
        hits++;
        hit.referenced = true;
        return pin(hit, size);
    }

    /** A free slot for {@code key}, counted as a miss; null when the block is cached already. */
    synchronized MemorySegment reserve(long key) {
        cache.checkOpen();
        if (find(key) != null) {
            return null;
        }
        misses++;
        return takeSlot();
    }

    /**
     * Caches a reserved slot's block, unpinned and marked referenced (it was read for a reader that
     * is about to use it, so the CLOCK hand should pass it once). A block cached meanwhile wins.
     */
    synchronized void commit(long key, MemorySegment slot, int size) {
        if (cache.isClosed()) {
            return;
        }
        if (find(key) != null) {
            freeSlot(slot);
            return;
        }
        CachedBlock b = new CachedBlock(this, key, slot, slot.asSlice(0, size));
        b.referenced = true;
        insert(b);
    }

    /** Returns a reserved slot unused. */
    synchronized void abort(MemorySegment slot) {
        if (!cache.isClosed()) {
            freeSlot(slot);
        }
    }

    synchronized CachedBlock peek(long key, int size) {
        cache.checkOpen();
        CachedBlock hit = find(key);
        return hit == null ? null : pin(hit, size);
    }

    static CachedBlock pin(CachedBlock b, int size) {
        checkSize(b, size);
        b.pinLocked();
        return b;
    }

    static void checkSize(CachedBlock b, int size) {
        if (b.size != size) {
            // Only a file id reused for another file could do this; serving the block would be wrong data.
            throw new IllegalStateException(b + " is cached with another size than the " + size + " bytes asked for");
        }
    }

    /**
     * Takes a pin away without the lock, unless the block must leave now: a block gone from the
     * table ({@link #evictFile}) whose last pin this was, or any block unpinned while over budget.
     */
    void release(CachedBlock b) {
        if (cache.isClosed()) {
            return;  // the memory is gone with the arena; nothing to account for
        }
        int after = b.unpin();
        if (after == CachedBlock.GONE) {
            synchronized (this) {
                if (!cache.isClosed()) {
                    freeSlot(b.slot);
                }
            }
        } else if (after == 0 && overBudget) {
            synchronized (this) {
                // Re-checked under the lock: another miss may have freed a slot, or a lock-free hit pinned b again.
                if (!cache.isClosed() && inUse > budgetSlots && b.retireIfUnpinned()) {
                    remove(b.key);
                    forget(b);
                    freeSlot(b.slot);
                }
            }
        }
    }

    synchronized void evictFile(long fileId) {
        List<CachedBlock> victims = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] >>> BlockCache.BLOCK_BITS == fileId && keys[i] != EMPTY) {
                victims.add(table[i]);
            }
        }
        for (CachedBlock b : victims) {
            remove(b.key);
            forget(b);
            if (b.retire() == 0) {
                freeSlot(b.slot);
            }  // else its last release frees the slot
        }
    }

    /** Tells the file's directory, if any, that {@code b} is gone, so that it does not keep the object alive. */
    private static void forget(CachedBlock b) {
        CachedFile f = b.file;
        if (f != null) {
            f.forget(b);
        }
    }

    synchronized long hits() {
        return hits;
    }

    synchronized long misses() {
        return misses;
    }

    synchronized long loads() {
        return loads;
    }

    synchronized long slowLoads() {
        return slowLoads;
    }

    synchronized long blocks() {
        return entries;
    }

    /** Forgets everything; the cache frees the memory by closing its arena. */
    synchronized void clear() {
        table = new CachedBlock[16];
        keys = emptyKeys(16);
        entries = 0;
        inUse = 0;
        overBudget = false;
    }

    // ------------------------------------------------------------------ slots

    private MemorySegment takeSlot() {
        MemorySegment s = null;
        if (inUse >= budgetSlots) {
            // Raised before the scan reads any pin count: a lock-free release that unpins a block the
            // scan passed over as pinned then sees the flag and retires the block itself (release's
            // pin change and this write are both volatile, so at least one side sees the other).
            overBudget = true;
            s = evictOne();
        }
        if (s == null) {  // under budget, or every block is pinned: go over budget rather than block or fail
            s = slots.take();
        }
        inUse++;
        overBudget = inUse > budgetSlots;
        return s;
    }

    private void freeSlot(MemorySegment s) {
        slots.give(s);
        inUse--;
        overBudget = inUse > budgetSlots;
    }

    /** CLOCK: the first unpinned block whose reference bit is clear; the hand clears bits as it passes. */
    private MemorySegment evictOne() {
        if (entries == 0) {
            return null;
        }
        int mask = table.length - 1;
        for (int step = 0; step < 2 * table.length; step++) {
            hand = (hand + 1) & mask;
            CachedBlock b = table[hand];
            if (b == null || b.pins() > 0) {
                continue;
            }
            if (b.referenced) {
                b.referenced = false;
                continue;
            }
            if (!b.retireIfUnpinned()) {
                continue;  // pinned meanwhile by a lock-free hit
            }
            forget(b);
            removeAt(hand);
            hand = (hand - 1) & mask;  // the backward shift may have moved a block into this index
            inUse--;
            overBudget = inUse > budgetSlots;
            return b.slot;
        }
        return null;
    }

    // ------------------------------------------------------------------ hash table

    private static int home(long key, int mask) {
        return (int) ((key * 0x9E37_79B9_7F4A_7C15L) >>> 32) & mask;
    }

    private static long[] emptyKeys(int length) {
        long[] k = new long[length];
        java.util.Arrays.fill(k, EMPTY);
        return k;
    }

    private CachedBlock find(long key) {
        int mask = keys.length - 1;
        for (int i = home(key, mask); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                return table[i];
            }
            if (k == EMPTY) {
                return null;
            }
        }
    }

    private void insert(CachedBlock b) {
        if (2 * (entries + 1) > table.length) {
            resize(table.length * 2);
        }
        int mask = table.length - 1;
        int i = home(b.key, mask);
        while (keys[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        table[i] = b;
        keys[i] = b.key;
        entries++;
    }

    private void resize(int length) {
        CachedBlock[] old = table;
        table = new CachedBlock[length];
        keys = emptyKeys(length);
        entries = 0;
        hand = 0;
        for (CachedBlock b : old) {
            if (b != null) {
                insert(b);
            }
        }
    }

    private void remove(long key) {
        int mask = table.length - 1;
        for (int i = home(key, mask); keys[i] != EMPTY; i = (i + 1) & mask) {
            if (keys[i] == key) {
                removeAt(i);
                return;
            }
        }
    }

    /** Deletes index {@code i} and shifts later blocks of the probe run back so lookups still find them. */
    private void removeAt(int i) {
        int mask = table.length - 1;
        table[i] = null;
        keys[i] = EMPTY;
        entries--;
        for (int j = (i + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
            int h = home(keys[j], mask);
            // Move j into the hole at i unless its home lies cyclically in (i, j].
            boolean stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (!stays) {
                table[i] = table[j];
                keys[i] = keys[j];
                table[j] = null;
                keys[j] = EMPTY;
                i = j;
            }
        }
    }
}
