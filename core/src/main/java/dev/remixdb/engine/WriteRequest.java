package dev.remixdb.engine;

import dev.remixdb.wal.WalOp;

import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.function.Supplier;

/**
 * One caller's write waiting in the {@link WritePipeline}'s queue until it is written, by itself or
 * by the leader of a group (group commit). Guarded by the pipeline's lock.
 *
 * <p>A request with a {@code prepare} function (read-modify-write) computes its ops only when it
 * reaches the head of the queue, when no other write is in flight, so what it read is still
 * current when its ops are applied.
 */
final class WriteRequest {
    final Supplier<List<WalOp>> prepare;
    List<WalOp> ops;
    final boolean sync;
    final Condition turn;
    boolean done;
    Throwable error;

    WriteRequest(List<WalOp> ops, boolean sync, Condition turn) {
        this.prepare = null;
        this.ops = ops;
        this.sync = sync;
        this.turn = turn;
    }

    WriteRequest(Supplier<List<WalOp>> prepare, boolean sync, Condition turn) {
        this.prepare = prepare;
        this.ops = List.of();
        this.sync = sync;
        this.turn = turn;
    }

    /** Key and value bytes of the write: what it adds to the memtable's size. */
    long bytes() {
        long sum = 0;
        for (WalOp op : ops) {
            sum += op.key().length + (op.value() == null ? 0 : op.value().length);
        }
        return sum;
    }
}
