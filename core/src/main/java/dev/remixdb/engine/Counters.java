package dev.remixdb.engine;

import java.util.concurrent.atomic.LongAdder;

/** The engine's running totals since open, reported by the store's stats. */
public final class Counters {
    /** Key and value bytes of every put and delete. */
    public final LongAdder userBytes = new LongAdder();
    /** Bytes appended to WALs (re-logged aborted data included). */
    public final LongAdder walBytes = new LongAdder();
    /** Bytes of the table and REMIX files compaction wrote. */
    public final LongAdder tableBytes = new LongAdder();
    /** Bytes of the MANIFESTs written at each version install. */
    public final LongAdder manifestBytes = new LongAdder();
    /** Time writers waited for compaction to make room (every frozen slot taken, the active memtable full). */
    public final LongAdder stallNanos = new LongAdder();
    /** Time writers were slowed down before it came to a stall (back-pressure). */
    public final LongAdder slowdownNanos = new LongAdder();
    /** Partition compactions by kind. */
    public final LongAdder minor = new LongAdder();
    public final LongAdder major = new LongAdder();
    public final LongAdder split = new LongAdder();
    public final LongAdder abort = new LongAdder();
    /** Compaction rounds that absorbed frozen memtables, and the memtables they absorbed. */
    public final LongAdder rounds = new LongAdder();
    public final LongAdder roundMemtables = new LongAdder();
    /** Partitions the compactor merged on its own, without a flush (a policy's idle merges). */
    public final LongAdder idle = new LongAdder();
    /**
     * Bytes of the tables that optional work rewrote: what a policy's plan merged beyond its
     * required plan, and every idle merge (see {@code CompactionPolicy.optionalWriteBudget}).
     */
    public final LongAdder optionalBytes = new LongAdder();
    /** Snapshots released by the garbage collector, not by close. */
    public final LongAdder leakedSnapshots = new LongAdder();
    /** Cursors garbage-collected without a close, closed by the store when it found them. */
    public final LongAdder leakedCursors = new LongAdder();
}
