package dev.remixdb.cache;

import java.lang.foreign.MemorySegment;

/**
 * A block in a {@link BlockCache}, with its pin count. Every {@link BlockCache#get} pins once, and
 * each pin must be released exactly once. Outside the checking mode of {@link BlockPin} this object
 * is the handle every pinner gets, so a second release by the same pinner takes away another
 * pinner's pin (caught only when the count would go below zero), and a read after release is not
 * caught at all; the checking mode catches both.
 */
public final class CachedBlock implements BlockPin {
    final CacheShard shard;
    final long key;
    /** The whole slot, returned to the free list when the block leaves the cache. */
    final MemorySegment slot;
    private final MemorySegment view;
    /** Pins; guarded by the shard's lock. */
    int pins;
    /** CLOCK reference bit: set by a hit, cleared when the hand passes. Guarded by the shard's lock. */
    boolean referenced;
    /** Removed from the cache while pinned: its slot is freed by the last release. Guarded by the shard's lock. */
    boolean evicted;

    CachedBlock(CacheShard shard, long key, MemorySegment slot, MemorySegment view) {
        this.shard = shard;
        this.key = key;
        this.slot = slot;
        this.view = view;
    }

    @Override
    public MemorySegment segment() {
        return view;
    }

    @Override
    public void release() {
        shard.release(this);
    }

    /** The id of the file this block belongs to. */
    long fileId() {
        return key >>> BlockCache.BLOCK_BITS;
    }

    @Override
    public String toString() {
        return "CachedBlock[file " + fileId() + ", block " + (key & ((1L << BlockCache.BLOCK_BITS) - 1))
                + ", " + view.byteSize() + " bytes]";
    }
}
