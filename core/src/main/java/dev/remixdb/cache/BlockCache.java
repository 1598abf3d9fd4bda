package dev.remixdb.cache;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/**
 * The off-heap cache of table blocks shared by all tables of a store, with a byte budget. Safe for
 * concurrent use.
 *
 * <p>Blocks are identified by (file id, block number) and live in {@value #SLOT_BYTES}-byte slots;
 * larger ("jumbo") blocks are not cached: their readers keep them in their own buffers. A block
 * returned by {@link #get} is pinned until {@link BlockPin#release()}: eviction never reuses
 * pinned memory, so a cursor can keep reading its block while other threads fill the cache.
 *
 * <p>Why slots carved from big chunks of one shared arena ({@link SlotAllocator}): a per-block
 * arena would make every eviction close a shared arena, which costs a handshake with all threads.
 * The chunks are freed together by {@link #close()}.
 *
 * <p>The cache is split into {@value #SHARDS} shards by a hash of the block id, each with its own
 * lock, its own CLOCK eviction and an equal part of the budget (see {@link CacheShard}). When every
 * block of a shard is pinned, a miss takes memory beyond the budget instead of waiting; that memory
 * is counted in {@link #memoryBytes()} and is reused by later misses of any shard, so the cache
 * holds at most its capacity plus one slot per block pinned at the busiest moment.
 *
 * <p>Tables read through a {@link CachedFile} ({@link #file}), which remembers where their blocks
 * are and pins a remembered block without the shard's lock.
 */
public final class BlockCache implements AutoCloseable {
    /** Size of a cache slot: the largest block the cache holds. */
    public static final int SLOT_BYTES = 4096;
    /** Bits of the block number in a cache key; {@code RunAddress} allows 2^20 blocks per table. */
    static final int BLOCK_BITS = 20;
    /** Largest file id: the file id and the block number share one 64-bit key. */
    public static final long MAX_FILE_ID = (1L << (63 - BLOCK_BITS)) - 1;

    /**
     * A block read taking at least this long (10 us) counts in {@link #slowLoads()}. A 4 KiB read
     * from the page cache took about 2 us on the benchmark machine; from its disk, 51 us with direct
     * I/O; a fast NVMe drive takes about 10 us.
     */
    public static final long SLOW_LOAD_NANOS = 10_000;
    private static final int SHARDS = 16;
    /** Whether new caches use the checking mode of {@link BlockPin} ({@code -Dremixdb.checkBlockPins=true}). */
    static final boolean CHECK_PINS = Boolean.getBoolean("remixdb.checkBlockPins");

    private final long capacityBytes;
    private final Arena arena = Arena.ofShared();
    private final CacheShard[] shards = new CacheShard[SHARDS];
    private final SlotAllocator slots;
    /** Hits served by {@link CachedFile}s without a shard's lock. */
    private final LongAdder fileHits = new LongAdder();
    /** Checking mode: the pins handed out and not yet released, made unreadable by {@link #close()}. */
    private final Set<CheckedPin> checkedPins;
    private volatile boolean closed;

    /**
     * A cache of at most {@code capacityBytes} (rounded down to whole slots) of unpinned blocks.
     * 0 is allowed: blocks then stay in memory only while pinned.
     */
    public BlockCache(long capacityBytes) {
        this(capacityBytes, CHECK_PINS);
    }

