package dev.remixdb.table;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.io.BlockRead;
import dev.remixdb.io.BlockReader;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Blocks of several tables read into the block cache as one batch, so that an asynchronous reader
 * (io_uring) has them all in flight at once: what a REMIX scan is about to read in each of its runs
 * (REMIX paper §3.2 on I/O). Each block missing from the cache gets a reserved slot; the batch reads
 * them together, checks each as a single read would, and commits the sound ones to the cache
 * unpinned, where the cursors that asked will find them.
 *
 * <p>Best effort: a block that fails to read or check is left out of the cache, and the cursor
 * that reads it later reports the failure as it always does. Filling is not thread-safe (one batch
 * per thread); a started batch is independent of the object, which can be filled again.
 */
public final class BlockPrefetch {
    private final List<BlockRead> reads = new ArrayList<>();
    private final List<Pending> pending = new ArrayList<>();
    private BlockReader reader;

    private record Pending(DataBlocks blocks, int block, BlockCache.Reservation slot, MemorySegment src, MemorySegment dst) {}

    /** Adds block {@code b} of {@code table} unless the cache holds it, or it is a jumbo block. */
    void add(Table table, int b) {
        DataBlocks blocks = table.blocks();
        int raw = blocks.rawLength(b);
        if (raw > BlockCache.SLOT_BYTES) {
            return;
        }
        if (reader != null && reader != blocks.reader()) {
            return;  // tables of another store: never in one batch
        }
        for (Pending p : pending) {
            if (p.blocks == blocks && p.block == b) {
                return;
            }
        }
        BlockCache.Reservation slot = table.cache().reserve(b, raw);
        if (slot == null) {
            return;
        }
        reader = blocks.reader();
        MemorySegment dst = slot.segment();
        MemorySegment src = dst;
        if (blocks.compressed(b)) {
            // On the heap: the batch may finish on another thread, and a heap segment belongs to none.
            src = MemorySegment.ofArray(new byte[blocks.storedLength(b)]);
        }
        reads.add(new BlockRead(blocks.file(), blocks.offset(b), src));
        pending.add(new Pending(blocks, b, slot, src, dst));
    }

    /** Blocks waiting to be read. */
    public int size() {
        return pending.size();
    }

    /**
     * Reads every block added, waits for them, caches the sound ones, and empties the batch; returns
     * how many it cached. On the reader's own I/O thread (a user's stage of an asynchronous read
     * that scans) it reads nothing and returns 0: the wait would be for itself, and the cursors read
     * what they need themselves.
     */
    public int run() {
        if (reader != null && reader.onOwnThread()) {
            abort();
            return 0;
        }
        return start().join();
    }

    /** Gives back the slots reserved for the blocks added and empties the batch, reading nothing. */
    public void abort() {
        for (Pending p : pending) {
            p.slot.abort();
        }
        reads.clear();
        pending.clear();
        reader = null;
    }

    /**
     * Starts reading every block added and empties the batch; the future completes (never
     * exceptionally) with how many blocks it cached, once each block is cached or left out. Where it
     * completes depends on the reader: on its I/O thread for io_uring, at once for FileChannel.
     */
    public CompletableFuture<Integer> start() {
        if (pending.isEmpty()) {
            return CompletableFuture.completedFuture(0);
        }
        List<Pending> batch = List.copyOf(pending);
        CompletableFuture<Void> io;
        try {
            io = reader.read(List.copyOf(reads));
        } catch (RuntimeException e) {
            io = CompletableFuture.failedFuture(e);
        } finally {
            reads.clear();
            pending.clear();
            reader = null;
        }
        return io.handle((ok, failed) -> {
            int cachedCount = 0;
            for (Pending p : batch) {
                boolean cached = false;
                if (failed == null) {
                    try {
                        p.blocks.finish(p.block, p.src, p.dst);  // src is dst for an uncompressed block
                        cached = true;
                    } catch (RuntimeException damaged) {
                        // Not cached: the reader that needs it reads it itself and reports the damage.
                    }
                }
                // A failed read is met again by the reader that needs the block, and reported there.
                if (cached) {
                    p.slot.commit();
                    cachedCount++;
                } else {
                    p.slot.abort();
                }
            }
            return cachedCount;
        });
    }
}
