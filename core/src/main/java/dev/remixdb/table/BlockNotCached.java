package dev.remixdb.table;

/**
 * Thrown by a cursor that may only read cached blocks ({@link Table#newCachedCursor()}) where it
 * needs a block the cache does not hold: it names the block, so that the caller can fetch it
 * asynchronously ({@link #addTo}) and try again. Carries no stack trace: it is control flow, as
 * common as a cache miss.
 */
public final class BlockNotCached extends RuntimeException {
    private final transient Table table;
    private final int block;

    BlockNotCached(Table table, int block) {
        super(table.path() + ": block " + block + " is not cached", null, false, false);
        this.table = table;
        this.block = block;
    }

    /** Adds the missing block to {@code batch}. */
    public void addTo(BlockPrefetch batch) {
        batch.add(table, block);
    }
}
