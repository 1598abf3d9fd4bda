package dev.remixdb.compaction;

/**
 * One table of a partition, as the policy sees it: its size on disk, its number of entries
 * (tombstones included), and whether it continues the sorted run of the table before it.
 *
 * <p>Every table is a run of the partition's REMIX, but tables written by one compaction (or by
 * flushes of ascending, disjoint key ranges, as in a sequential load) do not overlap: together they
 * are one sorted run in the LSM sense, the unit a leveled policy such as {@link GarneringPolicy}
 * places in a level.
 *
 * @param bytes      size of the table file in bytes, {@code >= 0}
 * @param keys       number of entries in the table (puts and tombstones), {@code >= 0}
 * @param extendsRun every key of this table is above every key of the previous (older) table of the
 *                   partition, so the two belong to one sorted run; false for the oldest table and
 *                   when unknown
 */
public record TableStats(long bytes, long keys, boolean extendsRun) {
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

    /**
     * A table that starts a sorted run of its own.
     *
     * @param bytes size of the table file in bytes, {@code >= 0}
     * @param keys  number of entries in the table, {@code >= 0}
     */
    public TableStats(long bytes, long keys) {
        this(bytes, keys, false);
    }
}
