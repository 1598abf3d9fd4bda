package dev.remixdb.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.remixdb.cache.TestBlocks.loader;
import static dev.remixdb.cache.TestBlocks.pattern;
import static dev.remixdb.cache.TestBlocks.size;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link CachedFile}: lookups of remembered blocks pin without the shard's lock, so these tests race
 * them against eviction, file eviction and the cache's own path, and check every pinned block's
 * bytes, the counters and the memory bound.
 */
class CachedFileTest {
    private static final int BLOCKS = 300;

    private static void check(BlockPin pin, long file, int block) {
        MemorySegment s = pin.segment();
        assertEquals(size(file, block), s.byteSize(), "size of file " + file + " block " + block);
        for (long i = 0; i < s.byteSize(); i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != pattern(file, block, i)) {
                throw new AssertionError("file " + file + " block " + block + ": wrong byte at " + i);
            }
        }
    }

    private static BlockPin get(CachedFile f, int block, AtomicInteger loads) throws IOException {
        return f.get(block, size(f.fileId(), block), loader(f.fileId(), block, loads));
    }

    @Test
    void aRememberedBlockIsAHitAndAnEvictedOneIsLoadedAgain() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        // One slot per shard (16 shards), so that other blocks push block 7 out.
        try (BlockCache c = new BlockCache(16L * BlockCache.SLOT_BYTES, false)) {
            CachedFile f = c.file(3, BLOCKS);
            BlockPin a = get(f, 7, loads);
            BlockPin b = get(f, 7, loads);
            assertEquals(a.segment().address(), b.segment().address());
            assertEquals(1, loads.get());
            assertEquals(1, c.hits());
            assertEquals(1, c.misses());
            a.release();
            b.release();
            // Through the cache's own path the same block is the same hit.
            BlockPin same = c.get(3, 7, size(3, 7), loader(3, 7, loads));
            check(same, 3, 7);
            same.release();
            assertEquals(1, loads.get());
            for (int blk = 100; blk < 300; blk++) {
                get(f, blk, loads).release();  // pushes block 7 out
            }
            int before = loads.get();
            BlockPin again = get(f, 7, loads);
            check(again, 3, 7);
            again.release();
            assertEquals(before + 1, loads.get(), "an evicted block is read again, not pinned from its old slot");
            assertTrue(c.blockCount() <= 16);
        }
    }

    @Test
    void evictFileWhilePinnedKeepsTheBytesUntilTheLastRelease() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(1 << 20, false)) {
            CachedFile f = c.file(1, BLOCKS);
            get(f, 3, loads).release();
            BlockPin p1 = get(f, 3, loads);  // a remembered hit
            BlockPin p2 = get(f, 3, loads);
            long memory = c.memoryBytes();
            c.evictFile(1);
            assertEquals(0, c.blockCount());
            check(p1, 1, 3);
            p1.release();
            check(p2, 1, 3);
            p2.release();
            BlockPin fresh = get(f, 3, loads);
            check(fresh, 1, 3);
            fresh.release();
            assertEquals(2, loads.get(), "after evictFile the block is loaded again");
            assertEquals(memory, c.memoryBytes(), "the evicted block's slot was freed once and reused");
            assertThrows(IllegalStateException.class, fresh::release, "released more often than pinned");
        }
    }

    @Test
    void aClosedDirectoryForgetsItsBlocksAndStillServesLookups() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(1 << 20, false)) {
            CachedFile f = c.file(4, BLOCKS);
            for (int b = 0; b < 10; b++) {
                get(f, b, loads).release();
            }
            assertEquals(10, f.remembered());
            c.evictFile(4);
            assertEquals(0, f.remembered(), "evicted blocks are forgotten");
            get(f, 1, loads).release();
            assertEquals(1, f.remembered());
            f.close();
            assertEquals(0, f.remembered(), "close forgets every block");
            BlockPin p = get(f, 2, loads);  // through the cache's own path
            check(p, 4, 2);
            p.release();
            BlockPin again = get(f, 1, loads);  // still cached, found by the shard
            check(again, 4, 1);
            again.release();
            assertEquals(0, f.remembered(), "nothing is remembered after close");
            assertEquals(12, loads.get());
        }
    }

    @Test
    void peekAndGetIfCachedGoThroughTheDirectoryToo() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(1 << 20, false)) {
            CachedFile f = c.file(2, BLOCKS);
            assertNull(f.peek(5, size(2, 5)));
            assertNull(f.getIfCached(5, size(2, 5)));
            get(f, 5, loads).release();
            long hits = c.hits();
            BlockPin peeked = f.peek(5, size(2, 5));
            check(peeked, 2, 5);
            peeked.release();
            assertEquals(hits, c.hits(), "a peek counts no hit");
            BlockPin cached = f.getIfCached(5, size(2, 5));
            check(cached, 2, 5);
            cached.release();
            assertEquals(hits + 1, c.hits());
        }
    }

    @Test
    void badArgumentsAndAClosedCacheFailClearly() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        BlockCache c = new BlockCache(1 << 20);
        assertThrows(IllegalArgumentException.class, () -> c.file(-1, 10));
        assertThrows(IllegalArgumentException.class, () -> c.file(1, -1));
        CachedFile f = c.file(1, 10);
        assertThrows(IllegalArgumentException.class, () -> f.get(1 << 20, 10, loader(1, 0, loads)));
        f.get(2, 10, loader(1, 2, loads)).release();
        IllegalStateException size = assertThrows(IllegalStateException.class, () -> f.get(2, 11, loader(1, 2, loads)));
        assertTrue(size.getMessage().contains("another size"), size.getMessage());
        BlockPin ok = f.get(2, 10, loader(1, 2, loads));  // the failed lookup left no pin behind
        ok.release();
        // Blocks past the directory's length still work, through the cache's own path.
        f.get(12, 10, loader(1, 12, loads)).release();
        BlockPin held = f.get(2, 10, loader(1, 2, loads));
        c.close();
        assertThrows(IllegalStateException.class, () -> held.segment().get(ValueLayout.JAVA_BYTE, 0),
                "checking mode: a pin held across close cannot read freed memory");
        held.release();
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> f.get(2, 10, loader(1, 2, loads)));
        assertEquals("block cache is closed", closed.getMessage());
        assertThrows(IllegalStateException.class, () -> f.peek(2, 10));
    }

    /**
     * Threads pin through directories and through the cache's own path at once, over a cache much
     * smaller than the blocks, while one thread evicts whole files now and then: every pinned block
     * holds its own bytes for as long as it is held (a block pinned from a slot already reused, or a
     * slot freed twice, would show another block's bytes), the counters add up, and memory stays
     * within the budget plus the pins.
     */
    @Test
    void lockFreeHitsRaceEvictionsSafely() throws Exception {
        int threads = 6;
        int pinsPerThread = 3;
        int ops = 30_000;
        int files = 3;
        long capacity = 48 * BlockCache.SLOT_BYTES;
        AtomicInteger loads = new AtomicInteger();
        AtomicLong maxMemory = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        try (BlockCache c = new BlockCache(capacity, false); ExecutorService pool = Executors.newFixedThreadPool(threads + 1)) {
            CachedFile[] dirs = new CachedFile[files];
            for (int i = 0; i < files; i++) {
                dirs[i] = c.file(i, BLOCKS);
            }
            Future<?> evictor = pool.submit(() -> {
                Random rnd = new Random(99);
                while (!done.get()) {
                    c.evictFile(rnd.nextInt(files));
                    Thread.sleep(1);
                }
                return null;
            });
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = t;
                futures.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    ArrayDeque<int[]> ids = new ArrayDeque<>();
                    ArrayDeque<BlockPin> held = new ArrayDeque<>();
                    for (int i = 0; i < ops; i++) {
                        int f = rnd.nextInt(files);
                        int b = rnd.nextInt(4) == 0 ? rnd.nextInt(BLOCKS) : rnd.nextInt(24);
                        BlockPin pin = rnd.nextInt(5) == 0
                                ? c.get(f, b, size(f, b), loader(f, b, loads))
                                : get(dirs[f], b, loads);
                        check(pin, f, b);
                        ids.add(new int[] {f, b});
                        held.add(pin);
                        if (held.size() == pinsPerThread) {
                            int[] id = ids.poll();
                            BlockPin old = held.poll();
                            check(old, id[0], id[1]);
                            old.release();
                        }
                        if (i % 500 == 0) {
                            maxMemory.accumulateAndGet(c.memoryBytes(), Math::max);
                        }
                    }
                    held.forEach(BlockPin::release);
                    return null;
                }));
            }
            try {
                for (Future<?> f : futures) {
                    f.get();
                }
            } finally {
                done.set(true);  // also when a worker failed: the pool's close waits for the evictor
            }
            evictor.get();
            long bound = capacity + (long) threads * pinsPerThread * BlockCache.SLOT_BYTES;
            assertTrue(maxMemory.get() <= bound, maxMemory.get() + " > " + bound);
            assertTrue(c.memoryBytes() <= bound);
            assertEquals((long) threads * ops, c.hits() + c.misses());
            assertEquals(loads.get(), c.misses());
            assertTrue(c.hits() > 0 && c.misses() > 0, c.toString());
            assertTrue(c.blockCount() <= capacity / BlockCache.SLOT_BYTES, c.toString());
            // Every slot is free again: a full round of new blocks fits in the memory already taken.
            long memory = c.memoryBytes();
            for (int b = 0; b < capacity / BlockCache.SLOT_BYTES; b++) {
                BlockPin p = get(dirs[0], BLOCKS - 1 - b, loads);
                check(p, 0, BLOCKS - 1 - b);
                p.release();
            }
            assertEquals(memory, c.memoryBytes(), "no slot was lost or freed twice");
        }
    }
}
