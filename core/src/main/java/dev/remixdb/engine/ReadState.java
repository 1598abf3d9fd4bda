package dev.remixdb.engine;

import dev.remixdb.memtable.Memtable;
import dev.remixdb.memtable.RangeTombstone;
import dev.remixdb.remix.RemixCursor;
import dev.remixdb.version.Partition;
import dev.remixdb.version.RefCounted;
import dev.remixdb.version.Version;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * What a reader needs at one moment: the active memtable, the frozen ones waiting for compaction
 * (newest first; the oldest ones are those being compacted), and the persistent version. Readers retain
 * the current state ({@link VersionSet#acquire()}) and read them all without locks, newest first; a
 * memtable switch or a compaction makes a new state. The last release lets go of the parts, which
 * free themselves when no other state holds them.
 */
public final class ReadState extends RefCounted {
    private static final MemtableRef[] NONE = {};

    private final MemtableRef mem;
    /** Frozen memtables, newest first. */
    private final MemtableRef[] frozen;
    private final Version version;
    /** Told when this state is freed, so that closing the store can wait for its last reader. */
    private final Runnable onFree;

    /** Retains each part; the state holds them until its last release. */
    ReadState(MemtableRef mem, MemtableRef[] frozen, Version version, Runnable onFree) {
        mem.retain();
        for (MemtableRef f : frozen) {
            f.retain();
        }
        version.retain();
        this.mem = mem;
        this.frozen = frozen.length == 0 ? NONE : frozen.clone();
        this.version = version;
        this.onFree = onFree;
    }

    /** The memtable that takes writes. */
    public MemtableRef mem() {
        return mem;
    }

    /** The frozen memtables, newest first (read-only). */
    public List<MemtableRef> frozen() {
        return List.of(frozen);
    }

    int frozenCount() {
        return frozen.length;
    }

    MemtableRef[] frozenArray() {
        return frozen;
    }

    /** The oldest frozen memtable, the next to compact, or null when none is frozen. */
    public MemtableRef oldestFrozen() {
        return frozen.length == 0 ? null : frozen[frozen.length - 1];
    }

    /** The frozen memtables newer than frozen memtable {@code m}, newest first. */
    List<MemtableRef> frozenNewerThan(MemtableRef m) {
        for (int i = 0; i < frozen.length; i++) {
            if (frozen[i] == m) {
                return List.of(frozen).subList(0, i);
            }
        }
        throw new IllegalArgumentException(m + " is not frozen in " + this);
    }

    /** The memtable just newer than frozen memtable {@code m}: the next frozen one, or the active one. */
    MemtableRef newerThan(MemtableRef m) {
        for (int i = frozen.length - 1; i >= 0; i--) {
            if (frozen[i] == m) {
                return i == 0 ? mem : frozen[i - 1];
            }
        }
        throw new IllegalArgumentException(m + " is not frozen in " + this);
    }

    /** The persistent version. */
    public Version version() {
        return version;
    }

    /** The value of {@code key} as of sequence {@code seq}, or null when absent or deleted. */
    public byte[] get(long seq, byte[] key) {
        return get(seq, key, false);
    }

    /**
     * {@link #get(long, byte[])} from memory only: memtables and cached blocks. Where it needs a
     * block the cache does not hold it throws {@link dev.remixdb.table.BlockNotCached} naming it,
     * having read nothing from the disk.
     */
    public byte[] getCached(long seq, byte[] key) {
        return get(seq, key, true);
    }

    private byte[] get(long seq, byte[] key, boolean cachedOnly) {
        for (int i = -1; i < frozen.length; i++) {
            Memtable t = (i < 0 ? mem : frozen[i]).memtable();
            long node = t.find(key, seq);
            if (node >= 0) {
                return t.isTombstone(node) || hidden(key, t.seq(node), seq) ? null : t.value(node);
            }
        }
        // Versions in tables are older than every range delete a memtable still holds.
        if (hidden(key, -1, seq)) {
            return null;
        }
        Partition p = version.partition(version.find(key));
        if (p.remix() == null) {
            return null;
        }
        try (RemixCursor c = p.remix().cursor(RemixCursor.Mode.LIVE)) {
            if (cachedOnly) {
                c.cachedOnly();
            }
            return c.get(key) ? c.valueBytes() : null;
        }
    }

    /**
     * Whether no write and no range delete reached {@code key} with a sequence number in
     * ({@code since}, {@code seq}], told from the memtables alone: a few point lookups. False also
     * when it cannot be told that way, because a memtable that took writes after {@code since} has
     * been compacted out of this state (each memtable takes every write from its start on until
     * the next one starts, and they leave the state oldest first).
     */
    public boolean unchangedSince(byte[] key, long since, long seq) {
        MemtableRef oldest = frozen.length == 0 ? mem : frozen[frozen.length - 1];
        if (oldest.startSeq() > since + 1) {
            return false;
        }
        for (int i = -1; i < frozen.length; i++) {
            Memtable t = (i < 0 ? mem : frozen[i]).memtable();
            long node = t.find(key, seq);
            if (node >= 0 && t.seq(node) > since) {
                return false;
            }
            RangeTombstone[] ranges = t.rangeTombstones();
            if (ranges.length > 0 && RangeTombstone.hides(ranges, MemorySegment.ofArray(key), 0, key.length, since,
                    seq)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a range delete of one of these memtables, visible at {@code readSeq}, hides version
     * {@code versionSeq} of {@code key} (-1 for a version in a table: older than them all).
     */
    private boolean hidden(byte[] key, long versionSeq, long readSeq) {
        for (int i = -1; i < frozen.length; i++) {
            RangeTombstone[] ranges = (i < 0 ? mem : frozen[i]).memtable().rangeTombstones();
            if (ranges.length > 0 && RangeTombstone.hides(ranges, MemorySegment.ofArray(key), 0, key.length,
                    versionSeq, readSeq)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected void free() {
        try {
            mem.release();
            for (MemtableRef f : frozen) {
                f.release();
            }
        } finally {
            try {
                version.release();
            } finally {
                onFree.run();
            }
        }
    }

    @Override
    public String toString() {
        return "read state[" + mem + ", frozen=" + List.of(frozen) + ", " + version + "]";
    }
}
