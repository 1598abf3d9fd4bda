package dev.remixdb.remix;

import dev.remixdb.util.NativeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A sorted run held in native memory, laid out in blocks like a table file, for tests and
 * benchmarks. Built by {@link #builder()}; owns its memory until {@link #close()}.
 *
 * <p>Layout (little-endian), blocks packed one after another:
 * <pre>
 * block:  u32 n | u32 entryOffset[n] (from the block start) | entries
 * entry:  u32 keyLength | u32 valueLength (bit 31 = tombstone) | key bytes | value bytes
 * index:  u64 blockStart[blockCount + 1]  (the last one is the data size)
 * counts: u16 keys[blockCount]            (a copy of each block's n)
 * fences: u32 fenceOffset[blockCount + 1] and the bytes of each block's last key
 * </pre>
 * The fence keys are the run's compact block index, like an SSTable's index block: a single-run
 * {@link RunCursor#seek} binary-searches them before it opens one block, so the merging-iterator
 * baseline of the benchmarks searches a run the way a table reader would. The key counts are the
 * per-block metadata a RemixDB table keeps in memory, so moving to a block's k-th key reads only
 * that key's offset, not the block header.
 * A block takes keys until it passes {@link Builder#blockBytes(int)} bytes (default 4096); an entry
 * larger than that gets a block of its own, like the "jumbo" blocks of RemixDB tables.
 */
public final class MemoryRun implements Run, AutoCloseable {
    static final ValueLayout.OfInt INT = NativeBuffer.INT;
    static final ValueLayout.OfLong LONG = NativeBuffer.LONG;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    static final int TOMBSTONE_FLAG = 0x8000_0000;

    private final Arena arena;
    private final MemorySegment data;
    private final MemorySegment index;
    private final MemorySegment counts;
    private final MemorySegment fenceOffsets;
    private final MemorySegment fenceBytes;
    private final int blockCount;
    private final long keyCount;

    private MemoryRun(Arena arena, MemorySegment data, MemorySegment index, MemorySegment counts,
                      MemorySegment fenceOffsets, MemorySegment fenceBytes, int blockCount, long keyCount) {
        this.arena = arena;
        this.data = data;
        this.index = index;
        this.counts = counts;
        this.fenceOffsets = fenceOffsets;
        this.fenceBytes = fenceBytes;
        this.blockCount = blockCount;
        this.keyCount = keyCount;
    }

    /** A builder that takes keys in strictly increasing order. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public int blockCount() {
        return blockCount;
    }

    @Override
    public int keyCount(int block) {
        return Short.toUnsignedInt(counts.get(SHORT, 2L * block));
    }

    @Override
    public long keyCount() {
        return keyCount;
    }

    /** Bytes of native memory this run holds. */
    public long memoryBytes() {
        return data.byteSize() + index.byteSize() + counts.byteSize() + fenceOffsets.byteSize() + fenceBytes.byteSize();
    }

    long blockStart(int block) {
        return index.get(LONG, (long) block * 8);
    }

    MemorySegment data() {
        return data;
    }

    /** The first block whose last key is {@code >= key} ({@code blockCount()} when none is). */
    int findBlock(MemorySegment key, long offset, int length) {
        int lo = 0;
        int hi = blockCount;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            long from = Integer.toUnsignedLong(fenceOffsets.get(INT, 4L * mid));
            int len = (int) (Integer.toUnsignedLong(fenceOffsets.get(INT, 4L * mid + 4)) - from);
            if (Keys.compare(fenceBytes, from, len, key, offset, length) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public RunCursor newCursor() {
        if (!arena.scope().isAlive()) {
            throw new IllegalStateException("MemoryRun is closed");
        }
        return new MemoryRunCursor(this);
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    /**
     * Builds a {@link MemoryRun}. Keys must come in strictly increasing order; a key that is not is
     * refused with an {@link IllegalArgumentException} and the builder stays usable. The builder
     * holds native memory until {@link #build()} or {@link #close()}.
     */
    public static final class Builder implements AutoCloseable {
        private final NativeBuffer buf = NativeBuffer.confined(1 << 16);
        private final NativeBuffer starts = NativeBuffer.confined(1 << 10);
        private final NativeBuffer blockEntries = NativeBuffer.confined(1 << 12);
        private final NativeBuffer lastKey = NativeBuffer.confined(64);
        private final NativeBuffer blockStartsOut = NativeBuffer.confined(1 << 10);
        private final NativeBuffer countsOut = NativeBuffer.confined(1 << 9);
        private final NativeBuffer fenceOffsetsOut = NativeBuffer.confined(1 << 10);
        private final NativeBuffer fenceBytesOut = NativeBuffer.confined(1 << 12);
        private int blockBytes = 4096;
        private int blockKeys;
        private long blockPayload;
        private long keyCount;
        private int blockCount;
        private boolean built;

        private Builder() {}

        /** Target block size in bytes. Default: 4096. */
        public Builder blockBytes(int bytes) {
            if (bytes < 64) {
                throw new IllegalArgumentException("block size must be at least 64 bytes: " + bytes);
            }
            this.blockBytes = bytes;
            return this;
        }

        public Builder put(byte[] key, byte[] value) {
            return add(MemorySegment.ofArray(key), MemorySegment.ofArray(value), false);
        }

        public Builder delete(byte[] key) {
            return add(MemorySegment.ofArray(key), MemorySegment.NULL, true);
        }

        /** Adds a key with a value, or a tombstone when {@code tombstone} (the value is then ignored). */
        public Builder add(MemorySegment key, MemorySegment value, boolean tombstone) {
            if (built) {
                throw new IllegalStateException("MemoryRun.Builder already built or closed");
            }
            long vlen = tombstone ? 0 : value.byteSize();
            if (key.byteSize() > Integer.MAX_VALUE || vlen > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("key or value too large: " + key.byteSize() + ", " + vlen);
            }
            int klen = (int) key.byteSize();
            if (keyCount > 0 && Keys.compare(lastKey.segment(), 0, (int) lastKey.size(), key, 0, klen) >= 0) {
                throw new IllegalArgumentException("keys must be strictly increasing: key #" + keyCount
                        + " is not greater than the previous one");
            }
            long entry = 8L + klen + vlen;
            if (blockKeys > 0 && (blockPayload + entry + 4L * (blockKeys + 2) > blockBytes
                    || blockKeys == RunAddress.MAX_KEYS_PER_BLOCK)) {
                finishBlock();
            }
            lastKey.truncate(0);
            lastKey.put(key, 0, klen);
            long off = blockEntries.size();
            blockEntries.putInt(klen);
            blockEntries.putInt((int) vlen | (tombstone ? TOMBSTONE_FLAG : 0));
            blockEntries.put(key, 0, klen);
            if (vlen > 0) {
                blockEntries.put(value, 0, vlen);
            }
            starts.putLong(off);
            blockKeys++;
            blockPayload += entry;
            keyCount++;
            return this;
        }

        private void finishBlock() {
            if (blockKeys == 0) {
                return;
            }
            if (blockCount == RunAddress.MAX_BLOCKS) {
                throw new IllegalStateException("run has too many blocks: " + blockCount);
            }
            long header = 4L + 4L * blockKeys;
            long blockStart = buf.size();
            buf.putInt(blockKeys);
            for (int i = 0; i < blockKeys; i++) {
                long entryOff = starts.segment().get(LONG, 8L * i);
                buf.putInt((int) (header + entryOff));
            }
            buf.put(blockEntries.segment(), 0, blockEntries.size());
            blockStartsOut.putLong(blockStart);
            long c = countsOut.reserve(2);
            countsOut.segment().set(SHORT, c, (short) blockKeys);
            fenceOffsetsOut.putInt((int) fenceBytesOut.size());
            fenceBytesOut.put(lastKey.segment(), 0, lastKey.size());
            blockCount++;
            blockKeys = 0;
            blockPayload = 0;
            starts.truncate(0);
            blockEntries.truncate(0);
        }


        /** Frees the builder's memory without building; idempotent, and a no-op after {@link #build()}. */
        @Override
        public void close() {
            if (!built) {
                built = true;
                freeBuffers();
            }
        }

        private void freeBuffers() {
            buf.close();
            starts.close();
            blockEntries.close();
            lastKey.close();
            blockStartsOut.close();
            countsOut.close();
            fenceOffsetsOut.close();
            fenceBytesOut.close();
        }

        /** Builds the run; the builder cannot be used afterwards. */
        public MemoryRun build() {
            if (built) {
                throw new IllegalStateException("MemoryRun.Builder already built or closed");
            }
            built = true;
            try {
                finishBlock();
                blockStartsOut.putLong(buf.size());
                if (fenceBytesOut.size() > 0xFFFF_FFFFL) {
                    throw new IllegalStateException("block index keys exceed 4 GiB");
                }
                fenceOffsetsOut.putInt((int) fenceBytesOut.size());
                Arena arena = Arena.ofShared();
                MemorySegment data = buf.copyTo(arena);
                MemorySegment idx = blockStartsOut.copyTo(arena);
                return new MemoryRun(arena, data, idx, countsOut.copyTo(arena), fenceOffsetsOut.copyTo(arena),
                        fenceBytesOut.copyTo(arena), blockCount, keyCount);
            } finally {
                freeBuffers();
            }
        }
    }
}
