package dev.remixdb.remix;

import java.lang.foreign.MemorySegment;

/** Cursor over a {@link MemoryRun}: a block number, a key index, and the current entry's offset. */
final class MemoryRunCursor implements RunCursor {
    private final MemoryRun run;
    private final MemorySegment data;
    private final int blockCount;
    private int block;
    private int index;
    private int count;
    private long blockStart;
    private long entry = -1;

    MemoryRunCursor(MemoryRun run) {
        this.run = run;
        this.data = run.data();
        this.blockCount = run.blockCount();
        this.block = blockCount;
    }

    private void loadBlock(int b) {
        block = b;
        if (b < blockCount) {
            blockStart = run.blockStart(b);
            count = run.keyCount(b);
        } else {
            count = 0;
        }
    }

    private void settle() {
        entry = index < count ? blockStart + data.get(MemoryRun.INT, blockStart + 4 + 4L * index) : -1;
    }

    @Override
    public void seekTo(int address) {
        int b = RunAddress.block(address);
        if (b > blockCount) {
            throw new IllegalArgumentException("address " + RunAddress.toString(address)
                    + " beyond the end of a run of " + blockCount + " blocks");
        }
        if (b != block || b == blockCount) {
            loadBlock(b);
        }
        index = RunAddress.index(address);
        if (b < blockCount && index >= count) {
            throw new IllegalArgumentException("address " + RunAddress.toString(address)
                    + " beyond the " + count + " keys of its block");
        }
        settle();
    }

    @Override
    public void seek(MemorySegment key, long offset, int length) {
        // The block index (fence keys) picks the block; a binary search inside it picks the key.
        int b = run.findBlock(key, offset, length);
        loadBlock(b);
        if (b == blockCount) {
            index = 0;
            settle();
            return;
        }
        int lo = 0;
        int hi = count - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            index = mid;
            settle();
            if (compareKey(key, offset, length) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        index = lo;
        settle();
    }

    @Override
    public boolean isValid() {
        return entry >= 0;
    }

    @Override
    public int address() {
        return RunAddress.of(block, block < blockCount ? index : 0);
    }

    @Override
    public void next() {
        if (block >= blockCount) {
            return;
        }
        if (++index >= count) {
            loadBlock(block + 1);
            index = 0;
        }
        settle();
    }

    @Override
    public void prev() {
        if (index > 0 && block < blockCount) {
            index--;
        } else if (block > 0) {
            loadBlock(block - 1);
            index = count - 1;
        } else {
            // Before the first key: park at the end so the cursor reads as invalid.
            loadBlock(blockCount);
            index = 0;
        }
        settle();
    }

    @Override
    public void skip(int n) {
        if (n >= 0) {
            long i = (long) index + n;
            while (block < blockCount && i >= count) {
                i -= count;
                loadBlock(block + 1);
            }
            index = block < blockCount ? (int) i : 0;
        } else {
            if (block == blockCount && blockCount > 0) {
                loadBlock(blockCount - 1);
                index = count;
            }
            long i = (long) index + n;
            while (i < 0 && block > 0) {
                loadBlock(block - 1);
                i += count;
            }
            if (i < 0) {
                throw new IllegalArgumentException("skip before the first key of the run");
            }
            index = (int) i;
        }
        settle();
    }

    @Override
    public MemorySegment keySegment() {
        return data;
    }

    @Override
    public long keyOffset() {
        return entry + 8;
    }

    @Override
    public int keyLength() {
        return data.get(MemoryRun.INT, entry);
    }

    @Override
    public boolean isTombstone() {
        return (data.get(MemoryRun.INT, entry + 4) & MemoryRun.TOMBSTONE_FLAG) != 0;
    }

    @Override
    public MemorySegment valueSegment() {
        return data;
    }

    @Override
    public long valueOffset() {
        return entry + 8 + keyLength();
    }

    @Override
    public int valueLength() {
        return data.get(MemoryRun.INT, entry + 4) & ~MemoryRun.TOMBSTONE_FLAG;
    }

    @Override
    public void close() {
        entry = -1;
    }
}
