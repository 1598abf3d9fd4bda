package dev.remixdb;

/**
 * A snapshot of a store's counters, from {@link RemixDB#stats()}.
 *
 * @param keys              entries in tables and memtables (versions and tombstones included, so an
 *                          upper bound of the live keys)
 * @param diskBytes         bytes of every file the store holds (tables, REMIX files, WALs, manifest)
 * @param tables            table files in the current version
 * @param partitions        key-range partitions in the current version
 * @param userBytesWritten  key and value bytes of every put and delete since open
 * @param walBytesWritten   bytes appended to write-ahead logs since open
 * @param flushBytesWritten bytes of tables and REMIX files written by compaction since open (minor,
 *                          major and split alike: every flush of a memtable is a compaction here)
 * @param compactions       partition compactions since open, by kind: minor, major, split, abort
 * @param offHeapBytes      native memory in use: memtables, block cache, REMIX metadata, table metadata
 * @param blockCacheBytes   native memory held by the block cache
 * @param stallNanos        time writers spent waiting for compaction since open
 */
public record Stats(long keys, long diskBytes, int tables, int partitions, long userBytesWritten,
                    long walBytesWritten, long flushBytesWritten, Compactions compactions,
                    long offHeapBytes, long blockCacheBytes, long stallNanos) {

    /** Partition compactions since open, by kind. */
    public record Compactions(long minor, long major, long split, long abort) {}

    /**
     * Bytes written to disk per user byte: (WAL + tables + REMIX files + manifests) / user bytes;
     * 0 before any write.
     */
    public double writeAmplification() {
        return userBytesWritten == 0 ? 0 : (double) (walBytesWritten + flushBytesWritten) / userBytesWritten;
    }
}
