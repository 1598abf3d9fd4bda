package dev.remixdb.table;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.cache.BlockLoader;
import dev.remixdb.cache.BlockPin;
import dev.remixdb.remix.Keys;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.remix.RunCursor;
import dev.remixdb.util.NativeBuffer;
import dev.remixdb.util.Varints;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A cursor over a {@link Table}. Not thread-safe: one per thread.
 *
 * <p>The position is (block, key index), changed by {@link #seekTo}, {@link #next}, {@link #prev} and
 * {@link #skip} from the in-memory block records alone. The block itself is read only when a key,
 * value or flag is asked for, so the REMIX's "seek to the segment's cursor offset, then skip k keys"
 * (REMIX §3.2) reads one block, not two. {@link #seek} routes through the in-memory block index and
 * binary-searches one block.
 *
 * <p>The cursor pins at most one cached block at a time. A jumbo block instead lives in the cursor's
 * own buffer, and so does a block a scan cursor finds not cached, except while it walks forwards
 * from block to block: then its {@link ScanWindow} reads many blocks at once. Key and value segments
 * are views of that memory: valid until the cursor moves or
 * closes. I/O errors surface as {@link UncheckedIOException} naming the file and offset; damaged data
 * as {@link dev.remixdb.remix.CorruptionException}.
 */
public final class TableCursor implements RunCursor {
    private final Table table;
    private final DataBlocks blocks;
    private final int blockCount;
    private final BlockLoader loader = this::loadInto;
    /** How a cursor reads blocks the cache does not hold. */
    enum Mode {
        /** Read into the cache (point reads, user cursors). */
        CACHING,
        /** Read into the cursor's own buffer, leaving the cache as it is (compactions). */
        SCAN,
        /** Not at all: throw {@link BlockNotCached} (lookups that must not block). */
        CACHED_ONLY
    }

    /** A scan cursor: blocks not in the cache are read through {@link #window}, not cached. */
    private final boolean scan;
    private final boolean cachedOnly;

    private int block;
    private int index;
    private int count;

    private int loaded = -1;
    private MemorySegment data;
    private BlockPin pinned;
    private int loading;

    private boolean decoded;
    private long keyOffset;
    private int keyLength;
    private int valueLength;
    private boolean tombstone;

    /** The last move was {@link #prev}: {@link #entry} then loads the entries below ahead of use. */
    private boolean backwards;
    /** The lowest entry of the loaded block whose memory a backward walk has loaded ahead. */
    private int warmFrom = Integer.MAX_VALUE;
    /** Where the loads ahead put what they read, so that the JIT keeps them. */
    private int warmed;

    private byte[] scratch;
    /** Jumbo blocks (over a cache slot), a scan cursor's uncached blocks outside its window, and decompressed ones from it. */
    private NativeBuffer own;
    /** A scan cursor's uncached blocks while it walks forwards, read many at a time. */
    private ScanWindow window;
    /** The block loaded before the current one (-1: none): a scan reads a window only when it steps forwards. */
    private int previous = -1;
    private NativeBuffer jumboStored;
    private boolean closed;

    TableCursor(Table table, Mode mode) {
        this.table = table;
        this.scan = mode == Mode.SCAN;
        this.cachedOnly = mode == Mode.CACHED_ONLY;
        this.blocks = table.blocks();
        this.blockCount = table.blockCount();
        this.block = blockCount;
    }

    // ------------------------------------------------------------------ positioning (metadata only)

    private void setBlock(int b) {
        backwards = false;  // prev() sets it again after moving
        warmFrom = Integer.MAX_VALUE;  // also when b is the loaded block: what was warmed is from another walk
        block = b;
        count = b < blockCount ? blocks.keyCount(b) : 0;
        decoded = false;
    }

    @Override
    public void seekTo(int address) {
        checkUsable();
        int b = RunAddress.block(address);
        int i = RunAddress.index(address);
        if (b > blockCount || (b == blockCount && i != 0) || (b < blockCount && i >= blocks.keyCount(b))) {
            throw new IllegalArgumentException("address " + RunAddress.toString(address) + " is not in " + table
                    + " (" + blockCount + " blocks)");
        }
        setBlock(b);
        index = i;
    }

    @Override
    public void seek(MemorySegment key, long offset, int length) {
        checkUsable();
        if (blockCount == 0) {
            setBlock(0);
            index = 0;
            return;
        }
        setBlock(table.index().find(key, offset, length));
        load();
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            decode(mid);
            if (Keys.compare(data, keyOffset, keyLength, key, offset, length) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo == count) {
            setBlock(block + 1);  // all keys of the block are smaller: the answer is the next block's first
            index = 0;
        } else {
            index = lo;
            decoded = false;
        }
    }

    @Override
    public boolean isValid() {
        return block < blockCount;
    }

    @Override
    public int address() {
        return RunAddress.of(block, block < blockCount ? index : 0);
    }

    @Override
    public void next() {
        checkUsable();
        if (block >= blockCount) {
            return;
        }
        decoded = false;
        backwards = false;
        warmFrom = Integer.MAX_VALUE;
        if (++index >= count) {
            setBlock(block + 1);
            index = 0;
        }
    }

    @Override
    public void prev() {
        checkUsable();
        decoded = false;
        if (block < blockCount && index > 0) {
            index--;
        } else if (block > 0) {
            setBlock(block - 1);
            index = count - 1;
        } else {
            setBlock(blockCount);  // before the first key: invalid, parked at the end
            index = 0;
        }
        backwards = true;
    }

    @Override
    public void skip(int n) {
        checkUsable();
        decoded = false;
        warmFrom = Integer.MAX_VALUE;
        if (n >= 0) {
            long i = (long) index + n;
            while (block < blockCount && i >= count) {
                i -= count;
                setBlock(block + 1);
            }
            index = block < blockCount ? (int) i : 0;
        } else {
            if (block == blockCount && blockCount > 0) {
                setBlock(blockCount - 1);
                index = count;
            }
            long i = (long) index + n;
            while (i < 0 && block > 0) {
                setBlock(block - 1);
                i += count;
            }
            if (i < 0) {
                throw new IllegalArgumentException("skip(" + n + ") moves before the first key of " + table);
            }
            index = (int) i;
        }
    }

    /**
     * Adds to {@code batch} the blocks this cursor reads for its next {@code keysAhead} keys (at
     * least the one at its position), those not loaded yet; at most {@value #MAX_BLOCKS_AHEAD}. Scan
     * cursors (compactions) take no part: they read past the cache.
     */
    public void prefetch(BlockPrefetch batch, int keysAhead) {
        checkUsable();
        if (scan || block >= blockCount) {
            return;
        }
        if (loaded != block) {
            batch.add(table, block);
        }
        long end = (long) index + Math.max(keysAhead, 1);  // key positions from the block's start
        int b = block;
        long keysInBlocks = count;
        for (int n = 1; n < MAX_BLOCKS_AHEAD && end > keysInBlocks && b + 1 < blockCount; n++) {
            b++;
            batch.add(table, b);
            keysInBlocks += blocks.keyCount(b);
        }
    }

    /** Blocks one run's read-ahead asks for at most: a scan reads ahead, it does not stream. */
    private static final int MAX_BLOCKS_AHEAD = 3;

    // ------------------------------------------------------------------ the current entry

    @Override
    public MemorySegment keySegment() {
        entry();
        return data;
    }

    @Override
    public long keyOffset() {
        entry();
        return keyOffset;
    }

    @Override
    public int keyLength() {
        entry();
        return keyLength;
    }

    @Override
    public boolean isTombstone() {
        entry();
        return tombstone;
    }

    @Override
    public MemorySegment valueSegment() {
        entry();
        return data;
    }

    @Override
    public long valueOffset() {
        entry();
        return keyOffset + keyLength;
    }

    @Override
    public int valueLength() {
        entry();
        return valueLength;
    }

    @Override
    public int compareKey(MemorySegment key, long offset, int length) {
        entry();
        return Keys.compare(data, keyOffset, keyLength, key, offset, length);
    }

    private void entry() {
        checkUsable();
        if (!decoded) {
            if (block >= blockCount) {
                throw new IllegalStateException("cursor over " + table + " is not at a key");
            }
            load();
            decode(index);
            decoded = true;
            if (backwards && index - WARM_ENTRIES / 2 < warmFrom && index > 0) {
                warmBelow();
            }
        }
    }

    /** Entries a backward walk loads ahead at a time. */
    private static final int WARM_ENTRIES = 8;

    /**
     * Loads every cache line of the next {@link #WARM_ENTRIES} entries below the current one, and
     * drops what it read. Why: walking a block backwards misses the CPU cache on every entry (the
     * hardware prefetchers follow ascending addresses, so a forward walk finds its next entry
     * loaded), and one miss after another made a step back cost 2.4 times a step forward. These
     * loads do not depend on each other, so their misses overlap: a few for eight entries.
     */
    private void warmBelow() {
        int from = Math.max(0, index - WARM_ENTRIES);
        int to = Math.min(warmFrom, index);
        long lo = Short.toUnsignedInt(data.get(TableFormat.U16, 2 + 2L * from));
        long hi = Short.toUnsignedInt(data.get(TableFormat.U16, 2 + 2L * to));
        int sum = 0;
        // Steps of 64 bytes from a line boundary: cache slots and cursor buffers are page-aligned.
        for (long at = lo & ~63L; at < hi; at += 64) {
            sum += data.get(ValueLayout.JAVA_BYTE, at);
        }
        warmed += sum;
        warmFrom = from;
    }

    /** Decodes entry {@code i} of the loaded block (checked when it was loaded, so no bounds checks here). */
    private void decode(int i) {
        long at = Short.toUnsignedInt(data.get(TableFormat.U16, 2 + 2L * i));
        long limit = data.byteSize();
        long k = Varints.get(data, at, limit, TableFormat.MAX_VARINT);
        at += k & 7;
        long v = Varints.get(data, at, limit, TableFormat.MAX_VARINT);
        keyOffset = at + (v & 7);
        keyLength = (int) (k >>> 3);
        int field = (int) (v >>> 3);
        valueLength = field >>> 1;
        tombstone = (field & 1) != 0;
    }

    // ------------------------------------------------------------------ block loading

    private void load() {
        if (loaded == block) {
            return;
        }
        releaseBlock();
        int raw = blocks.rawLength(block);
        try {
            if (raw <= BlockCache.SLOT_BYTES) {
                loading = block;
                pinned = scan ? table.cache().peek(block, raw)
                        : cachedOnly ? table.cache().getIfCached(block, raw)
                        : table.cache().get(block, raw, loader);
            }
            if (pinned == null && cachedOnly) {
                throw new BlockNotCached(table, block);
            }
            data = pinned != null ? pinned.segment() : readUncached(raw);
        } catch (IOException e) {
            throw new UncheckedIOException(table.path() + ": reading block " + block + " at offset "
                    + blocks.offset(block) + " failed: " + e.getMessage(), e);
        }
        loaded = block;
        previous = block;
    }

    /**
     * The current block, read past the cache: a jumbo block, or a scan cursor's block (kept out of
     * {@link #load()}, so that the cached path stays small enough for the JIT to inline).
     */
    private MemorySegment readUncached(int raw) throws IOException {
        if (own == null) {
            own = NativeBuffer.shared(64 * 1024, 4096);
        }
        if (scan && windowed(block)) {
            return window.block(block, own);
        }
        MemorySegment dst = own.scratch(raw);
        blocks.read(block, dst, scratch(block));
        return dst;
    }

    /**
     * Whether a scan cursor reads block {@code b} through its window: when the window holds it, or
     * when the cursor steps from the block before it (a walk, as merges and builds do). A search
     * that probes blocks here and there (a REMIX rebuild placing a few new keys) reads single
     * blocks, as a window per probe would read far more than it uses.
     */
    private boolean windowed(int b) {
        if (window != null && window.holds(b)) {
            return true;
        }
        if (previous != b - 1) {
            return false;
        }
        if (window == null) {
            window = new ScanWindow(table);
        }
        return window.fits(b);
    }

    /** The cache's loader: fills a slot with block {@link #loading}. */
    private void loadInto(MemorySegment dst) throws IOException {
        blocks.read(loading, dst, scratch(loading));
    }

    /** Room for block {@code b}'s stored bytes when it is compressed; null when it is not. */
    private MemorySegment scratch(int b) {
        if (!blocks.compressed(b)) {
            return null;
        }
        int stored = blocks.storedLength(b);
        if (stored <= BlockCache.SLOT_BYTES) {
            // Heap, so that a cursor that never meets a jumbo block owns no arena to close.
            if (scratch == null) {
                scratch = new byte[BlockCache.SLOT_BYTES];
            }
            return MemorySegment.ofArray(scratch);
        }
        if (jumboStored == null) {
            jumboStored = NativeBuffer.shared(64 * 1024, 4096);
        }
        return jumboStored.scratch(stored);
    }

    private void releaseBlock() {
        if (pinned != null) {
            BlockPin b = pinned;
            pinned = null;
            b.release();
        }
        loaded = -1;
        data = null;
    }

    private void checkUsable() {
        if (closed) {
            throw new IllegalStateException("cursor over " + table + " is closed");
        }
        table.checkOpen();
    }

    /** Releases the pinned block and frees the cursor's buffers. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        block = blockCount;
        decoded = false;
        releaseBlock();
        if (own != null) {
            own.close();
        }
        if (window != null) {
            window.close();
        }
        if (jumboStored != null) {
            jumboStored.close();
        }
    }
}
