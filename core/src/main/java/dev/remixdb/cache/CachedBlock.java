package dev.remixdb.cache;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A block in a {@link BlockCache}, with its pin count. Every {@link BlockCache#get} pins once, and
 * each pin must be released exactly once. Outside the checking mode of {@link BlockPin} this object
 * is the handle every pinner gets, so a second release by the same pinner takes away another
 * pinner's pin (caught only when the count would go below zero), and a read after release is not
 * caught at all; the checking mode catches both.
 *
 * <p>Why the pin count is an atomic word and not guarded by the shard's lock: a {@link CachedFile}
 * pins a block it remembers without the lock (a hit then costs one compare-and-set instead of a lock,
 * a hash probe and an unlock). The word is the count of pins, with {@link #GONE} set once the block
 * has left the shard's table. A block is only ever pinned while the bit is clear, and the bit is
 * only set under the shard's lock: by eviction when the count is 0 (the slot is then reused), or by
 * {@link CacheShard#evictFile} whatever the count (the last release then frees the slot). A block
 * object never comes back once gone: a slot refilled gets a new object, so a stale reference can
 * never pin another block's memory.
 */
public final class CachedBlock implements BlockPin {
    /** Set in {@link #state} once the block has left its shard's table. */
    static final int GONE = Integer.MIN_VALUE;
    private static final int PINS = Integer.MAX_VALUE;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(CachedBlock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final CacheShard shard;
    final long key;
    /** The whole slot, returned to the free list when the block leaves the cache. */
    final MemorySegment slot;
    /** The block's size: {@link #segment()}'s, kept here so a lookup need not read the segment object. */
    final int size;
    private final MemorySegment view;
    /** Pins, and {@link #GONE}; see the class comment. Accessed through {@link #STATE} only. */
    @SuppressWarnings("unused")
    private volatile int state;
    /** CLOCK reference bit: set by a hit (racily on the lock-free path: a lost set only ages the block sooner). */
    boolean referenced;
    /** The file's directory that remembers this block, told when the block goes; null if none. */
    CachedFile file;

    CachedBlock(CacheShard shard, long key, MemorySegment slot, MemorySegment view) {
        this.shard = shard;
        this.key = key;
        this.slot = slot;
        this.view = view;
        this.size = (int) view.byteSize();
    }

    @Override
    public MemorySegment segment() {
        return view;
    }

    @Override
    public void release() {
        shard.release(this);
    }

    /** Pins the block unless it has left the cache; lock-free. */
    boolean tryPin() {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            if (s < 0) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s + 1)) {
                return true;
            }
        }
    }

    /** Adds a pin to a block known to be in its shard's table (the caller holds the shard's lock). */
    void pinLocked() {
        STATE.getAndAdd(this, 1);
    }

    /**
     * Takes one pin away; returns the state after it.
     *
     * @throws IllegalStateException when the block has no pin to take
     */
    int unpin() {
        for (;;) {
            int s = (int) STATE.getVolatile(this);
            if ((s & PINS) == 0) {
                throw new IllegalStateException(this + " released more often than it was pinned");
            }
            if (STATE.compareAndSet(this, s, s - 1)) {
                return s - 1;
            }
        }
    }

    /** Pins held now. */
    int pins() {
        return (int) STATE.getVolatile(this) & PINS;
    }

    /** Marks an unpinned block gone, so that no one can pin it again; false if it is pinned. */
    boolean retireIfUnpinned() {
        return STATE.compareAndSet(this, 0, GONE);
    }

    /** Marks the block gone whatever its pins; returns the pins it had (its last release frees the slot). */
    int retire() {
        return (int) STATE.getAndBitwiseOr(this, GONE) & PINS;
    }

    /** The id of the file this block belongs to. */
    long fileId() {
        return key >>> BlockCache.BLOCK_BITS;
    }

    /** The block's number in its file. */
    int blockNumber() {
        return (int) (key & ((1L << BlockCache.BLOCK_BITS) - 1));
    }

    @Override
    public String toString() {
        return "CachedBlock[file " + fileId() + ", block " + blockNumber() + ", " + size + " bytes]";
    }
}
