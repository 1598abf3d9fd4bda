package dev.remixdb.engine;

import dev.remixdb.wal.WalOp;

import java.util.List;
import java.util.concurrent.locks.Condition;

/**
 * One caller's write in the engine's queue, waiting until it is written by itself or by the leader
 * of a group (group commit). Guarded by the engine's lock.
 */
final class Writer {
    final List<WalOp> ops;
    final boolean sync;
    final Condition turn;
    boolean done;
    Throwable error;

    Writer(List<WalOp> ops, boolean sync, Condition turn) {
        this.ops = ops;
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
