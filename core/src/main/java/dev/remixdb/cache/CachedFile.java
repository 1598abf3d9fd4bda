package dev.remixdb.cache;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * One file's door to a {@link BlockCache}: the same lookups as the cache's, by block number, with
 * a memory of where each of the file's blocks was last found. A block it remembers and that is
 * still cached is pinned with one compare-and-set on the block, without the shard's lock and hash
 * probe; anything else (a block not remembered, or gone since) takes the cache's own path and is
 * remembered for next time. Safe for concurrent use.
 *
 * <p>Why: a scan pins a block in every run it touches, and the shard path costs a lock, an unlock
 * and three dependent cache misses (the probe's key array, the table's entry, the block object) per
 * pin. In a profile of {@code seeknext50} over cached data that was a third of the time.
 *
 * <p>Memory: one reference per block of the file, on the heap (64 KiB for a 64 MiB table of 4 KiB
 * blocks), until {@link #close()}. The cache clears a reference when its block
 * leaves, so a directory holds no block object beyond the ones cached (a reference can survive a
 * race with the eviction; it is then only an object that no lookup can pin, replaced by the next
 * lookup of that block).
 */
public final class CachedFile {
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(CachedBlock[].class);

    private final BlockCache cache;
    private final long fileId;
    /**
     * By block number: the block last found there, or null. Read with acquire and written with
     * release, so that a reader finding a block sees it as its finder published it; a stale entry
     * (a block gone since) only fails to pin.
     */
    private final CachedBlock[] blocks;
    /** Set by {@link #close()}: no block is remembered any more. */
    private volatile boolean closed;

    CachedFile(BlockCache cache, long fileId, int blockCount) {
        this.cache = cache;
        this.fileId = fileId;
        this.blocks = new CachedBlock[blockCount];
    }

    /** The file's id in the cache. */
    public long fileId() {
        return fileId;
    }

    /** As {@link BlockCache#get}, for block {@code block} of this file. */
    public BlockPin get(int block, int size, BlockLoader loader) throws IOException {
        CachedBlock b = pinRemembered(block, size);
        if (b != null) {
            return hit(b);
        }
        Objects.requireNonNull(loader, "loader");
        long key = BlockCache.key(fileId, block, size);
        return cache.handle(remember(block, cache.shard(key).get(key, size, loader)));
    }

    /** As {@link BlockCache#getIfCached}, for block {@code block} of this file. */
    public BlockPin getIfCached(int block, int size) {
        CachedBlock b = pinRemembered(block, size);
        if (b != null) {
            return hit(b);
        }
        long key = BlockCache.key(fileId, block, size);
        b = cache.shard(key).getIfCached(key, size);
        return b == null ? null : cache.handle(remember(block, b));
    }

    /** As {@link BlockCache#peek}, for block {@code block} of this file: no hit counted, no reference bit set. */
    public BlockPin peek(int block, int size) {
        CachedBlock b = pinRemembered(block, size);
        if (b == null) {
            long key = BlockCache.key(fileId, block, size);
            b = cache.shard(key).peek(key, size);
            if (b == null) {
                return null;
            }
            remember(block, b);
        }
        return cache.handle(b);
    }

    /** As {@link BlockCache#reserve}, for block {@code block} of this file. */
    public BlockCache.Reservation reserve(int block, int size) {
        return cache.reserve(fileId, block, size);
    }

    /** A remembered block pinned for a lookup: counted as a hit, and marked used for the eviction clock. */
    private BlockPin hit(CachedBlock b) {
        cache.countHit();
        if (!b.referenced) {
            b.referenced = true;  // tested first: a hit should not dirty the block's cache line each time
        }
        return cache.handle(b);
    }

    /** The remembered block {@code block}, pinned, if it is still cached; else null. */
    private CachedBlock pinRemembered(int block, int size) {
        cache.checkOpen();
        if (block < 0 || block >= blocks.length) {
            return null;  // the cache's own path reports it
        }
        CachedBlock b = (CachedBlock) SLOTS.getAcquire(blocks, block);
        if (b == null || !b.tryPin()) {
            return null;
        }
        if (b.size != size) {
            b.release();
            CacheShard.checkSize(b, size);  // throws
        }
        return b;
    }

    private CachedBlock remember(int block, CachedBlock b) {
        if (block < blocks.length && !closed) {
            b.file = this;
            SLOTS.setRelease(blocks, block, b);
            if (closed) {
                // Raced close(): drop it again, so that the block does not keep this directory alive.
                SLOTS.compareAndSet(blocks, block, b, null);
            }
        }
        return b;
    }

    /**
     * Forgets every remembered block, and remembers none from now on; lookups still work, through
     * the cache's own path. Called when the file's table closes, so that a block of the file still
     * cached does not keep the directory (one reference per block) alive.
     */
    public void close() {
        closed = true;
        for (int i = 0; i < blocks.length; i++) {
            SLOTS.setRelease(blocks, i, null);
        }
    }

    /** Blocks remembered now; for tests. */
    int remembered() {
        int n = 0;
        for (int i = 0; i < blocks.length; i++) {
            if (SLOTS.getAcquire(blocks, i) != null) {
                n++;
            }
        }
        return n;
    }

    /** Called by the cache, under the block's shard lock, when {@code b} leaves the cache. */
    void forget(CachedBlock b) {
        int n = b.blockNumber();
        if (n < blocks.length) {
            SLOTS.compareAndSet(blocks, n, b, null);
        }
    }
}
