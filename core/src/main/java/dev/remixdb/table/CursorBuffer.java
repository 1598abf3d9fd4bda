package dev.remixdb.table;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A cursor's own native buffer, for blocks that do not go through the cache (jumbo blocks, a scan
 * cursor's blocks) and their compressed form. Grows by doubling, replacing its arena; freed when the cursor closes. Shared
 * arenas, because a cursor may be handed from one thread to another; the cost of closing one (a
 * handshake) is paid only by scan cursors and cursors that met a jumbo block.
 */
final class CursorBuffer implements AutoCloseable {
    private static final long MIN = 64 * 1024;
    private Arena arena;
    private MemorySegment segment = MemorySegment.NULL;

    /** The first {@code size} bytes of the buffer; earlier results are invalid after a call that grows it. */
    MemorySegment get(long size) {
        if (size > segment.byteSize()) {
            long capacity = Math.max(MIN, Math.max(size, 2 * segment.byteSize()));
            Arena next = Arena.ofShared();
            MemorySegment grown;
            try {
                grown = next.allocate(capacity, 4096);
            } catch (RuntimeException | Error e) {
                next.close();
                throw e;
            }
            close();
            arena = next;
            segment = grown;
        }
        return segment.asSlice(0, size);
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
            arena = null;
            segment = MemorySegment.NULL;
        }
    }
}
