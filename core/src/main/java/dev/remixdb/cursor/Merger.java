package dev.remixdb.cursor;

import dev.remixdb.memtable.RangeTombstone;
import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Merges a few sorted {@link Source}s into one: at each key, the source with the lowest index (the
 * newest data) wins and the others' versions of that key are passed over. Tombstones are yielded
 * (flagged) so the caller decides: a user cursor skips them, a compaction keeps or drops them.
 *
 * <p>It moves both ways. Moving forwards, every valid source sits at or after the current key;
 * moving backwards, at or before it. A change of direction first re-positions the other sources on
 * the far side of the current key, as every merging iterator must; within a source the step itself
 * (a REMIX's sorted view, a memtable) compares no keys.
 *
 * <p>With the handful of inputs it sees (memtables, a version, or the newest tables of one
 * partition), a linear scan for the winner beats a heap.
 *
 * <p>A forward step usually costs at most one key comparison: after each full pick the merger
 * remembers the runner-up (the least key among the other sources) and whether it lies strictly
 * ahead of the winner. While it does, the other sources hold nothing at or before the winner's key,
 * so a step moves the winner alone and compares its new key with the runner-up's; when no other
 * source has a key left (an empty memtable, or one whose keys all lie behind the scan) a step
 * compares nothing. A tie or an overtaking falls back to the full step. A backward step does the
 * same with the greatest key among the other sources.
 */
public final class Merger implements AutoCloseable {
    private final Source[] sources;
    private Source current;
    private boolean backwards;
    /**
     * The other source nearest the winner in the direction of travel (forwards: the least key among
     * the others; backwards: the greatest), or null when none is valid.
     */
    private Source runnerUp;
    /**
     * {@link #runnerUp}'s key lies strictly beyond the winner's in the direction of travel (greater
     * forwards, less backwards), so no other source sits at the winner's key.
     */
    private boolean runnerUpAhead;

    /** The range deletes the merged view honours, indexed; null when there are none (usually). */
    private final RangeIndex ranges;
    /** Set by {@link #hiddenByRange()}: the piece of {@link #ranges} hiding the current entry. */
    private int hidingPiece;

    public Merger(List<? extends Source> byPriority) {
        this(byPriority, null, Long.MAX_VALUE);
    }

    /**
     * A merger whose entries hidden by a range delete visible at {@code readSeq} count as
     * tombstones: a user cursor skips them, a compaction that drops tombstones drops them.
     *
     * @param rangesBySource the range deletes each source holds (a memtable's), aligned with
     *                       {@code byPriority}; null when there are none
     */
    public Merger(List<? extends Source> byPriority, RangeTombstone[][] rangesBySource, long readSeq) {
        this.sources = byPriority.toArray(new Source[0]);
        if (rangesBySource != null && rangesBySource.length != sources.length) {
            throw new IllegalArgumentException(rangesBySource.length + " range lists for " + sources.length + " sources");
        }
        this.ranges = rangesBySource == null ? null : RangeIndex.of(rangesBySource, readSeq);
    }

    public void seekToFirst() {
        for (Source s : sources) {
            s.seekToFirst();
        }
        pickSmallest();
    }

    public void seek(MemorySegment key, long offset, int length) {
        for (Source s : sources) {
            s.seek(key, offset, length);
        }
        pickSmallest();
    }

    public void seekToLast() {
        for (Source s : sources) {
            s.seekToLast();
        }
        pickLargest();
    }

    /** Positions at the last key {@code <= key}. */
    public void seekForPrev(MemorySegment key, long offset, int length) {
        for (Source s : sources) {
            s.seekForPrev(key, offset, length);
        }
        pickLargest();
    }

    public boolean isValid() {
        return current != null;
    }

    /** Advances every source sitting at the current key, then picks the next winner. */
    public void next() {
        Source at = current;
        if (!backwards && (runnerUp == null || runnerUpAhead)) {
            // Nothing else at this key: only the winner moves.
            at.next();
            if (runnerUp == null) {
                current = at.isValid() ? at : null;
                return;
            }
            if (at.isValid() && compare(at, runnerUp) < 0) {
                return;
            }
            pickSmallest();
            return;
        }
        MemorySegment k = at.keySegment();
        long ko = at.keyOffset();
        int kl = at.keyLength();
        // Other sources move first: their keys are compared with the winner's key before the
        // winner moves, since moving it may invalidate the key's memory.
        for (Source s : sources) {
            if (s == at) {
                continue;
            }
            if (backwards) {
                // They sit before the key (or nowhere): put them after it.
                s.seek(k, ko, kl);
            }
            if (s.isValid() && compare(s, k, ko, kl) == 0) {
                s.next();
            }
        }
        at.next();
        pickSmallest();
    }

    /** Moves every source sitting at the current key back, then picks the previous winner. */
    public void prev() {
        Source at = current;
        if (backwards && (runnerUp == null || runnerUpAhead)) {
            // Nothing else at this key: only the winner moves (next()'s shortcut, mirrored).
            at.prev();
            if (runnerUp == null) {
                current = at.isValid() ? at : null;
                return;
            }
            if (at.isValid() && compare(at, runnerUp) > 0) {
                return;
            }
            pickLargest();
            return;
        }
        MemorySegment k = at.keySegment();
        long ko = at.keyOffset();
        int kl = at.keyLength();
        for (Source s : sources) {
            if (s == at) {
                continue;
            }
            if (!backwards) {
                // They sit after the key (or nowhere): put them at or before it.
                s.seekForPrev(k, ko, kl);
            }
            if (s.isValid() && compare(s, k, ko, kl) == 0) {
                s.prev();
            }
        }
        at.prev();
        pickLargest();
    }

    /** Picks the winner again after the caller positioned the sources itself (forwards). */
    public void repick() {
        pickSmallest();
    }

    private void pickSmallest() {
        backwards = false;
        Source best = null;
        Source second = null;
        for (Source s : sources) {
            if (!s.isValid()) {
                continue;
            }
            if (best == null) {
                best = s;
            } else if (compare(s, best) < 0) {
                second = best;  // best held the least key so far among the rest
                best = s;
            } else if (second == null || compare(s, second) < 0) {
                second = s;
            }
        }
        current = best;
        runnerUp = second;
        runnerUpAhead = second != null && compare(second, best) > 0;
    }

    private void pickLargest() {
        backwards = true;
        Source best = null;
        Source second = null;
        for (Source s : sources) {
            if (!s.isValid()) {
                continue;
            }
            // Strictly larger: among equal keys the newest source (lowest index) wins.
            if (best == null) {
                best = s;
            } else if (compare(s, best) > 0) {
                second = best;  // best held the greatest key so far among the rest
                best = s;
            } else if (second == null || compare(s, second) > 0) {
                second = s;
            }
        }
        current = best;
        runnerUp = second;
        runnerUpAhead = second != null && compare(second, best) < 0;
    }

    private static int compare(Source a, Source b) {
        return Keys.compare(a.keySegment(), a.keyOffset(), a.keyLength(), b.keySegment(), b.keyOffset(), b.keyLength());
    }

    private static int compare(Source a, MemorySegment k, long ko, int kl) {
        return Keys.compare(a.keySegment(), a.keyOffset(), a.keyLength(), k, ko, kl);
    }

    public Source current() {
        return current;
    }

    /** Whether the current entry is a delete, or a version a range delete hides. */
    public boolean isTombstone() {
        return current.isTombstone() || (ranges != null && hiddenByRange());
    }

    /**
     * Whether a range delete newer than the current entry covers its key; if so its piece is noted
     * for {@link #skipHiddenForwards()}.
     */
    private boolean hiddenByRange() {
        Source c = current;
        int p = ranges.piece(c.keySegment(), c.keyOffset(), c.keyLength());
        if (ranges.hides(p, c.seq())) {
            hidingPiece = p;
            return true;
        }
        return false;
    }

    /**
     * Moving forwards from an entry a range delete hides: every source older than the one holding
     * that range delete (older memtables and the tables, whose versions there are all older than it,
     * so all hidden) jumps past the covered piece with one seek, the others step past the current
     * key. So a seek into a deleted range costs a few seeks, not a walk over every deleted key.
     * Returns false, having done nothing, when the current entry is not hidden by a range or the
     * merger is moving backwards; the caller then steps with {@link #next()}.
     */
    public boolean skipHiddenForwards() {
        if (backwards || ranges == null || current == null || !hiddenByRange()) {
            return false;
        }
        int holder = ranges.holder(hidingPiece);
        byte[] end = ranges.end(hidingPiece);
        Source at = current;
        byte[] key = at.keySegment().asSlice(at.keyOffset(), at.keyLength()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        MemorySegment k = MemorySegment.ofArray(key);
        for (int i = 0; i < sources.length; i++) {
            Source s = sources[i];
            if (!s.isValid()) {
                continue;
            }
            if (i > holder) {
                // Only a source still inside the piece moves (a seek may cost a block's read).
                if (end == null) {
                    s.seekPastEnd();
                } else if (compare(s, MemorySegment.ofArray(end), 0, end.length) < 0) {
                    s.seek(MemorySegment.ofArray(end), 0, end.length);
                }
            } else if (compare(s, k, 0, key.length) == 0) {
                s.next();
            }
        }
        pickSmallest();
        return true;
    }

    /** {@link #skipHiddenForwards()} moving backwards: older sources jump before the covered piece. */
    public boolean skipHiddenBackwards() {
        if (!backwards || ranges == null || current == null || !hiddenByRange()) {
            return false;
        }
        int holder = ranges.holder(hidingPiece);
        byte[] start = ranges.start(hidingPiece);
        MemorySegment from = MemorySegment.ofArray(start);
        Source at = current;
        byte[] key = at.keySegment().asSlice(at.keyOffset(), at.keyLength()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        MemorySegment k = MemorySegment.ofArray(key);
        for (int i = 0; i < sources.length; i++) {
            Source s = sources[i];
            if (!s.isValid()) {
                continue;
            }
            if (i > holder) {
                if (compare(s, from, 0, start.length) < 0) {
                    continue;  // already before the piece
                }
                s.seekForPrev(from, 0, start.length);
                // The piece's first key is covered too: go before it.
                if (s.isValid() && compare(s, from, 0, start.length) == 0) {
                    s.prev();
                }
            } else if (compare(s, k, 0, key.length) == 0) {
                s.prev();
            }
        }
        pickLargest();
        return true;
    }

    @Override
    public void close() {
        for (Source s : sources) {
            s.close();
        }
    }
}
