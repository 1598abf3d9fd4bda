package dev.remixdb;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The views a cursor hands out of its current entry ({@link Cursor#keyView()}), and their lifetime.
 * Not thread-safe: used inside the cursor's guarded calls, and by a close once no call runs.
 *
 * <p>All views of one entry share a confined arena, opened by the entry's first view and closed when
 * the cursor moves or closes; a view read after that throws {@link IllegalStateException} in the
 * JVM's own memory access check. Confined, because closing a shared arena costs a handshake with
 * every thread of the JVM, far too much once per step; a confined one costs two small objects. The
 * price is that only the thread that took an entry's views can end them: the cursor refuses to move
 * for another thread while they are open ({@link #end()}), and a close from another thread hands the
 * release to {@link StoreCursor}'s deferred path. Read from another thread, a view throws
 * {@link WrongThreadException}.
 *
 * <p>Zero copy: a view is the store's own memory (a cache slot, a memtable chunk, a table cursor's
 * buffer) given the arena's lifetime with {@link MemorySegment#reinterpret(Arena, java.util.function.Consumer)},
 * a restricted method. Where native access is disabled for this module, and for heap memory, the view
 * is instead a copy in the arena's own memory: slower, with the same lifetime rules.
 */
final class EntryViews {
    /** Whether views may alias the store's memory (restricted methods allowed for this module). */
    static final boolean ZERO_COPY = EntryViews.class.getModule().isNativeAccessEnabled()
            && !Boolean.getBoolean("remixdb.copyViews");

    private Arena arena;
    private Thread owner;
    /**
     * After {@link #detach()}: the arena of views that only their thread can end now. Held
     * strongly: a view holds the arena's scope but not the arena, so a weak reference could be
     * cleared while views live, and their thread could then no longer end them.
     */
    private Arena detached;

    /** A read-only view of {@code length} bytes of {@code from} at {@code offset}, valid until {@link #end()}. */
    MemorySegment view(MemorySegment from, long offset, int length) {
        Thread me = Thread.currentThread();
        if (arena == null) {
            arena = Arena.ofConfined();
            owner = me;
        } else if (owner != me) {
            throw otherThread();
        }
        if (ZERO_COPY && from.isNative()) {
            return from.asSlice(offset, length).reinterpret(arena, null).asReadOnly();
        }
        MemorySegment copy = arena.allocate(length, 1);
        MemorySegment.copy(from, ValueLayout.JAVA_BYTE, offset, copy, ValueLayout.JAVA_BYTE, 0, length);
        return copy.asReadOnly();
    }

    /**
     * Sets the open views aside for good (a close by another thread): no more views are handed
     * out, and only their thread can end them, with {@link #endDetached()}.
     */
    void detach() {
        detached = arena;
        arena = null;
    }

    /** On the views' thread after {@link #detach()}: ends them. Returns whether it did. */
    boolean endDetached() {
        if (detached == null || owner != Thread.currentThread()) {
            return false;
        }
        Arena a = detached;
        detached = null;
        owner = null;
        a.close();
        return true;
    }

    /** Whether views of the current entry are open. */
    boolean isOpen() {
        return arena != null;
    }

    /** Whether the calling thread may end the open views (it took them, or there are none). */
    boolean endableByCaller() {
        return arena == null || owner == Thread.currentThread();
    }

    /** Whether views are open and belong to the calling thread. */
    boolean openByCaller() {
        return arena != null && owner == Thread.currentThread();
    }

    /** The lifetime of the open views, for a cleaner to watch; null when none are open. */
    MemorySegment.Scope scope() {
        return arena == null ? null : arena.scope();
    }

    /**
     * Ends the current entry's views: reading them fails from now on. Only the thread that took them
     * can, since their arena is confined to it.
     *
     * @throws IllegalStateException when another thread holds them
     */
    void end() {
        Arena a = arena;
        if (a != null) {
            if (owner != Thread.currentThread()) {
                throw otherThread();
            }
            arena = null;
            owner = null;
            a.close();
        }
    }

    private IllegalStateException otherThread() {
        return new IllegalStateException("thread " + owner.getName() + " holds views of this cursor's current entry:"
                + " only it can take more, move the cursor or close it, until it moves the cursor");
    }
}
