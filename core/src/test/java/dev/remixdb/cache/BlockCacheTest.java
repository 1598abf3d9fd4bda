package dev.remixdb.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.remixdb.cache.TestBlocks.expected;
import static dev.remixdb.cache.TestBlocks.loader;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** {@link BlockCache}: hits and misses, pinning against eviction, the budget, file eviction, close. */
class BlockCacheTest {
    private static final int FILES = 4;
    private static final int BLOCKS = 400;

    private static BlockPin get(BlockCache c, long file, int block, AtomicInteger loads) throws IOException {
        return c.get(file, block, size(file, block), loader(file, block, loads));
    }

    @Test
    void secondGetIsAHit() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(1 << 20)) {
            BlockPin a = get(c, 1, 5, loads);
            BlockPin b = get(c, 1, 5, loads);
            assertEquals(a.segment().address(), b.segment().address(), "one slot holds the block");
            assertEquals(1, loads.get());
            assertEquals(1, c.hits());
            assertEquals(1, c.misses());
            assertEquals(-1, MemorySegment.mismatch(a.segment(), 0, a.segment().byteSize(), expected(1, 5), 0, size(1, 5)));
            a.release();
            b.release();
            assertThrows(IllegalStateException.class, a::release, "released more often than pinned");
        }
    }

    @Test
    void pinnedBlocksAreNeverEvictedAndTheExcessGoesWhenReleased() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(2 * BlockCache.SLOT_BYTES)) {
            List<BlockPin> pinned = new ArrayList<>();
            for (int b = 0; b < 40; b++) {
                pinned.add(get(c, 1, b, loads));
            }
            assertEquals(40, c.blockCount());
            assertTrue(c.memoryBytes() >= 40L * BlockCache.SLOT_BYTES);
            for (int b = 0; b < 40; b++) {
                MemorySegment s = pinned.get(b).segment();
                assertEquals(-1, MemorySegment.mismatch(s, 0, s.byteSize(), expected(1, b), 0, size(1, b)), "block " + b);
            }
            long memory = c.memoryBytes();
            pinned.forEach(BlockPin::release);
            assertTrue(c.blockCount() <= 2, c.blockCount() + " blocks cached over a budget of 2");
            for (int b = 100; b < 140; b++) {
                get(c, 1, b, loads).release();  // reuses the slots carved while over budget
            }
            assertEquals(memory, c.memoryBytes());
        }
    }

    @Test
    void capacityZeroKeepsOnlyPinnedBlocks() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(0)) {
            BlockPin a = get(c, 2, 1, loads);
            BlockPin again = get(c, 2, 1, loads);
            assertEquals(a.segment().address(), again.segment().address(), "a hit on the pinned block");
            a.release();
            again.release();
            assertEquals(0, c.blockCount());
            get(c, 2, 1, loads).release();
            assertEquals(2, loads.get());
            assertEquals(BlockCache.SLOT_BYTES, c.memoryBytes());
        }
    }

    /**
     * Many files, random gets and file evictions against a model of what is cached (the budget holds
     * everything, so only evictFile removes): every get returns its block's bytes, and loads exactly
     * when the model says the block is not cached. Exercises the table's growth and the backward shift
     * of its deletions at every load factor.
     */
    @Test
    void randomGetsAndFileEvictionsMatchAModel() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        Random rnd = new Random(7);
        java.util.Set<Long> cached = new java.util.HashSet<>();
        // The cache's own logic: plain handles (the checking ones are tested on their own below).
        try (BlockCache c = new BlockCache(64L << 20, false)) {
            for (int step = 0; step < 60_000; step++) {
                long file = 1 + rnd.nextInt(40);
                if (rnd.nextInt(500) == 0) {
                    c.evictFile(file);
                    cached.removeIf(k -> k >>> 20 == file);
                    continue;
                }
                int block = rnd.nextInt(200);
                int before = loads.get();
                BlockPin b = get(c, file, block, loads);
                boolean wasCached = !cached.add(file << 20 | block);
                assertEquals(wasCached ? before : before + 1, loads.get(), "file " + file + " block " + block);
                MemorySegment seg = b.segment();
                assertEquals(-1, MemorySegment.mismatch(seg, 0, seg.byteSize(), expected(file, block), 0, size(file, block)));
                b.release();
            }
            assertEquals(cached.size(), c.blockCount());
        }
    }

    @Test
    void evictFileDropsItsBlocksAndFreesPinnedOnesOnRelease() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(1 << 20)) {
            for (int b = 0; b < 10; b++) {
                get(c, 1, b, loads).release();
                get(c, 2, b, loads).release();
            }
            BlockPin pinned = get(c, 1, 3, loads);
            c.evictFile(1);
            assertEquals(10, c.blockCount());
            MemorySegment s = pinned.segment();
            assertEquals(-1, MemorySegment.mismatch(s, 0, s.byteSize(), expected(1, 3), 0, size(1, 3)));
            pinned.release();
            int before = loads.get();
            get(c, 2, 4, loads).release();
            assertEquals(before, loads.get(), "file 2 stays cached");
            get(c, 1, 4, loads).release();
            assertEquals(before + 1, loads.get(), "file 1 was evicted");
        }
    }

    @Test
    void aFailedLoadCachesNothing() throws IOException {
        try (BlockCache c = new BlockCache(BlockCache.SLOT_BYTES)) {
            IOException boom = new IOException("boom");
            assertSame(boom, assertThrows(IOException.class, () -> c.get(1, 1, 10, dst -> {
                throw boom;
            })));
            assertEquals(0, c.blockCount());
            AtomicInteger loads = new AtomicInteger();
            get(c, 1, 1, loads).release();
            assertEquals(1, loads.get());
            assertEquals(BlockCache.SLOT_BYTES, c.memoryBytes(), "the failed load's slot was reused");
        }
    }

    @Test
    void argumentsAndClose() throws IOException {
        BlockCache c = new BlockCache(1 << 16);
        AtomicInteger loads = new AtomicInteger();
        assertThrows(IllegalArgumentException.class, () -> new BlockCache(-1));
        assertThrows(IllegalArgumentException.class, () -> c.get(-1, 0, 10, loader(0, 0, loads)));
        assertThrows(IllegalArgumentException.class, () -> c.get(1, 1 << 20, 10, loader(0, 0, loads)));
        assertThrows(IllegalArgumentException.class, () -> c.get(1, 0, BlockCache.SLOT_BYTES + 1, loader(0, 0, loads)));
        assertThrows(IllegalArgumentException.class, () -> c.get(1, 0, 0, loader(0, 0, loads)));
        c.get(1, 0, 10, loader(1, 0, loads)).release();
        assertThrows(IllegalStateException.class, () -> c.get(1, 0, 11, loader(1, 0, loads)), "size differs from the cached block");
        BlockPin pinned = c.get(1, 1, 10, loader(1, 1, loads));
        c.close();
        pinned.release();  // harmless after close
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> c.get(1, 0, 10, loader(1, 0, loads)));
        assertEquals("block cache is closed", e.getMessage());
        assertEquals(0, c.memoryBytes());
        c.close();
    }

    @Test
    void concurrentUseStaysCorrectAndWithinBudgetPlusPins() throws Exception {
        int threads = 8;
        int pinsPerThread = 3;
        int ops = 20_000;
        long capacity = 64 * BlockCache.SLOT_BYTES;
        MemorySegment[][] expected = new MemorySegment[FILES][BLOCKS];
        for (int f = 0; f < FILES; f++) {
            for (int b = 0; b < BLOCKS; b++) {
                expected[f][b] = expected(f, b);
            }
        }
        AtomicInteger loads = new AtomicInteger();
        AtomicLong maxMemory = new AtomicLong();
        // The cache's own logic under contention: plain handles, so that the threads do not spend the
        // test closing the checking mode's arenas (tested on their own below).
        try (BlockCache c = new BlockCache(capacity, false); ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = t;
                futures.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    ArrayDeque<long[]> held = new ArrayDeque<>();
                    ArrayDeque<BlockPin> blocks = new ArrayDeque<>();
                    for (int i = 0; i < ops; i++) {
                        // Skewed: a hot set of blocks and a long tail, so there are hits and evictions.
                        int f = rnd.nextInt(FILES);
                        int b = rnd.nextInt(4) == 0 ? rnd.nextInt(BLOCKS) : rnd.nextInt(16);
                        BlockPin cb = get(c, f, b, loads);
                        check(cb, expected[f][b]);
                        held.add(new long[] {f, b});
                        blocks.add(cb);
                        if (blocks.size() == pinsPerThread) {
                            long[] id = held.poll();
                            BlockPin old = blocks.poll();
                            check(old, expected[(int) id[0]][(int) id[1]]);
                            old.release();
                        }
                        if (i % 1000 == 0) {
                            maxMemory.accumulateAndGet(c.memoryBytes(), Math::max);
                        }
                    }
                    blocks.forEach(BlockPin::release);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            long bound = capacity + (long) threads * pinsPerThread * BlockCache.SLOT_BYTES;
            assertTrue(maxMemory.get() <= bound, maxMemory.get() + " > " + bound);
            assertTrue(c.memoryBytes() <= bound);
            assertEquals((long) threads * ops, c.hits() + c.misses());
            assertEquals(loads.get(), c.misses());
            assertTrue(c.hits() > c.misses() / 2 && c.misses() > 0, c.toString());
            assertTrue(c.blockCount() <= capacity / BlockCache.SLOT_BYTES);
        }
    }

    @Test
    void inCheckingModeAReleasedPinCannotBeReadOrReleasedAgain() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(1 << 20, true)) {
            BlockPin a = get(c, 1, 5, loads);
            BlockPin b = get(c, 1, 5, loads);
            assertNotSame(a, b, "each holder has a handle of its own");
            assertEquals(1, loads.get());
            check(a, expected(1, 5));
            a.release();
            assertThrows(IllegalStateException.class, () -> a.segment().get(ValueLayout.JAVA_BYTE, 0), "read after release");
            assertThrows(IllegalStateException.class, a::release, "second release by the same holder");
            check(b, expected(1, 5));  // the other holder's pin is untouched
            BlockPin held = get(c, 2, 0, loads);
            c.close();
            assertThrows(IllegalStateException.class, () -> held.segment().get(ValueLayout.JAVA_BYTE, 0),
                    "the cache's memory is gone: a held pin must fail, not read freed memory");
            held.release();
            b.release();
        }
    }

    @Test
    void outsideCheckingModeHoldersShareTheCachedBlock() throws IOException {
        AtomicInteger loads = new AtomicInteger();
        try (BlockCache c = new BlockCache(1 << 20, false)) {
            BlockPin a = get(c, 1, 5, loads);
            BlockPin b = get(c, 1, 5, loads);
            assertSame(a, b);
            a.release();
            b.release();
        }
    }

    private static void check(BlockPin b, MemorySegment expected) {
        MemorySegment s = b.segment();
        if (MemorySegment.mismatch(s, 0, s.byteSize(), expected, 0, expected.byteSize()) != -1) {
            throw new AssertionError("wrong contents in " + b);
        }
    }
}