    /** A cache as {@link #BlockCache(long)}, in the checking mode of {@link BlockPin} or not. */
    BlockCache(long capacityBytes, boolean checkPins) {
        this.checkedPins = checkPins ? ConcurrentHashMap.newKeySet() : null;
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("negative cache capacity: " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
        long slots = capacityBytes / SLOT_BYTES;
        this.slots = new SlotAllocator(arena, slots);
        for (int i = 0; i < SHARDS; i++) {
            shards[i] = new CacheShard(this, this.slots, slots / SHARDS + (i < slots % SHARDS ? 1 : 0));
        }
    }

    /**
     * The block {@code block} of file {@code fileId}, pinned: from the cache, or loaded into a free
     * slot by {@code loader} on a miss. The caller must {@link BlockPin#release()} it.
     *
     * @param size the block's size in bytes, 1 to {@value #SLOT_BYTES}
     * @throws IOException           what the loader threw (the block is then not cached)
     * @throws IllegalStateException when the cache is closed
     */
    public BlockPin get(long fileId, int block, int size, BlockLoader loader) throws IOException {
        long key = key(fileId, block, size);
        Objects.requireNonNull(loader, "loader");
        return handle(shard(key).get(key, size, loader));
    }

    /**
     * A door to this cache for file {@code fileId} of {@code blockCount} blocks, whose lookups of
     * blocks found before are cheaper than {@link #get}'s (see {@link CachedFile}). One per open file.
     */
    public CachedFile file(long fileId, int blockCount) {
        key(fileId, 0, 1);
        if (blockCount < 0 || blockCount > 1 << BLOCK_BITS) {
            throw new IllegalArgumentException("block count out of range [0, 2^20]: " + blockCount);
        }
        return new CachedFile(this, fileId, blockCount);
    }

    /**
     * The block, pinned, when the cache holds it (counted as a hit, as {@link #get} counts it); else
     * null, and nothing is loaded, evicted or counted: the caller fetches it and asks again.
     */
    public BlockPin getIfCached(long fileId, int block, int size) {
        long key = key(fileId, block, size);
        CachedBlock b = shard(key).getIfCached(key, size);
        return b == null ? null : handle(b);
    }

    /**
     * The block, pinned, when the cache holds it; else null, and nothing is loaded or evicted. Counts
     * neither a hit nor a miss and leaves the block's standing for eviction as it was: for a one-pass
     * reader (a compaction) that must neither fill the cache nor keep blocks in it.
     */
    public BlockPin peek(long fileId, int block, int size) {
        long key = key(fileId, block, size);
        CachedBlock b = shard(key).peek(key, size);
        return b == null ? null : handle(b);
    }

    /**
     * A free slot for block {@code block} of {@code fileId}, to be filled by the caller (a batch of
     * reads) and then {@linkplain Reservation#commit() committed} to the cache unpinned, or
     * {@linkplain Reservation#abort() aborted}; exactly one of the two. Null when the cache holds the
     * block already. Counts a miss.
     */
    public Reservation reserve(long fileId, int block, int size) {
        long key = key(fileId, block, size);
        CacheShard shard = shard(key);
        MemorySegment slot = shard.reserve(key);
        return slot == null ? null : new Reservation(shard, key, slot, size);
    }

    /** A slot being filled outside the cache; see {@link #reserve}. */
    public static final class Reservation {
        private final CacheShard shard;
        private final long key;
        private final MemorySegment slot;
        private final int size;
        private boolean ended;

        private Reservation(CacheShard shard, long key, MemorySegment slot, int size) {
            this.shard = shard;
            this.key = key;
            this.slot = slot;
            this.size = size;
        }

        /** Where the block goes: exactly its size. */
        public MemorySegment segment() {
            return slot.asSlice(0, size);
        }

        /** Caches the filled block. */
        public void commit() {
            end();
            shard.commit(key, slot, size);
        }

        /** Gives the slot back unfilled. */
        public void abort() {
            end();
            shard.abort(slot);
        }

        private void end() {
            if (ended) {
                throw new IllegalStateException("reservation ended twice");
            }
            ended = true;
        }
    }

    BlockPin handle(CachedBlock b) {
        if (checkedPins == null) {
            return b;
        }
        CheckedPin pin = new CheckedPin(b, checkedPins);
        checkedPins.add(pin);
        if (closed) {
            // Raced close(), which may have missed this pin: make it unreadable too.
            pin.invalidate();
        }
        return pin;
    }

    static long key(long fileId, int block, int size) {
        if (fileId < 0 || fileId > MAX_FILE_ID) {
            throw new IllegalArgumentException("file id out of range [0, " + MAX_FILE_ID + "]: " + fileId);
        }
        if (block < 0 || block >= 1 << BLOCK_BITS) {
            throw new IllegalArgumentException("block number out of range [0, 2^20): " + block);
        }
        if (size < 1 || size > SLOT_BYTES) {
            throw new IllegalArgumentException("block size out of range [1, " + SLOT_BYTES + "]: " + size);
        }
        return (fileId << BLOCK_BITS) | block;
    }

    /**
     * Drops the blocks of {@code fileId} (a deleted or closed table): unpinned ones now, pinned ones
     * when their last pin is released. No-op on a closed cache.
     */
    public void evictFile(long fileId) {
        if (closed) {
            return;
        }
        for (CacheShard s : shards) {
            s.evictFile(fileId);
        }
    }

    /** Native memory held by the cache, in bytes: up to the capacity, more while many blocks are pinned. */
    public long memoryBytes() {
        return slots.nativeBytes();
    }

    /** The budget given to the constructor. */
    public long capacityBytes() {
        return capacityBytes;
    }

    /** Lookups served from the cache. */
    public long hits() {
        return fileHits.sum() + sum(CacheShard::hits);
    }

    /** Lookups that called their loader. */
    public long misses() {
        return sum(CacheShard::misses);
    }

    /**
     * Misses whose lookup read the block itself and waited for it (not counting blocks read ahead
     * through {@link #reserve}).
     */
    public long loads() {
        return sum(CacheShard::loads);
    }

    /**
     * The {@link #loads()} whose loader took at least {@link #SLOW_LOAD_NANOS}: in a cache that
     * misses, whether the misses come from a device (most loads slow) or from the page cache (a few
     * microseconds each, slow only when the thread was descheduled).
     */
    public long slowLoads() {
        return sum(CacheShard::slowLoads);
    }

    /** Blocks in the cache, pinned or not. */
    public long blockCount() {
        return sum(CacheShard::blocks);
    }

    /** A per-shard count summed over the shards. */
    private long sum(ToLongFunction<CacheShard> count) {
        long n = 0;
        for (CacheShard s : shards) {
            n += count.applyAsLong(s);
        }
        return n;
    }

    /**
     * Frees all the cache's memory. Call it when no table reads through the cache any more: blocks
     * still pinned become unreadable (reading them throws {@link IllegalStateException}), and later
     * {@link #get} calls fail. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (checkedPins != null) {
            for (CheckedPin p : checkedPins) {
                p.invalidate();
            }
        }
        for (CacheShard s : shards) {
            s.clear();
        }
        slots.clear();
        arena.close();
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("block cache is closed");
        }
    }

    void countHit() {
        fileHits.increment();
    }

    CacheShard shard(long key) {
        return shards[(int) ((key * 0xC2B2_AE3D_27D4_EB4FL) >>> 60)];
    }

    @Override
    public String toString() {
        return "BlockCache[" + memoryBytes() + "/" + capacityBytes + " bytes, " + hits() + " hits, " + misses() + " misses]";
    }
}
