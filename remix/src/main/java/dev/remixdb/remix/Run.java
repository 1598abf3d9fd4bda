package dev.remixdb.remix;

/**
 * A sorted run: the unit a REMIX indexes (a table file in {@code core/}, a {@link MemoryRun} in tests
 * and benchmarks).
 *
 * <p>A run holds keys in strictly increasing unsigned lexicographic order, each with a value or a
 * tombstone. Keys are grouped in blocks; a key is addressed by (block id, key index in block), packed
 * by {@link RunAddress}. The block structure ({@link #blockCount()}, {@link #keyCount(int)}) is
 * metadata that a run keeps in memory, so a REMIX can move addresses without reading any key.
 *
 * <p>A run is read-only and safe for concurrent use; each thread reads it through its own
 * {@link RunCursor}. The REMIX never closes a run: the run's owner does.
 */
public interface Run {

    /** Number of blocks; the address {@code RunAddress.of(blockCount(), 0)} is the end of the run. */
    int blockCount();

    /** Number of keys in block {@code block} (at least 1 for every block). */
    int keyCount(int block);

    /** Number of keys (values and tombstones) in the run. */
    long keyCount();

    /** A new cursor, initially not positioned ({@link RunCursor#isValid()} is false). */
    RunCursor newCursor();

    /**
     * A new cursor that reads only what the run holds in memory (a table: its cached blocks): where
     * it would have to read the disk, it throws an unchecked exception of the run's own and reads
     * nothing. For lookups that must not block, which fetch what is missing asynchronously and try
     * again. By default, {@link #newCursor()} (a run in memory never reads the disk).
     */
    default RunCursor newCachedCursor() {
        return newCursor();
    }

    /**
     * A new cursor for one pass in key order, such as a compaction's: the run need not keep what
     * this cursor reads for other readers (a table does not put its blocks in the block cache).
     * By default, {@link #newCursor()}.
     */
    default RunCursor newScanCursor() {
        return newCursor();
    }

    /**
     * Bytes of the compact copy of the keys (a table's keys block) that {@link #keySource()} reads
     * whole, or -1 when it reads the data blocks instead. A REMIX rebuild reads old runs' keys from
     * their keys blocks when they have them and the blocks are small enough to hold in memory.
     */
    default long keysBlockBytes() {
        return -1;
    }

    /**
     * The keys of this run in order, for a REMIX rebuild. A table with a compressed keys block reads
     * them from it, without touching data blocks; the default reads them through a cursor.
     */
    default KeySource keySource() {
        return KeySource.fromCursor(newCursor());
    }

    /** The address just past the last key. */
    default int endAddress() {
        return RunAddress.of(blockCount(), 0);
    }
}
