package dev.remixdb.version;

import dev.remixdb.remix.Keys;
import dev.remixdb.remix.Remix;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One key range of the store (REMIX §4): up to a few table files (runs, oldest first) and the REMIX
 * that indexes them as one sorted view. A partition covers [{@link #lower()}, next partition's lower).
 *
 * <p>A partition is immutable: compaction makes a new one. It is shared by every version that lists
 * it, holds a reference to each of its tables, and owns its REMIX (closed, and its file deleted when
 * obsolete, by the last release).
 */
public final class Partition extends RefCounted {
    private final byte[] lower;
    private final List<TableHandle> tables;
    private final Remix remix;
    private final long remixFile;
    private final Path remixPath;
    private volatile boolean obsolete;
    /** What scans of this partition passed over and returned (see {@link #recordScan}). */
    private final java.util.concurrent.atomic.LongAdder scanHidden = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder scanVisible = new java.util.concurrent.atomic.LongAdder();

    /**
     * Takes over {@code remix} and one new reference to each table (the caller retains them).
     *
     * @param remixPath the REMIX file, or null when there are no tables
     */
    public Partition(byte[] lower, List<TableHandle> tables, Remix remix, long remixFile, Path remixPath) {
        if ((remix == null) != tables.isEmpty()) {
            throw new IllegalArgumentException("a partition has a REMIX exactly when it has tables");
        }
        this.lower = lower.clone();
        this.tables = List.copyOf(tables);
        this.remix = remix;
        this.remixFile = remixFile;
        this.remixPath = remixPath;
    }

    /**
     * The index of the partition of {@code partitions} (in key order, the first starting at the
     * empty key) whose range holds {@code key[off, off+len)}.
     */
    public static int find(List<Partition> partitions, MemorySegment key, long off, int len) {
        int found = 0;
        for (int lo = 1, hi = partitions.size() - 1; lo <= hi; ) {
            int mid = (lo + hi) >>> 1;
            byte[] lower = partitions.get(mid).lower;
            if (Keys.compare(MemorySegment.ofArray(lower), 0, lower.length, key, off, len) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** An empty partition starting at {@code lower}. */
    public static Partition empty(byte[] lower) {
        return new Partition(lower, List.of(), null, 0, null);
    }

    /**
     * Adds what one user cursor did in this partition's REMIX: {@code hidden} slots passed over
     * (stale versions and tombstones) and {@code visible} entries returned. A partition is immutable
     * apart from these counts, which start at zero with every new partition (each compaction makes
     * one), so they describe the scans since the partition's tables last changed.
     */
    public void recordScan(long hidden, long visible) {
        if (hidden != 0) {
            scanHidden.add(hidden);
        }
        if (visible != 0) {
            scanVisible.add(visible);
        }
    }

    /**
     * The scan count ({@link #scanHidden()} + {@link #scanVisible()}) when the compactor last asked
     * the policy about merging this partition while idle and the answer was no: it asks again only
     * after more scans. Read and written by the compactor's thread only.
     */
    private long idleAskedAt = -1;

    /** {@return the scan count when the policy last declined an idle merge, -1 if never asked} */
    public long idleAskedAt() {
        return idleAskedAt;
    }

    /** Records that the policy declined an idle merge at scan count {@code scanned}. */
    public void idleAskedAt(long scanned) {
        this.idleAskedAt = scanned;
    }

    /** {@return stale versions and tombstones that scans passed over, since the partition was made} */
    public long scanHidden() {
        return scanHidden.sum();
    }

    /** {@return entries that scans returned from this partition's tables, since the partition was made} */
    public long scanVisible() {
        return scanVisible.sum();
    }

    /** The smallest key of the range (the empty key for the first partition). Do not modify. */
    public byte[] lower() {
        return lower;
    }

    /** The tables, oldest first; run i of the REMIX is table i. */
    public List<TableHandle> tables() {
        return tables;
    }


    /** The REMIX over the tables, or null when the partition has none. */
    public Remix remix() {
        return remix;
    }

    /** The REMIX file's number, 0 when there is none. */
    public long remixFile() {
        return remixFile;
    }

    public long tableBytes() {
        long sum = 0;
        for (TableHandle t : tables) {
            sum += t.table().fileBytes();
        }
        return sum;
    }

    public long keyCount() {
        long sum = 0;
        for (TableHandle t : tables) {
            sum += t.table().keyCount();
        }
        return sum;
    }

    /** Tombstones among {@link #keyCount()}. */
    public long tombstoneCount() {
        long sum = 0;
        for (TableHandle t : tables) {
            sum += t.table().tombstoneCount();
        }
        return sum;
    }

    /** Native memory of the REMIX and the tables' metadata. */
    public long memoryBytes() {
        long sum = remix == null ? 0 : remix.memoryBytes();
        for (TableHandle t : tables) {
            sum += t.table().memoryBytes();
        }
        return sum;
    }

    /** Disk bytes of the tables and the REMIX file. */
    public long diskBytes() {
        long sum = tableBytes();
        if (remixPath != null) {
            try {
                sum += Files.size(remixPath);
            } catch (IOException e) {
                // Only a statistic: a file deleted under us by another tool is reported as 0.
            }
        }
        return sum;
    }

    /** This partition's REMIX file is deleted once no version uses it any more. */
    public void markObsolete() {
        obsolete = true;
    }

    @Override
    protected void free() {
        // The REMIX refers to the tables' runs: close it before the tables can close.
        if (remix != null) {
            remix.close();
        }
        if (obsolete && remixPath != null) {
            try {
                Files.deleteIfExists(remixPath);
            } catch (IOException e) {
                // As for tables (TableHandle.free): garbage that the next open deletes.
                System.getLogger(Partition.class.getName()).log(System.Logger.Level.WARNING,
                        "cannot delete obsolete REMIX " + remixPath + "; the next open will", e);
            }
        }
        releaseAll(tables, null);
    }

    @Override
    public String toString() {
        return "partition[lower=" + Keys.toString(lower) + ", tables=" + tables.size() + "]";
    }
}
