package dev.remixdb.cursor;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.cache.BlockLoader;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ReadAhead}'s choice: on only when the reader runs batches in parallel, lookups miss often,
 * and the blocks that missed took long to read (a device), not a few microseconds (the page cache).
 */
class ReadAheadTest {
    private static final int SIZE = 4096;
    private static final int QUESTIONS = 1024;  // one sample

    private static BlockLoader takes(long micros) {
        return dst -> {
            long end = System.nanoTime() + micros * 1000;
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            dst.fill((byte) 1);
        };
    }

    /** {@code misses} fresh blocks read with {@code loader}, then one sample's worth of questions; the last answer. */
    private static boolean afterMisses(BlockCache cache, ReadAhead ra, int from, int misses, BlockLoader loader)
            throws IOException {
        for (int b = from; b < from + misses; b++) {
            cache.get(1, b, SIZE, loader).release();
        }
        boolean answer = false;
        for (int i = 0; i < QUESTIONS; i++) {
            answer = ra.worthIt();
        }
        return answer;
    }

    @Test
    void slowMissesTurnItOnAndFastOnesOff() throws IOException {
        try (BlockCache cache = new BlockCache(64L << 20)) {
            ReadAhead ra = new ReadAhead(cache, true);
            assertTrue(afterMisses(cache, ra, 0, 50, takes(60)), "misses that waited 60 us each: read ahead");
            assertFalse(afterMisses(cache, ra, 100, 50, dst -> dst.fill((byte) 1)),
                    "misses served at memory speed (the page cache): no read-ahead");
            assertTrue(afterMisses(cache, ra, 200, 50, takes(60)), "slow again: on again");
            assertEquals(150, cache.loads());
            assertTrue(cache.slowLoads() >= 100 && cache.slowLoads() < 150, "slow loads: " + cache.slowLoads());
        }
    }

    @Test
    void aSampleWithoutBlockingReadsKeepsTheLastJudgement() throws IOException {
        try (BlockCache cache = new BlockCache(64L << 20)) {
            ReadAhead ra = new ReadAhead(cache, true);
            assertTrue(afterMisses(cache, ra, 0, 50, takes(60)));
            // Misses that were only reserved (blocks read ahead) and no blocking read: still slow.
            for (int b = 1000; b < 1050; b++) {
                BlockCache.Reservation r = cache.reserve(1, b, SIZE);
                r.abort();
            }
            boolean answer = false;
            for (int i = 0; i < QUESTIONS; i++) {
                answer = ra.worthIt();
            }
            assertTrue(answer, "no blocking read in the sample: the last judgement holds");
        }
    }

    @Test
    void aFewFastReadsDoNotOverturnIt() throws IOException {
        try (BlockCache cache = new BlockCache(64L << 20)) {
            ReadAhead ra = new ReadAhead(cache, true);
            assertTrue(afterMisses(cache, ra, 0, 50, takes(60)));
            // With read-ahead on, most misses are read ahead; a handful read by lookups themselves,
            // fast because the kernel had them, must not turn it off.
            for (int b = 1000; b < 1040; b++) {
                cache.reserve(1, b, SIZE).abort();
            }
            assertTrue(afterMisses(cache, ra, 2000, ReadAhead.MIN_LOADS - 1, dst -> dst.fill((byte) 1)));
            // Enough of them do: together with the ones before, most of the recent reads were fast.
            assertTrue(!afterMisses(cache, ra, 3000, ReadAhead.MIN_LOADS, dst -> dst.fill((byte) 1)));
        }
    }

    @Test
    void fewMissesOrASerialReaderNeverReadAhead() throws IOException {
        try (BlockCache cache = new BlockCache(64L << 20)) {
            ReadAhead serial = new ReadAhead(cache, false);
            assertFalse(afterMisses(cache, serial, 0, 50, takes(60)), "a reader that runs batches one by one");
            ReadAhead parallel = new ReadAhead(cache, true);
            // Its first sample: those 50 slow misses, and 10,000 hits of the blocks they cached.
            for (int i = 0; i < 200; i++) {
                for (int b = 0; b < 50; b++) {
                    cache.get(1, b, SIZE, takes(60)).release();
                }
            }
            boolean answer = false;
            for (int i = 0; i < QUESTIONS; i++) {
                answer = parallel.worthIt();
            }
            assertFalse(answer, "one miss in 201 lookups");
        }
    }
}
