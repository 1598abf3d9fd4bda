package dev.remixdb.engine;

import dev.remixdb.memtable.Memtable;
import dev.remixdb.version.RefCounted;

/**
 * A memtable shared by the views that list it; the last release frees its memory.
 * {@code firstWal} is the oldest WAL holding its writes: after a recovery the memtable holds the
 * replayed WALs too, so all of them stay until it is flushed.
 */
final class MemtableRef extends RefCounted {
    final Memtable memtable;
    final long firstWal;
    /** Set (under the engine's lock) when an explicit flush froze it: compaction then aborts nothing. */
    volatile boolean flushAll;

    MemtableRef(Memtable memtable, long firstWal) {
        this.memtable = memtable;
        this.firstWal = firstWal;
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
