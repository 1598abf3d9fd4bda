package dev.remixdb.cache;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * One holder's pin in the checking mode of {@link BlockPin}: the block's memory seen through a
 * segment bound to an arena of this pin alone, which {@link #release()} closes, so that any later
 * read through it fails in the JVM instead of reading another block. The cache closes it too when
 * it closes, since the memory behind it goes then.
 */
final class CheckedPin implements BlockPin {
    private final CachedBlock block;
    private final Set<CheckedPin> live;
    private final Arena scope = Arena.ofShared();
    private final MemorySegment segment;
    private boolean released;
    private boolean invalid;

    CheckedPin(CachedBlock block, Set<CheckedPin> live) {
        this.block = block;
        this.live = live;
        // Same address and size; only the lifetime is this pin's. The memory stays the cache's.
        this.segment = block.segment().reinterpret(scope, null);
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public synchronized void release() {
        if (released) {
            throw new IllegalStateException(block + " released twice by the same holder");
        }
        released = true;
        live.remove(this);
        invalidate();
        block.release();
    }

    /** Makes the segment unreadable (at release, or when the cache closes). */
    synchronized void invalidate() {
        if (!invalid) {
            invalid = true;
            scope.close();
        }
    }

    @Override
    public String toString() {
        return "pin of " + block + (released ? " (released)" : "");
    }
}
