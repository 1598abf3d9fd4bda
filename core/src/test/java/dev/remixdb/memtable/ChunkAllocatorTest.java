package dev.remixdb.memtable;

import dev.remixdb.io.PageMemory;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The allocator prepares its next chunk once the current one is half full, not as soon as it takes
 * one: a memtable that gets a few writes holds one chunk. Its allocations stay correct across the
 * prepared chunks (zero-filled, distinct, handle 0 never handed out).
 */
class ChunkAllocatorTest {
    private static final int CHUNK = (int) PageMemory.HUGE_PAGE;

    @Test
    void theNextChunkIsPreparedOnlyOnceTheCurrentOneIsHalfFull() {
        assumeTrue(PageMemory.mapping(), "chunks are prepared ahead only with huge-page mapping (native access)");
        try (ChunkAllocator a = new ChunkAllocator(CHUNK)) {
            assertEquals(CHUNK, a.reservedBytes(), "the first chunk is prepared at once");
            long first = a.allocate(64);
            assertEquals(CHUNK, a.reservedBytes(), "a few writes hold one chunk");
            long h = first;
            while (ChunkAllocator.offset(h) <= CHUNK / 2) {
                h = a.allocate(4096);
            }
            assertEquals(2L * CHUNK, a.reservedBytes(), "past half the chunk the next one is on its way");
            // On to the fourth chunk: every allocation is zero-filled memory of its own.
            long x;
            int i = 0;
            do {
                x = a.allocate(4096);
                var seg = a.segment(x);
                long off = ChunkAllocator.offset(x);
                assertEquals(0L, seg.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, off + 4088));
                seg.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, off + 4088, ++i);
            } while ((x >>> 32) < 3);
            assertEquals(4L * CHUNK, a.reservedBytes(), "the fourth chunk just taken, none prepared yet");
            while (ChunkAllocator.offset(x) <= CHUNK / 2) {
                x = a.allocate(4096);
            }
            assertEquals(5L * CHUNK, a.reservedBytes(), "and the fifth on its way past its half");
            assertEquals(true, first != ChunkAllocator.NULL);
        }
    }
}
