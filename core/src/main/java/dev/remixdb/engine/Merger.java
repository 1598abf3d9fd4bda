package dev.remixdb.engine;

import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Merges a few sorted {@link Source}s into one: at each key, the source with the lowest index (the
 * newest data) wins and the others' versions of that key are passed over. Tombstones are yielded
 * (flagged) so the caller decides: a user cursor skips them, a compaction keeps or drops them.
 *
 * <p>With the handful of inputs it sees (memtables, a version, or the newest tables of one
 * partition), a linear scan for the smallest key beats a heap.
 */
final class Merger implements AutoCloseable {
    private final Source[] sources;
    private Source current;

    Merger(List<? extends Source> byPriority) {
        this.sources = byPriority.toArray(new Source[0]);
    }

    void seekToFirst() {
        for (Source s : sources) {
            s.seekToFirst();
        }
        pick();
    }

    void seek(MemorySegment key, long offset, int length) {
        for (Source s : sources) {
            s.seek(key, offset, length);
        }
        pick();
    }

    boolean isValid() {
        return current != null;
    }

    /** Advances every source sitting at the current key, then picks the next winner. */
    void next() {
        Source at = current;
        MemorySegment k = at.keySegment();
        long ko = at.keyOffset();
        int kl = at.keyLength();
        // Other sources are moved first: their keys are compared with the winner's key before the
        // winner moves, since moving it may invalidate the key's memory.
        for (Source s : sources) {
            if (s != at && s.isValid() && Keys.compare(s.keySegment(), s.keyOffset(), s.keyLength(), k, ko, kl) == 0) {
                s.next();
            }
        }
        at.next();
        pick();
    }

    /** Picks the winner again after the caller positioned the sources itself. */
    void repick() {
        pick();
    }

    private void pick() {
        Source best = null;
        for (Source s : sources) {
            if (s.isValid() && (best == null
                    || Keys.compare(s.keySegment(), s.keyOffset(), s.keyLength(),
                    best.keySegment(), best.keyOffset(), best.keyLength()) < 0)) {
                best = s;
            }
        }
        current = best;
    }

    Source current() {
        return current;
    }

    boolean isTombstone() {
        return current.isTombstone();
    }

    @Override
    public void close() {
        for (Source s : sources) {
            s.close();
        }
    }
}
