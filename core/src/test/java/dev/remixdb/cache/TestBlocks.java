package dev.remixdb.cache;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Blocks for the cache tests: block (file, block) has a size of 1 to 4096 bytes that varies with
 * both, and bytes that differ from every other block's, so a pin of the wrong slot shows.
 */
final class TestBlocks {
    private TestBlocks() {
    }

    static int size(long file, int block) {
        return 1 + (int) ((file * 7919 + block * 104729L) % BlockCache.SLOT_BYTES);
    }

    static byte pattern(long file, int block, long i) {
        return (byte) (file * 31 + block * 7 + i * 13);
    }

    /** A loader that fills block (file, block) and counts its calls in {@code loads}. */
    static BlockLoader loader(long file, int block, AtomicInteger loads) {
        return dst -> {
            loads.incrementAndGet();
            for (long i = 0; i < dst.byteSize(); i++) {
                dst.set(ValueLayout.JAVA_BYTE, i, pattern(file, block, i));
            }
        };
    }

    /** The bytes block (file, block) holds. */
    static MemorySegment expected(long file, int block) {
        byte[] b = new byte[size(file, block)];
        for (int i = 0; i < b.length; i++) {
            b[i] = pattern(file, block, i);
        }
        return MemorySegment.ofArray(b);
    }
}
