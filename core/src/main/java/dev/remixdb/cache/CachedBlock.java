package dev.remixdb.cache;

import java.lang.foreign.MemorySegment;

/**
 * A block pinned in a {@link BlockCache}: its memory stays valid and unchanged until
 * {@link #release()}. Every {@link BlockCache#get} pins once, and each pin must be released exactly
 * once; the object is shared by all pinners of the block, so a second release by the same pinner
 * takes away another pinner's pin (it is caught only when the count would go below zero).
 */
public final class CachedBlock {
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

    /** The block's bytes (exactly the size it was loaded with). Valid until {@link #release()}. */
    public MemorySegment segment() {
        return view;
    }

    /** Unpins the block. */
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
