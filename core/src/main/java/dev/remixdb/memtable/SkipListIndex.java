package dev.remixdb.memtable;

import static dev.remixdb.memtable.ChunkAllocator.NULL;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A skip list over memtable entries, the memtable's first index: kept as the baseline of the JMH
 * comparison with {@link LeafTree} (bench/RESULTS.md), which replaced it because every hop below the
 * cached top levels is a dependent cache miss.
 *
 * <p>An entry's next pointers sit right below it, level h-1 first ... level 0 last, so that the
 * entry layout does not depend on its height: a reader only follows level i of a node it reached at
 * level i or above. Heights follow P(h &gt; k) = 4^-k. A node is written completely, then published
 * by release stores into its predecessors' next pointers, bottom level first; readers load next
 * pointers with acquire semantics.
 */
final class SkipListIndex implements OrderedIndex {
    static final int MAX_HEIGHT = 20;
    private static final VarHandle NEXT = ValueLayout.JAVA_LONG.varHandle();

    private final ChunkAllocator memory;
    private final Entries entries;
    private final long head;
    private final long[] preds = new long[MAX_HEIGHT];
    private volatile int levels = 1;
    private long random = 0x9E3779B97F4A7C15L;
    private int pendingHeight;

    SkipListIndex(ChunkAllocator memory, Entries entries) {
        this.memory = memory;
        this.entries = entries;
        this.head = memory.allocate(8L * MAX_HEIGHT + Entries.HEADER) + 8L * MAX_HEIGHT;
    }

    @Override
    public long allocate(long entryBytes) {
        pendingHeight = randomHeight();
        return memory.allocate(8L * pendingHeight + entryBytes) + 8L * pendingHeight;
    }

    @Override
    public long locate(MemorySegment key, long off, int len, long seq, boolean newest) {
        return ceiling(key, off, len, seq, preds);
    }

    @Override
    public void insert(long e, MemorySegment key, long off, int len, long seq) {
        int height = pendingHeight;
        int used = levels;
        for (int i = used; i < height; i++) {
            preds[i] = head;
        }
        MemorySegment seg = memory.segment(e);
        long at = ChunkAllocator.offset(e);
        // The node is private until the first release store below, so plain stores suffice here.
        for (int i = 0; i < height; i++) {
            seg.set(ValueLayout.JAVA_LONG, at - 8L * (i + 1), next(preds[i], i));
        }
        for (int i = 0; i < height; i++) {
            NEXT.setRelease(memory.segment(preds[i]), ChunkAllocator.offset(preds[i]) - 8L * (i + 1), e);
        }
        if (height > used) {
            levels = height;
        }
    }

    private int randomHeight() {
        long r = random;
        r ^= r << 13;
        r ^= r >>> 7;
        r ^= r << 17;
        random = r;
        int height = 1;
        while (height < MAX_HEIGHT && (r & 3) == 0) {
            height++;
            r >>>= 2;
        }
        return height;
    }

    private long next(long node, int level) {
        return (long) NEXT.getAcquire(memory.segment(node), ChunkAllocator.offset(node) - 8L * (level + 1));
    }

    /** The first node at or after (key, seq), or 0; with {@code preds}, the last node before it at every level. */
    private long ceiling(MemorySegment key, long off, int len, long seq, long[] preds) {
        long x = head;
        long n = NULL;
        for (int level = levels - 1; level >= 0; level--) {
            n = next(x, level);
            while (n != NULL && entries.compare(n, key, off, len, seq) < 0) {
                x = n;
                n = next(x, level);
            }
            if (preds != null) {
                preds[level] = x;
            }
        }
        return n;
    }

    /** The last node before (key, seq), or 0. */
    private long before(MemorySegment key, long off, int len, long seq) {
        long x = head;
        for (int level = levels - 1; level >= 0; level--) {
            long n = next(x, level);
            while (n != NULL && entries.compare(n, key, off, len, seq) < 0) {
                x = n;
                n = next(x, level);
            }
        }
        return x == head ? NULL : x;
    }

    private long lastNode() {
        long x = head;
        for (int level = levels - 1; level >= 0; level--) {
            long n = next(x, level);
            while (n != NULL) {
                x = n;
                n = next(x, level);
            }
        }
        return x == head ? NULL : x;
    }

    @Override
    public Position position() {
        return new Position() {
            private long node;

            @Override
            public long seekCeiling(MemorySegment key, long off, int len, long seq) {
                return node = ceiling(key, off, len, seq, null);
            }

            @Override
            public long seekBefore(MemorySegment key, long off, int len, long seq) {
                return node = before(key, off, len, seq);
            }

            @Override
            public long first() {
                return node = SkipListIndex.this.next(head, 0);
            }

            @Override
            public long last() {
                return node = lastNode();
            }

            @Override
            public long next() {
                return node = SkipListIndex.this.next(node, 0);
            }

            @Override
            public long prev() {
                long n = node;
                return node = before(entries.segment(n), entries.keyOffset(n), entries.keyLength(n), entries.seq(n));
            }
        };
    }
}
