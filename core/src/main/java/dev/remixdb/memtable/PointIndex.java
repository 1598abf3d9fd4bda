package dev.remixdb.memtable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A hash index from a memtable's keys to the node of each key's newest version, so that a point
 * lookup costs one or two probes instead of a skip-list descent (a cache miss per level), and a key
 * the memtable does not hold, the common case of an LSM read, is ruled out without touching a node.
 *
 * <p>Open addressing with linear probing in native memory, slots of 16 bytes, native byte order:
 * <pre>
 * offset  size  field
 * 0       8     key hash, never 0 (0 = empty slot)
 * 8       8     node handle of the key's newest version
 * </pre>
 * The table doubles when half full. One writer (the memtable's), lock-free readers: a new slot's
 * node is stored before its hash is published with a release store, and a reader loads the hash
 * with acquire semantics, so it never sees a hash without its node. A grown table is filled
 * completely before it is published; readers that still probe the old one see the state of the
 * moment they started, which is all a lookup that overlaps a write may see. Old tables are
 * therefore freed only with the index, at {@link #close()}: their sizes sum to less than the
 * current table's.
 */
final class PointIndex implements AutoCloseable {
    private static final int SLOT = 16;
    private static final int INITIAL_SLOTS = 1 << 10;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    /** The table readers probe; replaced whole when it grows. */
    private record Table(MemorySegment slots, long mask) {}

    private final Arena arena = Arena.ofShared();
    private volatile Table table;
    private long size;
    private volatile long reservedBytes;

    PointIndex() {
        table = allocate(INITIAL_SLOTS);
    }

    private Table allocate(long slotCount) {
        reservedBytes += slotCount * SLOT;
        return new Table(arena.allocate(slotCount * SLOT, 8), slotCount - 1);
    }

    /** A hash never 0, so that 0 can mark an empty slot. */
    static long nonZero(long hash) {
        return hash == 0 ? 1 : hash;
    }

    /** Native bytes of every table allocated so far. */
    long reservedBytes() {
        return reservedBytes;
    }

    /**
     * The node of the newest version of the key whose hash is {@code hash}, or
     * {@link ChunkAllocator#NULL} when the index does not hold the key. Readers.
     */
    long find(long hash, Memtable owner, MemorySegment key, long keyOff, int keyLen) {
        Table t = table;
        MemorySegment slots = t.slots;
        for (long i = hash & t.mask; ; i = (i + 1) & t.mask) {
            long h = (long) WORD.getAcquire(slots, i * SLOT);
            if (h == 0) {
                return ChunkAllocator.NULL;
            }
            if (h == hash) {
                long node = (long) WORD.getAcquire(slots, i * SLOT + 8);
                if (owner.keyEquals(node, key, keyOff, keyLen)) {
                    return node;
                }
            }
        }
    }

    /**
     * Records {@code node} as the newest version of its key unless the index already holds a version
     * with a larger seq (an aborted compaction puts older versions back). Writer only.
     */
    void put(long hash, long node, Memtable owner) {
        Table t = table;
        MemorySegment slots = t.slots;
        for (long i = hash & t.mask; ; i = (i + 1) & t.mask) {
            long h = slots.get(ValueLayout.JAVA_LONG, i * SLOT);
            if (h == 0) {
                slots.set(ValueLayout.JAVA_LONG, i * SLOT + 8, node);
                WORD.setRelease(slots, i * SLOT, hash);
                if (++size * 2 > t.mask + 1) {
                    grow(t);
                }
                return;
            }
            if (h == hash) {
                long old = slots.get(ValueLayout.JAVA_LONG, i * SLOT + 8);
                if (owner.sameKey(old, node)) {
                    if (owner.seq(node) > owner.seq(old)) {
                        WORD.setRelease(slots, i * SLOT + 8, node);
                    }
                    return;
                }
            }
        }
    }

    private void grow(Table old) {
        Table t = allocate((old.mask + 1) * 2);
        for (long i = 0; i <= old.mask; i++) {
            long h = old.slots.get(ValueLayout.JAVA_LONG, i * SLOT);
            if (h != 0) {
                long j = h & t.mask;
                while (t.slots.get(ValueLayout.JAVA_LONG, j * SLOT) != 0) {
                    j = (j + 1) & t.mask;
                }
                t.slots.set(ValueLayout.JAVA_LONG, j * SLOT, h);
                t.slots.set(ValueLayout.JAVA_LONG, j * SLOT + 8, old.slots.get(ValueLayout.JAVA_LONG, i * SLOT + 8));
            }
        }
        table = t;  // volatile: every slot store above happens-before a reader's use of t
    }

    /** Frees every table. Idempotent; no reader may probe afterwards (they get IllegalStateException). */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
