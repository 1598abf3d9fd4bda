package dev.remixdb.cursor;

import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixCursor;
import dev.remixdb.table.BlockPrefetch;
import dev.remixdb.table.TableCursor;
import dev.remixdb.version.Partition;
import dev.remixdb.version.Version;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A sequence of partitions as one {@link Source}: a REMIX cursor walks one partition's sorted view
 * (REMIX §3.3: no key comparisons between runs), then the next partition's. With
 * {@link RemixCursor.Mode#LIVE} it yields what a user sees; with {@link RemixCursor.Mode#NEWEST}
 * tombstones too (compaction input).
 */
public final class VersionSource implements Source {
    private final List<Partition> partitions;
    private final RemixCursor.Mode mode;
    private final boolean scan;
    private int index = -1;
    private RemixCursor cursor;
    private ReadAhead readAhead;
    private BlockPrefetch prefetch;
    /** A step was taken since the last seek: the scan's read-ahead is done or not wanted. */
    private boolean stepped;

    public VersionSource(Version version, RemixCursor.Mode mode) {
        this(version.partitions(), mode, false);
    }

    /**
     * Over a version, for a user's cursor: when {@code readAhead} says so, a scan's first step
     * fetches the next block of every run at once ({@link RemixCursor#upcomingRuns}).
     */
    public VersionSource(Version version, RemixCursor.Mode mode, ReadAhead readAhead) {
        this(version.partitions(), mode, false);
        this.readAhead = readAhead;
    }

    /**
     * Over given partitions (contiguous, in key order); with {@code scan}, for one pass in key order
     * (a compaction), reading past the block cache ({@link RemixCursor#scanning()}).
     */
    public VersionSource(List<Partition> partitions, RemixCursor.Mode mode, boolean scan) {
        this.partitions = partitions;
        this.mode = mode;
        this.scan = scan;
    }

    @Override
    public void seekToFirst() {
        stepped = false;
        open(0);
        if (cursor != null) {
            cursor.seekToFirst();
        }
        skipEmpty();
    }

    @Override
    public void seek(MemorySegment key, long offset, int length) {
        stepped = false;
        reopen(Partition.find(partitions, key, offset, length));
        if (cursor != null) {
            cursor.seek(key, offset, length);
        }
        skipEmpty();
    }

    @Override
    public void seekToLast() {
        open(partitions.size() - 1);
        if (cursor != null) {
            cursor.seekToLast();
        }
        skipEmptyBackward();
    }

    @Override
    public void seekForPrev(MemorySegment key, long offset, int length) {
        reopen(Partition.find(partitions, key, offset, length));
        if (cursor != null) {
            cursor.seekForPrev(key, offset, length);
        }
        skipEmptyBackward();
    }

    @Override
    public void prev() {
        cursor.prev();
        skipEmptyBackward();
    }

    /** Moves on to the last entry of the preceding partitions while the current one is exhausted. */
    private void skipEmptyBackward() {
        while ((cursor == null || !cursor.isValid()) && index > 0) {
            open(index - 1);
            if (cursor != null) {
                cursor.seekToLast();
            }
        }
    }

    /** Positions on partition {@code i}: the open cursor when it is that partition's (a seek reuses it), else a new one. */
    private void reopen(int i) {
        if (cursor == null || i != index) {
            open(i);
        }
    }

    @Override
    public void seekPastEnd() {
        closeCursor();
        index = partitions.size();
    }

    @Override
    public void seekBeforeStart() {
        closeCursor();
        index = 0;
    }

    /** Opens a cursor on partition {@code i} (none when it has no tables). */
    private void open(int i) {
        closeCursor();
        index = i;
        if (i < partitions.size()) {
            Remix remix = partitions.get(i).remix();
            if (remix != null) {
                cursor = remix.cursor(mode);
                if (scan) {
                    cursor.scanning();
                }
            }
        }
    }

    /** Moves on to the first entry of the following partitions while the current one is exhausted. */
    private void skipEmpty() {
        while ((cursor == null || !cursor.isValid()) && index + 1 < partitions.size()) {
            open(index + 1);
            if (cursor != null) {
                cursor.seekToFirst();
            }
        }
    }

    @Override
    public boolean isValid() {
        return cursor != null && cursor.isValid();
    }

    @Override
    public void next() {
        if (!stepped) {
            stepped = true;
            if (readAhead != null && readAhead.worthIt()) {
                fetchAhead();
            }
        }
        cursor.next();
        skipEmpty();
    }

    /** The first step after a seek: this is a scan, so read the block it needs next in every run together. */
    private void fetchAhead() {
        if (prefetch == null) {
            prefetch = new BlockPrefetch();
        }
        cursor.upcomingRuns((run, keysAhead) -> {
            if (run instanceof TableCursor t) {
                t.prefetch(prefetch, keysAhead);
            }
        });
        readAhead.fetched(prefetch.run());
    }

    @Override
    public MemorySegment keySegment() {
        return cursor.keySegment();
    }

    @Override
    public long keyOffset() {
        return cursor.keyOffset();
    }

    @Override
    public int keyLength() {
        return cursor.keyLength();
    }

    @Override
    public boolean isTombstone() {
        // A LIVE cursor stops at live keys only; the user cursor asks at every step.
        return mode != RemixCursor.Mode.LIVE && cursor.isTombstone();
    }

    @Override
    public MemorySegment valueSegment() {
        return cursor.valueSegment();
    }

    @Override
    public long valueOffset() {
        return cursor.valueOffset();
    }

    @Override
    public int valueLength() {
        return cursor.valueLength();
    }

    private void closeCursor() {
        if (cursor != null) {
            if (mode == RemixCursor.Mode.LIVE && !scan) {
                // A user's cursor: tell the partition what its scans skip, for the compaction policy.
                partitions.get(index).recordScan(cursor.hiddenSlots(), cursor.visibleEntries());
            }
            cursor.close();
            cursor = null;
        }
    }

    @Override
    public void close() {
        closeCursor();
        index = partitions.size();
    }
}
