package dev.remixdb.remix;

import dev.remixdb.util.NativeBuffer;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Rebuilds a REMIX when new runs arrive (REMIX §4.3, and the C RemixDB's CKB optimisation): the old
 * REMIX is already one sorted run, so the new REMIX is a two-way merge of the old sorted view with
 * the new keys.
 *
 * <ul>
 * <li>New keys come from the new runs' {@link KeySource}s (a table's compressed keys block).</li>
 * <li>Old slots are copied by selector and tag, without reading their keys. Old keys are read only
 *     to find where a new key goes — whole old segments are passed by comparing the new key with
 *     the old anchors, then a binary search inside one segment reads about log2(D) keys — and as the
 *     first and previous keys of a new segment's anchor, unless the old anchor can be reused.</li>
 * <li>Where the old keys come from: when the new keys are many for the old segments (they will land
 *     in most of them) and every old run has a keys block, from the keys blocks, as long as those fit
 *     in {@link #MAX_KEYS_BLOCK_BYTES}; otherwise through the runs' data blocks, which for a few new
 *     keys reads less. From the keys blocks the merge is <em>sequential</em>: each old run's keys are
 *     decoded once, in order, and the old key at the merge position is always the current key of its
 *     run's key source, so the search inside a segment is a linear walk that compares keys where
 *     they were decoded, without copying them or seeking back (a prefix-compressed keys block can
 *     only be read forwards). A key is copied only when a new segment starts after it.</li>
 * <li>The packing is the same greedy packing as {@link RemixBuilder}, so the result is identical to
 *     a fresh build over all runs.</li>
 * </ul>
 */
final class RemixRebuilder {
    private final Remix old;
    private final RebuildStats stats;
    private final SelectorCounter counter = SelectorCounters.get();
    private final int oldRuns;
    private final int segmentSize;
    private final long oldSegments;
    private final RunCursor[] oldCursors;
    private final SegmentPacker packer;
    private final int[] addresses;
    private final NativeBuffer prevKey = NativeBuffer.confined(256);
    private final boolean tags;
    /**
     * Sequential mode: the old runs' key sources (keys blocks). Each shows the key of its run's first
     * slot not yet copied, except the runs of {@link #pending}, which still show the key of the
     * last old group copied. Null: old keys are read through {@link #oldCursors} (null when these are set).
     */
    private final KeySource[] oldSources;
    /** Sequential mode: whether each old source has a current key (false once it is exhausted). */
    private final boolean[] oldSourceHasKey;
    /** Sequential mode: bit r set when old run r is in the last old group copied and not advanced since. */
    private long pending;
    /** Sequential mode: whether {@link #prevKey} holds the key before the merge position. */
    private boolean prevInBuffer;
    private NewKeys fresh;

    // The old key read last (readOld).
    private MemorySegment oldKey;
    private long oldKeyOffset;
    private int oldKeyLength;

    // Next old slot to emit: (oldSeg, oldSlot); oldUsed = used slots of oldSeg.
    private long oldSeg;
    private int oldSlot;
    private int oldUsed;

    // The key before the next segment start: either the old group at (prevSeg, prevSlot) or prevKey.
    private boolean prevIsOld;
    private long prevSeg;
    private int prevSlot;

    /**
     * Old keys come from the keys blocks once there is at least one new key per this many old
     * segments. A segment placed through the data blocks costs a few 4 KiB block reads; through the
     * keys blocks every old key is decoded, a few bytes each, D keys per segment: the keys blocks read
     * less as soon as about one segment in a hundred receives a new key.
     */
    static final int SEGMENTS_PER_NEW_KEY = 64;
    /**
     * Most bytes of old keys blocks a rebuild reads into memory; past it, old keys are read through
     * the data blocks. With 16-byte keys that is about 13M keys (5 bytes each); with long keys the
     * keys blocks approach the tables' size, and the data blocks cost little more.
     */
    static final long MAX_KEYS_BLOCK_BYTES = 64L << 20;

    private RemixRebuilder(Remix old, int totalRuns, long newKeys, Boolean fromKeysBlocks, RebuildStats stats) {
        this.old = old;
        this.stats = stats;
        this.oldRuns = old.runCount();
        this.segmentSize = old.segmentSize();
        this.oldSegments = old.segmentCount();
        this.tags = old.hasTags();
        boolean useKeys = fromKeysBlocks != null ? fromKeysBlocks
                : oldSegments > 0 && newKeys * SEGMENTS_PER_NEW_KEY >= oldSegments && keysBlocksFit(old.runs());
        this.oldSources = useKeys ? new KeySource[oldRuns] : null;
        this.oldSourceHasKey = useKeys ? new boolean[oldRuns] : null;
        // Through the data blocks the rebuild reads the old runs once, in key order: past the block
        // cache, so that it does not push out the blocks readers use.
        this.oldCursors = useKeys ? null : new RunCursor[oldRuns];
        for (int r = 0; !useKeys && r < oldRuns; r++) {
            oldCursors[r] = old.run(r).newScanCursor();
        }
        this.packer = new SegmentPacker(totalRuns, new RemixConfig(segmentSize, tags));
        this.addresses = new int[totalRuns];
    }

    /** Sequential mode: opens the old runs' key sources, each on its first key. */
    private void openOldSources() {
        prevInBuffer = true;  // empty: no key before the first one
        for (int r = 0; r < oldRuns; r++) {
            oldSources[r] = old.run(r).keySource();
            advanceOld(r);
        }
    }

    /** Sequential mode: moves old run r's source to its next key. */
    private void advanceOld(int r) {
        oldSourceHasKey[r] = oldSources[r].next();
        if (oldSourceHasKey[r]) {
            stats.oldKeysRead++;
            stats.oldKeysFromKeysBlocks++;
        }
    }

    /**
     * Whether every old run has a keys block and together they fit in {@link #MAX_KEYS_BLOCK_BYTES}:
     * a rebuild holds each one it reads in memory until it ends.
     */
    static boolean keysBlocksFit(List<? extends Run> runs) {
        long total = 0;
        for (Run run : runs) {
            long bytes = run.keysBlockBytes();
            if (bytes < 0) {
                return false;
            }
            total += bytes;
        }
        return total <= MAX_KEYS_BLOCK_BYTES;
    }

    static Remix rebuild(Remix old, List<? extends Run> newRuns, RebuildStats stats) {
        return rebuild(old, newRuns, stats, null);
    }

    /**
     * As {@link #rebuild(Remix, List, RebuildStats)}; {@code fromKeysBlocks} forces where old keys
     * are read (true: key sources, false: data blocks), null chooses (tests force both ways).
     */
    static Remix rebuild(Remix old, List<? extends Run> newRuns, RebuildStats stats, Boolean fromKeysBlocks) {
        old.checkOpen();
        List<Run> all = new ArrayList<>(old.runs());
        all.addAll(newRuns);
        SegmentPacker.checkRunCount(all.size(), new RemixConfig(old.segmentSize(), old.hasTags()));
        long newKeys = 0;
        for (Run r : newRuns) {
            newKeys += r.keyCount();
        }
        RemixRebuilder b = new RemixRebuilder(old, all.size(), newKeys, fromKeysBlocks, stats);
        try (NewKeys fresh = new NewKeys(newRuns, old.runCount(), stats)) {
            return b.merge(fresh, all);
        } finally {
            b.close();
        }
    }

    private Remix merge(NewKeys newKeys, List<Run> all) {
        fresh = newKeys;
        if (oldSources != null) {
            openOldSources();
        }
        oldSeg = 0;
        oldSlot = 0;
        oldUsed = oldSegments > 0 ? old.usedSlots(0, counter) : 0;
        while (fresh.next()) {
            MemorySegment key = fresh.key();
            int klen = fresh.keyLength();
            boolean equal = oldSources != null ? emitOldBeforeSequential(key, klen) : emitOldBefore(key, klen);
            int oldGroup = equal ? oldGroupSize() : 0;
            int versions = fresh.versions();
            if (packer.free() < versions + oldGroup) {
                collectAddresses();
                MemorySegment prev = resolvePrev();
                packer.startSegment(prev, 0, (int) prevKey.size(), key, 0, klen, addresses);
            }
            byte tag = tags ? Keys.tag(key, 0, klen) : 0;
            for (int i = 0; i < versions; i++) {
                packer.add(fresh.selector(i) | (i > 0 ? Selectors.STALE : 0), tag);
            }
            if (equal) {
                // The old versions of this key become stale behind the new ones, in the same segment.
                copyOldGroup(oldGroup, Selectors.STALE);
            }
            prevKey.truncate(0);
            prevKey.put(key, 0, klen);
            prevIsOld = false;
            prevInBuffer = true;
        }
        while (oldSeg < oldSegments) {
            emitOldGroup();
        }
        if (oldSources != null) {
            checkOldSourcesEnd();
        }
        return packer.finish(all);
    }

    /**
     * Sequential mode: emits the old groups whose keys are {@code < key}; returns whether the next old
     * group has exactly {@code key}. Whole segments before the one whose anchor is the last at or
     * before {@code key} are passed without a comparison; inside that segment the old groups are
     * compared one by one, as their keys come out of the key sources.
     */
    private boolean emitOldBeforeSequential(MemorySegment key, int klen) {
        if (!emitSegmentsBefore(key, klen)) {
            return false;
        }
        long target = oldSeg;
        while (oldSeg == target) {
            readCurrentOld();
            stats.keyComparisons++;
            int cmp = Keys.compare(oldKey, oldKeyOffset, oldKeyLength, key, 0, klen);
            if (cmp >= 0) {
                return cmp == 0;
            }
            emitOldGroup();
        }
        // Off the target segment: the next old key is >= the next anchor > key.
        return false;
    }

    /** Sequential mode: makes the old key at the merge position current ({@link #oldKey}). */
    private void readCurrentOld() {
        int r = Selectors.run(oldSelector(oldSeg, oldSlot));
        long bit = 1L << r;
        if ((pending & bit) != 0) {
            if (!prevInBuffer) {
                // The source still shows the key before the merge position: a segment may start here.
                KeySource s = oldSources[r];
                prevKey.truncate(0);
                prevKey.put(s.keySegment(), s.keyOffset(), s.keyLength());
                prevInBuffer = true;
            }
            pending &= ~bit;
            advanceOld(r);
        }
        if (!oldSourceHasKey[r]) {
            throw new IllegalStateException("old run " + r + " has fewer keys than the REMIX being rebuilt lists"
                    + " (segment " + oldSeg + ", slot " + oldSlot + ")");
        }
        KeySource s = oldSources[r];
        oldKey = s.keySegment();
        oldKeyOffset = s.keyOffset();
        oldKeyLength = s.keyLength();
    }

    /** Sequential mode, when a group is copied: the runs still on the previous group move on. */
    private void advancePending() {
        for (long p = pending; p != 0; p &= p - 1) {
            advanceOld(Long.numberOfTrailingZeros(p));
        }
        pending = 0;
    }

    /** Sequential mode, at the end: every old key was met, and no run holds more. */
    private void checkOldSourcesEnd() {
        advancePending();
        for (int r = 0; r < oldRuns; r++) {
            if (oldSourceHasKey[r]) {
                throw new IllegalStateException("old run " + r + " has more keys than the REMIX being rebuilt lists");
            }
        }
    }

    /**
     * Emits the old groups whose keys are {@code < key}; returns whether the next old group has
     * exactly {@code key}.
     */
    private boolean emitOldBefore(MemorySegment key, int klen) {
        if (!emitSegmentsBefore(key, klen)) {
            return false;
        }
        // Binary search inside the target segment, from the current slot.
        int lo = oldSlot;
        int hi = oldUsed;
        boolean equalAtHi = false;
        while (lo < hi) {
            int m = (lo + hi) >>> 1;
            readOld(oldSeg, m);
            stats.keyComparisons++;
            int cmp = Keys.compare(oldKey, oldKeyOffset, oldKeyLength, key, 0, klen);
            if (cmp < 0) {
                lo = m + 1;
            } else {
                hi = m;
                equalAtHi = cmp == 0;
            }
        }
        long seg = oldSeg;
        while (oldSeg == seg && oldSlot < lo) {
            emitOldGroup();
        }
        // When the search ran off the segment, the next old key is >= the next anchor > key.
        return oldSeg == seg && lo < oldUsed && equalAtHi;
    }

    /**
     * Emits the old groups of the segments before the last old segment whose anchor is
     * {@code <= key} (every slot there is {@code < key}); false when no old slot is left.
     */
    private boolean emitSegmentsBefore(MemorySegment key, int klen) {
        if (oldSeg >= oldSegments) {
            return false;
        }
        long target = lastSegmentAtOrBefore(key, klen);
        while (oldSeg < target) {
            emitOldGroup();
        }
        return true;
    }

    private long lastSegmentAtOrBefore(MemorySegment key, int klen) {
        long lo = oldSeg;
        long hi = oldSegments - 1;
        // Gallop first: consecutive new keys usually land in the same or a nearby old segment.
        long step = 1;
        while (lo + step <= hi && anchorAtOrBefore(lo + step, key, klen)) {
            lo += step;
            step <<= 1;
        }
        hi = Math.min(hi, lo + step - 1);
        while (lo < hi) {
            long mid = (lo + hi + 1) >>> 1;
            if (anchorAtOrBefore(mid, key, klen)) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    private boolean anchorAtOrBefore(long segment, MemorySegment key, int klen) {
        return Keys.compare(old.anchorBytes(), old.anchorStart(segment), old.anchorLength(segment), key, 0, klen) <= 0;
    }

    private int oldSelector(long seg, int slot) {
        return old.selector(seg, slot);
    }

    /** Slots of the old group at the current position: its newest version and the stale ones after it. */
    private int oldGroupSize() {
        int g = 1;
        while (oldSlot + g < oldUsed && Selectors.isStale(oldSelector(oldSeg, oldSlot + g))) {
            g++;
        }
        return g;
    }

    private void emitOldGroup() {
        int g = oldGroupSize();
        if (packer.free() < g) {
            collectAddresses();
            if (oldSlot == 0 && prevIsOld) {
                // Same first key and same previous key as the old segment: its anchor still holds.
                packer.startSegment(old.anchorBytes(), old.anchorStart(oldSeg), old.anchorLength(oldSeg), addresses);
            } else {
                resolvePrev();
                if (oldSources != null) {
                    readCurrentOld();
                } else {
                    readOld(oldSeg, oldSlot);
                }
                packer.startSegment(prevKey.segment(), 0, (int) prevKey.size(),
                        oldKey, oldKeyOffset, oldKeyLength, addresses);
            }
        }
        prevIsOld = true;
        prevSeg = oldSeg;
        prevSlot = oldSlot;
        copyOldGroup(g, 0);
    }

    /** Copies {@code g} old slots at the current position, OR-ing {@code extraBits} into each selector. */
    private void copyOldGroup(int g, int extraBits) {
        if (oldSources != null) {
            // The group's key becomes the one before the merge position; each of its slots is the
            // current key of its run (the runs of the previous group move on first).
            advancePending();
            for (int i = 0; i < g; i++) {
                pending |= 1L << Selectors.run(old.selector(oldSeg, oldSlot + i));
            }
            prevInBuffer = false;
        }
        for (int i = 0; i < g; i++) {
            byte tag = tags ? old.tag(oldSeg, oldSlot + i) : 0;
            packer.add(old.selector(oldSeg, oldSlot + i) | extraBits, tag);
        }
        stats.oldSlotsReused += g;
        oldSlot += g;
        if (oldSlot >= oldUsed) {
            oldSeg++;
            oldSlot = 0;
            oldUsed = oldSeg < oldSegments ? old.usedSlots(oldSeg, counter) : 0;
        }
    }

    /** Makes {@link #prevKey} hold the key before the next segment start, reading it if it is old. */
    private MemorySegment resolvePrev() {
        if (oldSources != null) {
            if (!prevInBuffer) {
                KeySource s = oldSources[Long.numberOfTrailingZeros(pending)];
                prevKey.truncate(0);
                prevKey.put(s.keySegment(), s.keyOffset(), s.keyLength());
                prevInBuffer = true;
            }
            return prevKey.segment();
        }
        if (prevIsOld) {
            readOld(prevSeg, prevSlot);
            prevKey.truncate(0);
            prevKey.put(oldKey, oldKeyOffset, oldKeyLength);
            prevIsOld = false;
        }
        return prevKey.segment();
    }

    /** Every run's address of its first key at or after the current merge position. */
    private void collectAddresses() {
        for (int r = 0; r < oldRuns; r++) {
            Run run = old.run(r);
            if (oldSeg >= oldSegments) {
                addresses[r] = run.endAddress();
            } else {
                int k = counter.count(old.records(), old.selectorsAt(oldSeg), oldSlot, r);
                int base = old.cursorOffset(oldSeg, r);
                addresses[r] = k == 0 ? base : RunAddress.advance(run, base, k);
            }
        }
        fresh.addresses(addresses);
    }

    /** Reads the old key at (seg, slot) into {@link #oldKey}, {@link #oldKeyOffset}, {@link #oldKeyLength}. */
    private void readOld(long seg, int slot) {
        int r = Selectors.run(oldSelector(seg, slot));
        int k = counter.count(old.records(), old.selectorsAt(seg), slot, r);
        stats.oldKeysRead++;
        RunCursor c = oldCursors[r];
        c.seekTo(old.cursorOffset(seg, r));
        if (k > 0) {
            c.skip(k);
        }
        oldKey = c.keySegment();
        oldKeyOffset = c.keyOffset();
        oldKeyLength = c.keyLength();
    }

    private void close() {
        if (oldSources != null) {
            for (KeySource s : oldSources) {
                if (s != null) {
                    s.close();
                }
            }
        }
        if (oldCursors != null) {
            for (RunCursor c : oldCursors) {
                c.close();
            }
        }
        packer.close();
        prevKey.close();
    }

    /**
     * The new runs' keys merged into groups (one key, its versions newest first), read from their
     * key sources. The number of new runs is small, so the smallest key is found by a linear scan.
     */
    private static final class NewKeys implements AutoCloseable {
        private final List<? extends Run> runs;
        private final int firstId;
        private final KeySource[] sources;
        private final boolean[] has;
        private final int[] nextAddress;
        private final int[] group;
        private final int[] groupSelectors;
        private final NativeBuffer key = NativeBuffer.confined(256);
        private final RebuildStats stats;
        private int versions;

        NewKeys(List<? extends Run> runs, int firstId, RebuildStats stats) {
            this.runs = runs;
            this.firstId = firstId;
            this.stats = stats;
            int m = runs.size();
            sources = new KeySource[m];
            has = new boolean[m];
            nextAddress = new int[m];
            group = new int[m];
            groupSelectors = new int[m];
            try {
                for (int j = 0; j < m; j++) {
                    sources[j] = runs.get(j).keySource();
                    nextAddress[j] = RunAddress.of(0, 0);
                    advance(j);
                }
            } catch (RuntimeException | Error e) {
                close();
                throw e;
            }
        }

        private void advance(int j) {
            has[j] = sources[j].next();
            if (has[j]) {
                stats.newKeysRead++;
            }
        }

        /** Moves to the next group; false when every new run is exhausted. */
        boolean next() {
            // Consume the previous group first.
            for (int i = 0; i < versions; i++) {
                int j = group[i];
                nextAddress[j] = RunAddress.advance(runs.get(j), nextAddress[j], 1);
                advance(j);
                if (has[j] && compareWithKey(j) <= 0) {
                    throw new IllegalArgumentException("new run " + (firstId + j) + " is not strictly increasing");
                }
            }
            versions = 0;
            int min = -1;
            for (int j = sources.length - 1; j >= 0; j--) {
                if (!has[j]) {
                    continue;
                }
                int c = min < 0 ? -1 : compare(j, min);
                if (c < 0) {
                    min = j;
                    versions = 0;
                    group[versions++] = j;
                } else if (c == 0) {
                    group[versions++] = j;
                }
            }
            if (min < 0) {
                return false;
            }
            KeySource s = sources[min];
            key.truncate(0);
            key.put(s.keySegment(), s.keyOffset(), s.keyLength());
            for (int i = 0; i < versions; i++) {
                int j = group[i];
                groupSelectors[i] = (firstId + j) | (sources[j].isTombstone() ? Selectors.TOMBSTONE : 0);
            }
            return true;
        }

        private int compare(int a, int b) {
            KeySource x = sources[a];
            KeySource y = sources[b];
            stats.keyComparisons++;
            return Keys.compare(x.keySegment(), x.keyOffset(), x.keyLength(), y.keySegment(), y.keyOffset(), y.keyLength());
        }

        private int compareWithKey(int j) {
            KeySource x = sources[j];
            return Keys.compare(x.keySegment(), x.keyOffset(), x.keyLength(), key.segment(), 0, (int) key.size());
        }

        MemorySegment key() {
            return key.segment();
        }

        int keyLength() {
            return (int) key.size();
        }

        int versions() {
            return versions;
        }

        /** Selector (run id and tombstone bit) of version {@code i}, newest first. */
        int selector(int i) {
            return groupSelectors[i];
        }

        /** Writes the new runs' next-key addresses into {@code out[firstId..]}. */
        void addresses(int[] out) {
            System.arraycopy(nextAddress, 0, out, firstId, nextAddress.length);
        }

        @Override
        public void close() {
            for (KeySource s : sources) {
                if (s != null) {
                    s.close();
                }
            }
            key.close();
        }
    }
}
