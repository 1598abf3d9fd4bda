package dev.remixdb.engine;

import dev.remixdb.version.RefCounted;
import dev.remixdb.version.Version;

/**
 * What a reader needs at one moment: the active memtable, the frozen one being compacted (or
 * null), and the persistent version. Readers take a reference to the current view and read all three
 * without locks; a writer switch or a compaction installs a new view.
 */
final class View extends RefCounted {
    final MemtableRef mem;
    final MemtableRef imm;
    final Version version;

    /** Retains each part; the view holds them until its last release. */
    View(MemtableRef mem, MemtableRef imm, Version version) {
        mem.retain();
        if (imm != null) {
            imm.retain();
        }
        version.retain();
        this.mem = mem;
        this.imm = imm;
        this.version = version;
    }

    @Override
    protected void free() {
        try {
            mem.release();
            if (imm != null) {
                imm.release();
            }
        } finally {
            version.release();
        }
    }

    @Override
    public String toString() {
        return "view[" + mem + ", imm=" + imm + ", " + version + "]";
    }
}
