package dev.remixdb.engine;

import dev.remixdb.memtable.Memtable;
import dev.remixdb.remix.RemixCursor;
import dev.remixdb.version.Partition;
import dev.remixdb.version.RefCounted;
import dev.remixdb.version.Version;

/**
 * What a reader needs at one moment: the active memtable, the frozen one being compacted (or null),
 * and the persistent version. Readers retain the current state ({@link VersionSet#acquire()}) and
 * read all three without locks; a memtable switch or a compaction makes a new state. The last
 * release lets go of the parts, which free themselves when no other state holds them.
 */
public final class ReadState extends RefCounted {
    private final MemtableRef mem;
    private final MemtableRef imm;
    private final Version version;
    /** Told when this state is freed, so that closing the store can wait for its last reader. */
    private final Runnable onFree;

    /** Retains each part; the state holds them until its last release. */
    ReadState(MemtableRef mem, MemtableRef imm, Version version, Runnable onFree) {
        mem.retain();
        if (imm != null) {
            imm.retain();
        }
        version.retain();
        this.mem = mem;
        this.imm = imm;
        this.version = version;
        this.onFree = onFree;
    }

    /** The memtable that takes writes. */
    public MemtableRef mem() {
        return mem;
    }

    /** The frozen memtable being compacted, or null. */
    public MemtableRef imm() {
        return imm;
    }

    /** The persistent version. */
    public Version version() {
        return version;
    }

    /** The value of {@code key} as of sequence {@code seq}, or null when absent or deleted. */
    public byte[] get(long seq, byte[] key) {
        for (MemtableRef m = mem; m != null; m = m == mem ? imm : null) {
            Memtable t = m.memtable();
            long node = t.find(key, seq);
            if (node >= 0) {
                return t.isTombstone(node) ? null : t.value(node);
            }
        }
        Partition p = version.partition(version.find(key));
        if (p.remix() == null) {
            return null;
        }
        try (RemixCursor c = p.remix().cursor(RemixCursor.Mode.LIVE)) {
            return c.get(key) ? c.valueBytes() : null;
        }
    }

    @Override
    protected void free() {
        try {
            mem.release();
            if (imm != null) {
                imm.release();
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
        return "read state[" + mem + ", imm=" + imm + ", " + version + "]";
    }
}
