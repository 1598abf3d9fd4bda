package dev.remixdb.memtable;

import dev.remixdb.io.PageMemory;
import dev.remixdb.io.PreparedMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A hash index from a memtable's keys to the node of each key's newest version, so that a point
 * lookup costs one or two probes instead of a search of the ordered index, and a key the memtable
 * does not hold, the common case of an LSM read, is ruled out without touching an entry.
 *
 * <p>Open addressing with linear probing in native memory, slots of 16 bytes, native byte order:
 * <pre>
 * offset  size  field
 * 0       8     key hash, never 0 (0 = empty slot)
 * 8       8     node handle of the key's newest version
 * </pre>
 * One writer (the memtable's), lock-free readers: a new slot's node is stored before its hash is
 * published with a release store, and a reader loads the hash with acquire semantics, so it never
 * sees a hash without its node.
 *
 * <p>Growth without a pause: when the table is half full a table twice its size is published
 * (its memory mapped, so the kernel zeroes pages as they are first touched instead of a memset of
 * the whole table), new keys go into it, and every later put moves a few slots of the old table
 * over, so that the old one is empty of work well before the new one fills. Meanwhile readers probe
 * the new table first and the old one after it; a key moved over, or written again, is in the new
 * one with its newest node, so what the old one still holds of it is never the answer. A rehash of
 * millions of slots in one put would stop the writer for a tenth of a second. Old tables are freed
 * only with the index, at {@link #close()} (readers may still be probing them); their sizes sum to
 * less than the current table's. A table of a huge page or more is prepared in the background
 * ({@link PreparedMemory}) from when the current one is three eighths full, so that the writer does
 * not fault in tens of megabytes, a huge page every few puts, while it migrates.
 */
final class PointIndex implements AutoCloseable {
    private static final int SLOT = 16;
    private static final int INITIAL_SLOTS = 1 << 10;
    /** Old-table slots moved per put while a migration runs: done after an eighth of the old size in puts. */
    private static final int MIGRATE_PER_PUT = 8;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    /** A table readers probe; replaced whole when it grows. */
    private record Table(MemorySegment slots, long mask) {}

    private final Arena arena = Arena.ofShared();
    /** Where puts go, probed first. */
    private volatile Table table;
    /** The table being emptied into {@link #table}, probed second; null when none is. */
    private volatile Table old;
    /** The next slot of {@link #old} to move (writer only). */
    private long migrated;
    /** Keys in {@link #table} (writer only). */
    private long size;
    private volatile long reservedBytes;
    /** The next table's memory, being prepared; null when none is. */
    private PreparedMemory next;

    PointIndex() {
        table = allocate(INITIAL_SLOTS);
    }

    private Table allocate(long slotCount) {
        long bytes = slotCount * SLOT;
        MemorySegment slots;
        if (next != null && next.bytes() == bytes) {
            PreparedMemory prepared = next;
            next = null;  // first: should the take fail, the next growth allocates afresh
            slots = prepared.take();
        } else {
            reservedBytes += bytes;
            slots = PageMemory.allocate(arena, bytes);
        }
        return new Table(slots, slotCount - 1);
    }

    /**
     * Starts preparing the table that replaces {@code t} when it is worth it, not begun, and likely
     * needed: {@code t} grows at half full, which the memtable may never reach (a prepared table is
     * memory faulted in: tens of megabytes wasted when the memtable freezes first).
     */
    private void prepareNext(Table t, Memtable owner) {
        long bytes = (t.mask + 1) * 2 * SLOT;
        if (next == null && bytes >= PageMemory.HUGE_PAGE && PageMemory.mapping()
                && owner.mayReach(size, (t.mask + 1) / 2 + 1)) {
            next = PreparedMemory.prepare(arena, bytes);
            reservedBytes += bytes;
        }
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
        // The new table first: a writer publishes 'old' before the table that replaces it.
        Table t = table;
        Table o = old;
        long node = find(t, hash, owner, key, keyOff, keyLen);
        if (node == ChunkAllocator.NULL && o != null && o != t) {
            node = find(o, hash, owner, key, keyOff, keyLen);
        }
        return node;
    }

    private static long find(Table t, long hash, Memtable owner, MemorySegment key, long keyOff, int keyLen) {
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
     * with a larger seq (an aborted compaction puts older versions back). {@code newest}: the caller
     * knows that no version of the key has a larger seq (it is the largest seq the memtable has seen),
     * which spares a probe of a table being emptied. Writer only.
     */
    /**
     * Puts {@code node} as its key's version ({@code newest}: a seq above every one added). Returns
     * the node the current table held for the key before, or NULL when it held none (a key whose
     * entry still waits in the old table for migration counts as new there).
     */
    long put(long hash, long node, Memtable owner, boolean newest) {
        Table o = old;
        if (o != null) {
            migrate(owner);
        }
        if (o != null && !newest) {
            // The old table may hold a newer version of the key (this put may be an older version an
            // aborted compaction puts back): the new table, which readers ask first, must get that.
            long prior = lookup(o, hash, node, owner);
            if (prior != ChunkAllocator.NULL && owner.seq(prior) > owner.seq(node)) {
                node = prior;
            }
        }
        Table t = table;
        long prior = insert(t, hash, node, owner);
        if (prior == ChunkAllocator.NULL) {
            long filled = ++size * 8;
            if (filled > 3 * (t.mask + 1) && old == null) {
                if (filled > 4 * (t.mask + 1)) {
                    grow(t);
                } else {
                    prepareNext(t, owner);
                }
            }
        }
        return prior;
    }

    /** The node {@code t} holds for the key of {@code node}, or 0. Writer only. */
    private static long lookup(Table t, long hash, long node, Memtable owner) {
        MemorySegment slots = t.slots;
        for (long i = hash & t.mask; ; i = (i + 1) & t.mask) {
            long h = slots.get(ValueLayout.JAVA_LONG, i * SLOT);
            if (h == 0) {
                return ChunkAllocator.NULL;
            }
            if (h == hash) {
                long current = slots.get(ValueLayout.JAVA_LONG, i * SLOT + 8);
                if (owner.sameKey(current, node)) {
                    return current;
                }
            }
        }
    }

    /**
     * Puts (hash, node) into {@code t}, keeping the larger seq; returns the node {@code t} held for
     * the key before, or NULL when the key was new to {@code t}.
     */
    private static long insert(Table t, long hash, long node, Memtable owner) {
        MemorySegment slots = t.slots;
        for (long i = hash & t.mask; ; i = (i + 1) & t.mask) {
            long h = slots.get(ValueLayout.JAVA_LONG, i * SLOT);
            if (h == 0) {
                slots.set(ValueLayout.JAVA_LONG, i * SLOT + 8, node);
                WORD.setRelease(slots, i * SLOT, hash);
                return ChunkAllocator.NULL;
            }
            if (h == hash) {
                long current = slots.get(ValueLayout.JAVA_LONG, i * SLOT + 8);
                if (owner.sameKey(current, node)) {
                    if (owner.seq(node) > owner.seq(current)) {
                        WORD.setRelease(slots, i * SLOT + 8, node);
                    }
                    return current;
                }
            }
        }
    }

    /** Starts moving {@code full} into a table twice its size, which takes the puts from now on. */
    private void grow(Table full) {
        Table next = allocate((full.mask + 1) * 2);
        old = full;      // volatile, before the new table: a reader that sees the new table sees this
        migrated = 0;
        size = 0;
        table = next;
    }

    /** Moves a few slots of the old table into the current one; the last move retires the old table. */
    private void migrate(Memtable owner) {
        Table from = old;
        Table to = table;
        MemorySegment slots = from.slots;
        long end = Math.min(from.mask + 1, migrated + MIGRATE_PER_PUT);
        for (long i = migrated; i < end; i++) {
            long h = slots.get(ValueLayout.JAVA_LONG, i * SLOT);
            if (h != 0 && insert(to, h, slots.get(ValueLayout.JAVA_LONG, i * SLOT + 8), owner) == ChunkAllocator.NULL) {
                size++;
            }
        }
        migrated = end;
        if (end == from.mask + 1) {
            old = null;
        }
    }

    /** Frees every table. Idempotent; no reader may probe afterwards (they get IllegalStateException). */
    @Override
    public void close() {
        if (next != null) {
            next.cancel();
        }
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
