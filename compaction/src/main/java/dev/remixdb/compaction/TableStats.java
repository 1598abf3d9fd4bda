package dev.remixdb.compaction;

/**
 * One table (sorted run) of a partition, as the policy sees it: its size on disk and its number of
 * entries, tombstones included.
 *
 * @param bytes size of the table file in bytes, {@code >= 0}
 * @param keys  number of entries in the table (puts and tombstones), {@code >= 0}
 */
public record TableStats(long bytes, long keys) {
    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException if a count is negative
     */
    public TableStats {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0: " + bytes);
        }
        if (keys < 0) {
            throw new IllegalArgumentException("keys must be >= 0: " + keys);
        }
    }
}
