package dev.remixdb.engine;

import dev.remixdb.memtable.Memtable;
import dev.remixdb.version.RefCounted;

/**
 * A memtable shared by the read states that list it; the last release frees its memory.
 * {@code firstWal} is the oldest WAL holding its writes: after a recovery the memtable holds the
 * replayed WALs too, so all of them stay until it is compacted.
 */
public final class MemtableRef extends RefCounted {
    private final Memtable memtable;
    private final long firstWal;
    /**
     * Set (by the head of the write queue) when {@link WritePipeline#freezeMemtable()} froze it:
     * compaction then writes all of it to tables and keeps nothing back in memory.
     */
    private volatile boolean allToTables;
    /** Set when it took a write that skipped the WAL: its data is durable only once compacted into tables. */
    private volatile boolean unlogged;
    /**
     * The first sequence number of the writes it took as the active memtable: every write from
     * there on is in it or in a newer memtable (re-inserted older versions may sit below it).
     * Unknown (the largest long) until the write pipeline sets it.
     */
    private volatile long startSeq = Long.MAX_VALUE;

    MemtableRef(Memtable memtable, long firstWal) {
        this.memtable = memtable;
        this.firstWal = firstWal;
    }

    public Memtable memtable() {
        return memtable;
    }

    /** The oldest WAL holding this memtable's writes. */
    public long firstWal() {
        return firstWal;
    }

    /** Whether compaction must write all of it to tables (an explicit freeze, or writes not in the WAL). */
    public boolean allToTables() {
        return allToTables || unlogged;
    }

    /** Whether it holds writes that skipped the WAL. */
    public boolean unlogged() {
        return unlogged;
    }

    /** See {@link #startSeq}. */
    long startSeq() {
        return startSeq;
    }

    void startSeq(long seq) {
        this.startSeq = seq;
    }

    void markUnlogged() {
        unlogged = true;
    }

    void allToTables(boolean all) {
        this.allToTables = all;
    }

    @Override
    protected void free() {
        memtable.close();
    }

    @Override
    public String toString() {
        return "memtable (WAL " + firstWal + "+)";
    }
}
