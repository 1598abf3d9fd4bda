package dev.remixdb;

import java.util.Locale;

/**
 * A snapshot of a store's counters, from {@link RemixDB#stats()}. The same figures are readable
 * live, one getter each, through {@link StatsMXBean} ({@link RemixDB#statsBean()}, and JMX when
 * {@link Options.Builder#jmx(boolean)} is on).
 *
 * @param keys              entries in tables and memtables (versions and tombstones included, so an
 *                          upper bound of the live keys)
 * @param diskBytes         bytes of the store's live files: the current version's tables and REMIX
 *                          files, the WALs and the MANIFEST (tables a compaction replaced but that
 *                          open snapshots or cursors still hold are on disk too, and not counted)
 * @param tables            table files in the current version
 * @param partitions        key-range partitions in the current version
 * @param userBytesWritten  key and value bytes of every put and delete since open
 * @param walBytesWritten   bytes appended to write-ahead logs since open
 * @param tableBytesWritten bytes of table and REMIX files written by compaction since open (minor,
 *                          major and split alike: every memtable reaches disk by a compaction here)
 * @param manifestBytesWritten bytes of the MANIFESTs written since open (one per installed version)
 * @param compactions       partition compactions since open, by kind: minor, major, split, abort,
 *                          idle (see {@link Compactions})
 * @param offHeapBytes      native memory in use: memtables, block cache, REMIX metadata, table metadata
 * @param blockCacheBytes   native memory held by the block cache
 * @param stallNanos        time writers stood still since open, waiting for compaction to make room
 *                          (every frozen memtable slot taken and the active memtable full)
 * @param slowdownNanos     time writers were slowed since open before it came to a stall: while
 *                          compaction is behind, writes are paced to last the compaction under way
 * @param frozenMemtables   full memtables waiting for (or in) compaction now
 * @param openSnapshots     snapshots not yet closed
 * @param leakedSnapshots   snapshots garbage-collected without being closed since open (each was
 *                          released then; a growing number points at a missing close())
 * @param openCursors       cursors not yet closed
 * @param leakedCursors     cursors garbage-collected without being closed since open (the store
 *                          closed each when it found it: at its next cursor, snapshot or stats call)
 * @param ioEngine          how table files are read: "io_uring" or "filechannel" ({@link IoEngine})
 * @param readAheadBlocks   blocks scans read into the block cache ahead of use since open, all runs'
 *                          next blocks in one batch when a scan starts (with io_uring, when blocks
 *                          are often missing from the cache)
 * @param scanSkipped       stale versions and tombstones in the current tables that cursors passed
 *                          over, summed over partitions, each since its tables last changed: the
 *                          compaction debt that reads pay for (what a merge of those partitions
 *                          would remove)
 * @param scanReturned      entries cursors returned from the current tables, counted the same way
 * @param tombstones        tombstones among {@code keys} (point deletes; range deletes not counted)
 * @param estimatedLiveKeys an estimate of the live keys: in each memtable, its keys whose newest
 *                          version there is a value, less those whose newest is a tombstone (which
 *                          usually hides a version below), overwritten versions in the same memtable
 *                          not counted; in tables, entries less their tombstones (a tombstone that
 *                          reached a table may hide nothing: its key's put was merged away with it).
 *                          A key with versions in several memtables or table runs counts once in each
 *                          until compaction merges them, a delete in a memtable of a key that does not
 *                          exist takes one off, and range deletes are not subtracted. At least 0.
 */
public record Stats(long keys, long diskBytes, int tables, int partitions, long userBytesWritten,
                    long walBytesWritten, long tableBytesWritten, long manifestBytesWritten, Compactions compactions,
                    long offHeapBytes, long blockCacheBytes, long stallNanos, long slowdownNanos, int frozenMemtables,
                    int openSnapshots, long leakedSnapshots, int openCursors, long leakedCursors, String ioEngine,
                    long readAheadBlocks, long scanSkipped, long scanReturned, long tombstones,
                    long estimatedLiveKeys) {

    /**
     * Partition compactions since open, by kind.
     *
     * @param minor         new data written as new tables of a partition
     * @param major         new data merged with a partition's newest tables
     * @param split         partitions merged whole and cut into new partitions
     * @param abort         new data kept in memory for a later round
     * @param idle          partitions merged whole with no new data, on the policy's request while
     *                      nothing waited for compaction (RangeReduce's merges of scanned debt)
     * @param optionalBytes bytes of the tables that optional work rewrote: idle merges and merges a
     *                      policy widened beyond its required plan (bounded by its budget)
     * @param rounds        compaction rounds that absorbed frozen memtables
     * @param memtables     frozen memtables those rounds absorbed: more than {@code rounds} when
     *                      writers outran compaction and a round took every waiting memtable at once
     */
    public record Compactions(long minor, long major, long split, long abort, long idle, long optionalBytes,
                              long rounds, long memtables) {}

    /**
     * Bytes written to disk per user byte: (WAL + tables + REMIX files + manifests) / user bytes;
     * 0 before any write.
     */
    public double writeAmplification() {
        return userBytesWritten == 0 ? 0
                : (double) (walBytesWritten + tableBytesWritten + manifestBytesWritten) / userBytesWritten;
    }

    /** One figure per line, sizes in readable units. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, """
                keys (upper bound)   %,d (%,d tombstones; about %,d live)
                disk                 %s in %d tables, %d partitions
                written              user %s, WAL %s, tables+REMIX %s, manifests %s (write amplification %.2f)
                compactions          %d minor, %d major, %d split, %d aborted, %d idle merges (%s optional); %d memtables in %d rounds
                off-heap memory      %s (block cache %s)
                write stalls         %.1f ms stopped, %.1f ms slowed; %d memtables frozen
                open                 %d snapshots (%d leaked so far), %d cursors (%d leaked so far)
                reads                through %s, %d blocks read ahead by scans
                scans of tables      %,d entries returned, %,d stale or deleted passed over""",
                keys, tombstones, estimatedLiveKeys, bytes(diskBytes), tables, partitions,
                bytes(userBytesWritten), bytes(walBytesWritten), bytes(tableBytesWritten), bytes(manifestBytesWritten),
                writeAmplification(),
                compactions.minor(), compactions.major(), compactions.split(), compactions.abort(),
                compactions.idle(), bytes(compactions.optionalBytes()), compactions.memtables(), compactions.rounds(),
                bytes(offHeapBytes), bytes(blockCacheBytes), stallNanos / 1e6, slowdownNanos / 1e6, frozenMemtables,
                openSnapshots, leakedSnapshots, openCursors, leakedCursors, ioEngine, readAheadBlocks, scanReturned, scanSkipped);
    }

    /** Bytes with a binary unit: "1.5 MiB". */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String units = "KMGTPE";
        int u = -1;
        double v = n;
        while (v >= 1024 && u < units.length() - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %ciB", v, units.charAt(u));
    }
}
