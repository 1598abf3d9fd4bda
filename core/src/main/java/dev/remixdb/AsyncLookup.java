package dev.remixdb;

import dev.remixdb.engine.ReadState;
import dev.remixdb.table.BlockNotCached;
import dev.remixdb.table.BlockPrefetch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Point lookups of many keys that never block the calling thread on the disk
 * ({@link RemixDB#multiGetAsync}, {@link RemixDB#getAsync}). A round looks every pending key up
 * from memory alone (memtables and cached blocks); the keys that need a block the cache does not
 * hold are set aside, their blocks (each once, however many keys share it) are read into the cache
 * as one batch, and when the batch is done the next round runs on the thread that completed it (the
 * io_uring thread) for those keys only. A key usually needs one block, so most lookups end in the
 * second round. Keys whose blocks a batch cannot read into the cache (a block larger than a cache
 * slot, no free slot) and, after {@value #MAX_ROUNDS} rounds, keys still missing (blocks evicted as
 * fast as they are fetched, or a damaged block the batch would not cache) are read the blocking way,
 * which reports damage as {@link RemixDB#get} does: with a reader whose reads are asynchronous, on
 * a virtual thread of their own, so that neither the caller's thread nor the I/O thread waits for
 * the disk (a value over 4 KiB used to be read on the caller's thread).
 *
 * <p>The lookup holds one reference to the read state from start to end, so it reads one
 * consistent snapshot (the sequence it started at), and the store's close waits for it.
 */
final class AsyncLookup {
    static final int MAX_ROUNDS = 4;

    private final ReadState state;
    private final long seq;
    private final byte[][] keys;
    private final byte[][] values;
    private final CompletableFuture<List<byte[]>> future = new CompletableFuture<>();
    /** Whether blocking reads go to a thread of their own (the reader's reads are asynchronous). */
    private final boolean offThread;
    private int[] pending;
    private int rounds;

    /** Takes over the caller's reference to {@code state}. */
    private AsyncLookup(ReadState state, long seq, byte[][] keys, boolean offThread) {
        this.state = state;
        this.seq = seq;
        this.keys = keys;
        this.offThread = offThread;
        this.values = new byte[keys.length][];
        this.pending = new int[keys.length];
        Arrays.setAll(pending, i -> i);
    }

    /**
     * Starts the lookups; takes over the caller's reference to {@code state}. {@code offThread}:
     * the reader's reads are asynchronous, and blocking reads must not run on the caller's thread.
     */
    static CompletableFuture<List<byte[]>> start(ReadState state, long seq, byte[][] keys, boolean offThread) {
        AsyncLookup lookup = new AsyncLookup(state, seq, keys, offThread);
        lookup.round();
        return lookup.future;
    }

    private void round() {
        BlockPrefetch fetch = new BlockPrefetch();
        try {
            rounds++;
            if (rounds > MAX_ROUNDS) {
                readBlocking();
                return;
            }
            int missed = 0;
            for (int i : pending) {
                try {
                    values[i] = state.getCached(seq, keys[i]);
                } catch (BlockNotCached miss) {
                    miss.addTo(fetch);
                    pending[missed++] = i;
                }
            }
            if (missed == 0) {
                done(null);
                return;
            }
            pending = Arrays.copyOf(pending, missed);
            if (fetch.size() == 0) {
                // Nothing a batch can bring into the cache for them: another round would not find them.
                readBlocking();
                return;
            }
            fetch.start().whenComplete((cached, e) -> round());
        } catch (RuntimeException | Error e) {
            fetch.abort();  // slots reserved for keys before the one that failed
            fail(e);
        }
    }

    /** Reads the pending keys the blocking way: on a virtual thread when {@link #offThread}, else here. */
    private void readBlocking() {
        Runnable read = () -> {
            try {
                for (int i : pending) {
                    values[i] = state.get(seq, keys[i]);
                }
                done(null);
            } catch (RuntimeException | Error e) {
                fail(e);
            }
        };
        if (offThread) {
            Thread.ofVirtual().name("remixdb-lookup").start(read);
        } else {
            read.run();
        }
    }

    private void fail(Throwable e) {
        done(e instanceof dev.remixdb.remix.CorruptionException c ? new CorruptionException(c) : e);
    }

    /**
     * Releases the read state, then completes the future: in this order so that a dependent stage
     * that closes the store (run inside {@code complete}) does not wait for its own lookup. So
     * {@link RemixDB#close()} may return just before the futures of the last lookups complete.
     */
    private void done(Throwable failure) {
        state.release();
        if (failure != null) {
            future.completeExceptionally(failure);
        } else {
            List<byte[]> out = new ArrayList<>(values.length);
            Collections.addAll(out, values);
            future.complete(Collections.unmodifiableList(out));
        }
    }
}
