package dev.remixdb.engine;

import dev.remixdb.wal.WalOp;

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
    final boolean sync;
    /** False for a write that skips the WAL (see {@link WritePipeline#writeUnlogged}). */
    final boolean logged;
    final Condition turn;
    boolean done;
    Throwable error;

    WriteRequest(List<WalOp> ops, boolean sync, Condition turn) {
        this(ops, sync, true, turn);
    }

    WriteRequest(List<WalOp> ops, boolean sync, boolean logged, Condition turn) {
        this.prepare = null;
        this.ops = ops;
        this.sync = sync;
        this.logged = logged;
        this.turn = turn;
    }

    WriteRequest(Function<WritePipeline.Reader, List<WalOp>> prepare, boolean sync, Condition turn) {
        this.prepare = prepare;
        this.ops = List.of();
        this.sync = sync;
        this.logged = true;
        this.turn = turn;
    }

    /** Key and value bytes of the write: what it adds to the memtable's size (0 for a read-modify-write, not known yet). */
    long bytes() {
        long sum = 0;
        for (WalOp op : ops) {
            sum += op.key().length + (op.value() == null ? 0 : op.value().length);
        }
        return sum;
    }
}
