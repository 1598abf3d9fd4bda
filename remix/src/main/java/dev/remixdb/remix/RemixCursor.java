package dev.remixdb.remix;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An iterator over the sorted view of a {@link Remix} (REMIX §3.1-3.3). Not thread-safe.
 *
 * <p>The position is a slot (segment, slot in segment). Each run has its own {@link RunCursor},
 * positioned lazily: a run's cursor is placed (segment cursor offset + the count of that run's
 * selectors before the slot) only when its key is needed, and is then kept in step by
 * {@link #next()} and {@link #prev()}. Moving therefore never compares keys, and stale versions and
 * tombstones are skipped by their selector bits without reading them.
 *
 * <p>Seek: binary search over the anchors, then inside the segment. {@link Search#FULL} does a binary
 * search over the segment's slots (REMIX §3.2), and by default uses the keys left in the block it
 * just read to narrow the range before touching another run ("I/O optimization", §3.2);
 * {@link Search#PARTIAL} scans the segment linearly (the paper's "partial binary search").
 *
 * <p>Keys and values returned as segments are views of the runs' memory, valid until the cursor
 * moves or closes.
 */
public final class RemixCursor implements AutoCloseable {

    /** Which slots the cursor stops at. */
    public enum Mode {
        /** Every version, newest first within a key, tombstones included. */
        ALL_VERSIONS,
        /** The newest version of each key, tombstones included. */
        NEWEST,
        /** The newest version of each key that is not a tombstone: what a user sees. */
        LIVE
    }

    /** How a seek searches inside the target segment. */
    public enum Search {
        /** Binary search over the segment's slots (REMIX "full binary search"). */
        FULL,
        /** Linear scan of the segment from its anchor (REMIX "partial binary search"). */
        PARTIAL
    }

    private final Remix remix;
    private final Mode mode;
    private final Search search;
    private final SelectorCounter counter;
    /** The REMIX's segment records: selectors, tags and cursor offsets (see {@link Remix}). */
    private final MemorySegment records;
    private final boolean tags;
    private final int recordSize;
    private final int segmentSize;
    private final long segmentCount;
    private final RunCursor[] cursors;
    private final boolean[] live;
    private final SegmentSearch inSegment;
    private boolean tagSeek = true;
    private boolean closed;

    private long segment = -1;
    private int slot;
    private int selector;
    private long keyComparisons;
    /** Slots passed over because {@link #hidden(int)}: stale versions and, in LIVE mode, tombstones. */
    private long hiddenSlots;
    /** Entries the cursor stopped at after passing over hidden slots (each positioning and step). */
    private long visibleEntries;

    RemixCursor(Remix remix, Mode mode, Search search) {
        this.remix = remix;
        this.mode = mode;
        this.search = search;
        this.counter = SelectorCounters.get();
        this.records = remix.records();
        this.tags = remix.hasTags();
        this.recordSize = remix.recordSize();
        this.segmentSize = remix.segmentSize();
        this.segmentCount = remix.segmentCount();
        int runs = remix.runCount();
        // Run cursors are made on first use (SegmentSearch.cursor): a point lookup touches one or two
        // of a partition's runs, and making all of them was a tenth of a lookup's time.
        this.cursors = new RunCursor[runs];
        this.live = new boolean[runs];
        this.inSegment = new SegmentSearch(remix, counter, cursors);
    }

    /**
     * Makes the run cursors with {@link Run#newScanCursor()}: for a caller that reads once in key
     * order (a compaction), so that tables do not fill the block cache with what no one reads again.
     * Call before the cursor is first positioned.
     */
    public RemixCursor scanning() {
        inSegment.scan = true;
        return this;
    }

    /**
     * Makes the run cursors with {@link Run#newCachedCursor()}: a lookup then never reads the disk,
     * and fails with the run's exception where it would. Call before the cursor is first positioned.
     */
    public RemixCursor cachedOnly() {
        inSegment.cachedOnly = true;
        return this;
    }

    /**
     * Whether a full seek narrows the search with the other keys of the block it just read before
     * it reads another run (REMIX §3.2 "I/O optimization"). Default: true.
     */
    public RemixCursor sameBlockFirst(boolean enabled) {
        inSegment.sameBlockFirst = enabled;
        return this;
    }

    /**
     * Whether a full seek first looks for the key itself among the target segment's hash tags: an
     * existing key is then found with about one key comparison instead of a binary search (the C
     * RemixDB README lists this as a to-do); an absent key costs one tag match and about 0.12 extra
     * comparisons before the usual search. Needs a REMIX built with tags. Default: true.
     */
    public RemixCursor tagSeek(boolean enabled) {
        this.tagSeek = enabled;
        return this;
    }

    // ---------------------------------------------------------------- positioning

    /** Positions at the first key (per {@link Mode}). */
    public void seekToFirst() {
        begin();
        if (segmentCount == 0) {
            return;
        }
        moveTo(0, 0);
        skipForward();
    }

    /** Positions at the last key (per {@link Mode}). */
    public void seekToLast() {
        begin();
        if (segmentCount == 0) {
            return;
        }
        long last = segmentCount - 1;
        moveTo(last, remix.usedSlots(last, counter) - 1);
        skipBackward();
    }

    /** Positions at the first key {@code >= key}. */
    public void seek(byte[] key) {
        seek(MemorySegment.ofArray(key), 0, key.length);
    }

    /** Positions at the first key {@code >= key}. */
    public void seek(MemorySegment key) {
        seek(key, 0, Math.toIntExact(key.byteSize()));
    }

    /** Positions at the first key {@code >= key[off, off+len)}. */
    public void seek(MemorySegment key, long off, int len) {
        begin();
        if (segmentCount == 0) {
            return;
        }
        long s = remix.findSegment(key, off, len);
        if (search == Search.PARTIAL) {
            moveTo(s, 0);
            // Stale slots repeat the previous key, so only newest versions are compared.
            while (isValid() && segment == s && (Selectors.isStale(selector) || compareCurrent(key, off, len) < 0)) {
                rawNext();
            }
        } else {
            int used = remix.usedSlots(s, counter);
            if (tagSeek && tags && atTag(s, used, key, off, len)) {
                skipForward();
                return;
            }
            int at = inSegment.binarySearch(s, used, key, off, len);
            invalidateRuns();
            if (at < used) {
                moveTo(s, at);
                keepProbe(at);
            } else if (s + 1 < segmentCount) {
                // The key sorts after this segment's last key but before the next anchor.
                moveTo(s + 1, 0);
            } else {
                segment = segmentCount;
            }
        }
        skipForward();
    }

    /**
     * Positions at the last entry {@code <= key}: in {@link Mode#ALL_VERSIONS} that is the oldest
     * version of the key, since versions sort newest first.
     */
    public void seekForPrev(MemorySegment key, long off, int len) {
        seek(key, off, len);
        if (!isValid()) {
            seekToLast();
        } else if (compareCurrent(key, off, len) > 0) {
            prev0();
        } else if (mode == Mode.ALL_VERSIONS) {
            // A key's versions share one segment, so its stale slots follow within it.
            while (slot + 1 < segmentSize && Selectors.isStale(selectorAt(segment * recordSize + slot + 1))) {
                rawNext();
            }
        }
    }

    /** Positions at the last key {@code <= key}. */
    public void seekForPrev(byte[] key) {
        seekForPrev(MemorySegment.ofArray(key), 0, key.length);
    }

    /**
     * Point lookup: positions at {@code key}'s newest version and returns true when it exists (and,
     * in {@link Mode#LIVE}, is not a tombstone); otherwise the cursor becomes invalid and it returns
     * false. With tags, full keys are compared only on tag matches.
     */
    public boolean get(MemorySegment key, long off, int len) {
        begin();
        if (segmentCount == 0) {
            return false;
        }
        long s = remix.findSegment(key, off, len);
        int used = remix.usedSlots(s, counter);
        if (tags) {
            if (atTag(s, used, key, off, len)) {
                return found();
            }
            segment = segmentCount;
            return false;
        }
        int at = inSegment.binarySearch(s, used, key, off, len);
        invalidateRuns();
        if (at < used) {
            moveTo(s, at);
            keepProbe(at);
            if (compareCurrent(key, off, len) == 0) {
                return found();
            }
        }
        segment = segmentCount;
        return false;
    }

    /** Point lookup of a heap key; see {@link #get(MemorySegment, long, int)}. */
    public boolean get(byte[] key) {
        return get(MemorySegment.ofArray(key), 0, key.length);
    }

    /** Positions at the slot whose tag and key match, when there is one. */
    private boolean atTag(long s, int used, MemorySegment key, long off, int len) {
        int j = inSegment.findByTag(s, used, key, off, len);
        if (j < 0) {
            return false;
        }
        invalidateRuns();
        moveTo(s, j);
        live[Selectors.run(selector)] = true;  // the probe left that run's cursor exactly here
        return true;
    }

    private boolean found() {
        if (mode == Mode.LIVE && Selectors.isTombstone(selector)) {
            segment = segmentCount;
            return false;
        }
        return true;
    }

    /** Moves to the next key (per {@link Mode}). */
    public void next() {
        checkPositioned();
        rawNext();
        skipForward();
    }

    /** Moves to the previous key (per {@link Mode}), without comparing keys (REMIX §3.3). */
    public void prev() {
        checkPositioned();
        prev0();
    }

    private void prev0() {
        rawPrev();
        skipBackward();
    }

    // ---------------------------------------------------------------- current entry

    public boolean isValid() {
        return segment >= 0 && segment < segmentCount;
    }

    /** The current key as a view of the run's memory. */
    public MemorySegment key() {
        RunCursor c = current();
        return c.keySegment().asSlice(c.keyOffset(), c.keyLength());
    }

    /** The current key, copied. */
    public byte[] keyBytes() {
        RunCursor c = current();
        return c.keySegment().asSlice(c.keyOffset(), c.keyLength()).toArray(ValueLayout.JAVA_BYTE);
    }

    public int keyLength() {
        return current().keyLength();
    }

    /** The memory holding the current key (with {@link #keyOffset()}; no slice is made). */
    public MemorySegment keySegment() {
        return current().keySegment();
    }

    /** The offset of the current key in {@link #keySegment()}. */
    public long keyOffset() {
        return current().keyOffset();
    }

    /** Copies the key into {@code dst} at {@code off}; returns its length. */
    public int copyKey(MemorySegment dst, long off) {
        RunCursor c = current();
        int len = c.keyLength();
        MemorySegment.copy(c.keySegment(), c.keyOffset(), dst, off, len);
        return len;
    }

    /** The current value as a view of the run's memory (empty for a tombstone). */
    public MemorySegment value() {
        RunCursor c = current();
        return c.valueSegment().asSlice(c.valueOffset(), c.valueLength());
    }

    /** The current value, copied. */
    public byte[] valueBytes() {
        return value().toArray(ValueLayout.JAVA_BYTE);
    }

    public int valueLength() {
        return current().valueLength();
    }

    /** The memory holding the current value (with {@link #valueOffset()}; no slice is made). */
    public MemorySegment valueSegment() {
        return current().valueSegment();
    }

    /** The offset of the current value in {@link #valueSegment()}. */
    public long valueOffset() {
        return current().valueOffset();
    }

    /** Copies the value into {@code dst} at {@code off}; returns its length. */
    public int copyValue(MemorySegment dst, long off) {
        RunCursor c = current();
        int len = c.valueLength();
        MemorySegment.copy(c.valueSegment(), c.valueOffset(), dst, off, len);
        return len;
    }

    /**
     * Slots this cursor has passed over without stopping, for the compaction policy: stale versions
     * and, in {@link Mode#LIVE}, tombstones. Read from the selectors the walk reads anyway, so
     * counting costs an increment. Backward walks pass over a key's stale versions to reach its
     * newest one; those are not counted, so a backward scan counts only tombstones.
     */
    public long hiddenSlots() {
        return hiddenSlots;
    }

    /** Entries this cursor has stopped at after a seek or a step (with {@link #hiddenSlots()}, the scan's work). */
    public long visibleEntries() {
        return visibleEntries;
    }

    /** Whether the current version is a tombstone (from the selector; no key is read). */
    public boolean isTombstone() {
        checkPositioned();
        return Selectors.isTombstone(selector);
    }

    /** Whether the current version is an older version of its key (only in {@link Mode#ALL_VERSIONS}). */
    public boolean isStale() {
        checkPositioned();
        return Selectors.isStale(selector);
    }

    /** The id of the run holding the current version. */
    public int runId() {
        checkPositioned();
        return Selectors.run(selector);
    }

    /** Full key comparisons this cursor has made (for measuring search cost). */
    public long keyComparisons() {
        return keyComparisons + inSegment.comparisons();
    }

    long segmentIndex() {
        return segment;
    }

    int slotIndex() {
        return slot;
    }

    /** A run's cursor at its next key, and how many of the next slots are that run's. */
    @FunctionalInterface
    public interface RunAhead {
        void accept(RunCursor cursor, int keysAhead);
    }

    /**
     * Places every run's cursor at that run's next key at or after the current position and passes
     * it to {@code action} while it is at a key, with the number of that run's keys among the slots
     * from here to the end of the next segment: together the places, and how far in each run, a
     * forward scan from here reads next (REMIX paper §3.2: the sorted view knows them before any key
     * is read, so their blocks can be fetched at once). A run's next key is its cursor offset for the
     * segment advanced by the run's occurrences before the current slot, whether or not the run
     * occurs again in this segment. Costs a few selector counts per run; moves no position.
     */
    public void upcomingRuns(RunAhead action) {
        checkPositioned();
        long base = segment * recordSize;
        boolean nextSegment = segment + 1 < segmentCount;
        for (int r = 0; r < cursors.length; r++) {
            if (!live[r]) {
                inSegment.probe(segment, slot, r);
                live[r] = true;
            }
            RunCursor c = cursors[r];
            if (c.isValid()) {
                int ahead = counter.count(records, base + slot, segmentSize - slot, r);
                if (nextSegment) {
                    ahead += counter.count(records, base + recordSize, segmentSize, r);
                }
                action.accept(c, ahead);
            }
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            segment = -1;
            for (RunCursor c : cursors) {
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    // ---------------------------------------------------------------- internals

    private void begin() {
        if (closed) {
            throw new IllegalStateException("RemixCursor is closed");
        }
        remix.checkOpen();
        invalidateRuns();
        segment = segmentCount;
    }

    private void checkPositioned() {
        if (!remix.isOpen()) {
            throw new IllegalStateException("REMIX is closed");
        }
        if (!isValid()) {
            throw new IllegalStateException(closed ? "RemixCursor is closed" : "RemixCursor is not positioned at a key");
        }
    }

    private void invalidateRuns() {
        java.util.Arrays.fill(live, false);
    }

    private int selectorAt(long index) {
        return records.get(ValueLayout.JAVA_BYTE, index) & 0xFF;
    }

    private void moveTo(long s, int at) {
        segment = s;
        slot = at;
        selector = selectorAt(s * recordSize + at);
    }

    /**
     * The run cursor of the current slot, positioned on demand. Checks the position only: the moves
     * checked that the REMIX is open, and reading its records after a close fails in the JVM anyway.
     */
    private RunCursor current() {
        if (!isValid()) {
            throw new IllegalStateException(closed ? "RemixCursor is closed" : "RemixCursor is not positioned at a key");
        }
        int r = Selectors.run(selector);
        if (!live[r]) {
            inSegment.probe(segment, slot, r);
            live[r] = true;
        }
        return cursors[r];
    }

    private int compareCurrent(MemorySegment key, long off, int len) {
        keyComparisons++;
        return current().compareKey(key, off, len);
    }

    /** After a search that ended on {@code at}: when the probe left that run's cursor there, keep it. */
    private void keepProbe(int at) {
        int r = Selectors.run(selector);
        if (inSegment.leftCursorAt(r, at)) {
            live[r] = true;
        }
    }

    /** One slot forward, keeping live run cursors in step; placeholders end a segment. */
    private void rawNext() {
        int r = Selectors.run(selector);
        if (live[r]) {
            cursors[r].next();
        }
        if (++slot < segmentSize) {
            selector = selectorAt(segment * recordSize + slot);
            if (selector != Selectors.PLACEHOLDER) {
                return;
            }
        }
        if (++segment < segmentCount) {
            slot = 0;
            selector = selectorAt(segment * recordSize);
        }
    }

    /** One slot back, keeping live run cursors in step. */
    private void rawPrev() {
        if (--slot < 0) {
            if (--segment < 0) {
                return;
            }
            slot = segmentSize - 1;
            long base = segment * recordSize;
            while (selectorAt(base + slot) == Selectors.PLACEHOLDER) {
                slot--;
            }
        }
        selector = selectorAt(segment * recordSize + slot);
        int r = Selectors.run(selector);
        if (live[r]) {
            cursors[r].prev();
        }
    }

    private boolean hidden(int sel) {
        return (mode != Mode.ALL_VERSIONS && Selectors.isStale(sel))
                || (mode == Mode.LIVE && Selectors.isTombstone(sel));
    }

    private void skipForward() {
        while (isValid() && hidden(selector)) {
            hiddenSlots++;
            rawNext();
        }
        if (isValid()) {
            visibleEntries++;
        }
    }

    /** Backward, a key's newest version is its first slot: walk over its stale slots to reach it. */
    private void skipBackward() {
        while (isValid()) {
            if (mode != Mode.ALL_VERSIONS && Selectors.isStale(selector)) {
                rawPrev();
            } else if (mode == Mode.LIVE && Selectors.isTombstone(selector)) {
                hiddenSlots++;
                rawPrev();
            } else {
                visibleEntries++;
                return;
            }
        }
    }
}
