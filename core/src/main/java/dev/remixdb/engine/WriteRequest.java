package dev.remixdb.engine;

import dev.remixdb.wal.WalOp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

/**
 * One caller's write waiting in the {@link WritePipeline}'s queue until it is written, by itself or
 * by the leader of a group (group commit). Guarded by the pipeline's lock.
 *
 * <p>A request with a {@code prepare} function (read-modify-write) computes its ops only when the
 * group that holds it is applied, just before they go in, so what it read is still current then.
 */
final class WriteRequest {
    final Function<WritePipeline.Reader, List<WalOp>> prepare;
    List<WalOp> ops;
    /** Final but for a writer thread's reusable request (see {@link #reusable()}). */
    boolean sync;
    /** False for a write that skips the WAL (see {@link WritePipeline#writeUnlogged}). */
    final boolean logged;
    /**
     * For a write that skips the WAL and stays unseen until published (see
     * {@link WritePipeline#writeDeferred}); such writes group only with each other.
     */
    final boolean deferred;
    /**
     * Signalled when the request reaches the head of the queue or is done; made by the request's
     * own thread when it first has to wait (most never do: a lone writer is always the head).
     */
    Condition turn;
    /**
     * A turn at the head of the queue that writes nothing (a freeze, a sync's persist, a checkpoint's
     * moment): it never joins another leader's group, since its work is done only by itself.
     */
    final boolean alone;
    /** For a freeze: freeze the active memtable even when it is empty. */
    final boolean evenIfEmpty;
    /** For a freeze: the memtable it froze, retained for the caller (null when none was frozen). */
    MemtableRef frozen;
    boolean done;
    Throwable error;
    /** Whether {@link #error} came from the caller's own read-modify-write function: rethrown as it is. */
    boolean errorFromFunction;
    /** Set on a group's leader whose group the WAL flusher must write out: woken when the group is done. */
    boolean pokeFlusher;
    /**
     * For a read-modify-write of one key: that key, its value read before the request queued (null:
     * absent) and the sequence number it was read at; {@link #readKey} null when nothing was read ahead.
     */
    byte[] readKey;
    byte[] readValue;
    long readSeq;
    /**
     * For a reusable request: its one-op list, and whether its thread has it in a write now (a
     * function that thread runs inside its own write, as a group's leader, must not take it).
     */
    private final ArrayList<WalOp> single;
    boolean busy;

    WriteRequest(List<WalOp> ops, boolean sync) {
        this(ops, sync, true);
    }

    WriteRequest(List<WalOp> ops, boolean sync, boolean logged) {
        this(ops, sync, logged, false, false, false);
    }

    private WriteRequest(List<WalOp> ops, boolean sync, boolean logged, boolean alone, boolean evenIfEmpty,
                         boolean deferred) {
        this(ops, sync, logged, alone, evenIfEmpty, deferred, null);
    }

    private WriteRequest(List<WalOp> ops, boolean sync, boolean logged, boolean alone, boolean evenIfEmpty,
                         boolean deferred, ArrayList<WalOp> single) {
        this.single = single;
        this.prepare = null;
        this.ops = ops;
        this.sync = sync;
        this.logged = logged;
        this.alone = alone;
        this.evenIfEmpty = evenIfEmpty;
        this.deferred = deferred;
    }

    /**
     * A logged write's request that one thread reuses write after write (see {@link #reuse}), so
     * that a put leaves no garbage here: a new request per put was 40% of a single-writer load's
     * allocations (JFR). Fewer young collections, not speed: the load's rate and latency stayed.
     */
    static WriteRequest reusable() {
        ArrayList<WalOp> single = new ArrayList<>(1);
        single.add(null);
        return new WriteRequest(List.of(), false, true, false, false, false, single);
    }

    /** Readies a reusable request for a write of {@code ops} ({@code op} alone when {@code ops} is null). */
    void reuse(List<WalOp> ops, WalOp op, boolean sync) {
        if (ops == null) {
            single.set(0, op);
            ops = single;
        }
        this.ops = ops;
        this.sync = sync;
        busy = true;
    }

    /**
     * Called by its own thread once a reusable request's write has returned, when nothing else
     * refers to it any more (its leader marked it done, under the pipeline's lock, and forgot it):
     * drops the caller's arrays and the outcome.
     */
    void recycle() {
        single.set(0, null);
        ops = List.of();
        done = false;
        error = null;
        errorFromFunction = false;
        pokeFlusher = false;
        frozen = null;
        busy = false;
    }

    /** A deferred write (see {@link #deferred}). */
    static WriteRequest deferred(List<WalOp> ops) {
        return new WriteRequest(ops, false, false, false, false, true);
    }

    /** A request that only takes its turn at the head of the queue (see {@link #alone}). */
    static WriteRequest turnOnly() {
        return turnOnly(false);
    }

    /** A turn-only request; for a freeze, {@code evenIfEmpty} freezes an empty memtable too. */
    static WriteRequest turnOnly(boolean evenIfEmpty) {
        return new WriteRequest(List.of(), false, true, true, evenIfEmpty, false);
    }

    WriteRequest(Function<WritePipeline.Reader, List<WalOp>> prepare, boolean sync) {
        this.single = null;
        this.prepare = prepare;
        this.ops = List.of();
        this.sync = sync;
        this.logged = true;
        this.deferred = false;
        this.alone = false;
        this.evenIfEmpty = false;
    }

    /** Key and value bytes of the write: what it adds to the memtable's size (0 for a read-modify-write, not known yet). */
    long bytes() {
        long sum = 0;
        for (int i = 0; i < ops.size(); i++) {  // indexed: no iterator per write
            WalOp op = ops.get(i);
            sum += op.key().length + (op.value() == null ? 0 : op.value().length);
        }
        return sum;
    }
}
