package dev.remixdb.compact;

import dev.remixdb.cursor.MemtableSource;
import dev.remixdb.cursor.Merger;
import dev.remixdb.engine.MemtableRef;
import dev.remixdb.engine.ReadState;
import dev.remixdb.memtable.Memtable;
import dev.remixdb.memtable.RangeTombstone;

import java.util.ArrayList;
import java.util.List;

/**
 * The frozen memtables one compaction round absorbs: the oldest frozen memtable and the newer frozen
 * ones waiting beside it, newest first (the order in which a merge ranks them).
 *
 * <p>Why more than one: when writers outrun compaction (a restore, an import), they fill every
 * frozen slot while a round runs. A round per memtable then pays a REMIX rebuild over all of a
 * partition's keys for each memtable; a round over all of them pays one, and writes each partition
 * one table instead of several (fewer runs for later reads). A round still never takes the active
 * memtable, and the group is always the oldest frozen memtables, so the WALs that only they need can
 * go once it is installed.
 */
final class FrozenGroup {
    /**
     * The most memtables one round takes (at most the frozen slots); 1 gives a round per memtable.
     * A system property for benchmarks' A/B runs; the store has no option for it.
     */
    private static final int MAX_PER_ROUND = Math.max(1, Integer.getInteger("remixdb.memtablesPerRound", 8));

    private final List<MemtableRef> newestFirst;

    private FrozenGroup(List<MemtableRef> newestFirst) {
        this.newestFirst = List.copyOf(newestFirst);
    }

    /** The oldest frozen memtables of {@code s} (it must hold one), at most {@link #MAX_PER_ROUND} of them. */
    static FrozenGroup oldestOf(ReadState s) {
        List<MemtableRef> frozen = s.frozen();
        if (frozen.isEmpty()) {
            throw new IllegalArgumentException("no frozen memtable in " + s);
        }
        int n = Math.min(frozen.size(), MAX_PER_ROUND);
        return new FrozenGroup(frozen.subList(frozen.size() - n, frozen.size()));
    }

    /** The members, newest first. */
    List<MemtableRef> members() {
        return newestFirst;
    }

    int size() {
        return newestFirst.size();
    }

    /** The newest member: every write before its WAL's end is in this group or older tables. */
    MemtableRef newest() {
        return newestFirst.getFirst();
    }

    /** Whether compaction must write all of the group to tables (one member asks for it). */
    boolean allToTables() {
        for (MemtableRef m : newestFirst) {
            if (m.allToTables()) {
                return true;
            }
        }
        return false;
    }

    /** Every member's range deletes. */
    RangeTombstone[] rangeTombstones() {
        List<RangeTombstone> all = new ArrayList<>();
        for (MemtableRef m : newestFirst) {
            all.addAll(List.of(m.memtable().rangeTombstones()));
        }
        return all.toArray(new RangeTombstone[0]);
    }

    /** The members' range deletes, one array per member, newest first. */
    RangeTombstone[][] rangesByMember() {
        RangeTombstone[][] ranges = new RangeTombstone[newestFirst.size()][];
        for (int i = 0; i < ranges.length; i++) {
            ranges[i] = newestFirst.get(i).memtable().rangeTombstones();
        }
        return ranges;
    }

    /** The members' memtables, newest first. */
    List<Memtable> memtables() {
        List<Memtable> out = new ArrayList<>(newestFirst.size());
        for (MemtableRef m : newestFirst) {
            out.add(m.memtable());
        }
        return out;
    }

    /**
     * A merge of the members' newest versions (tombstones flagged, range deletes not applied), not
     * positioned; the caller closes it.
     */
    Merger merger() {
        List<MemtableSource> sources = new ArrayList<>(newestFirst.size());
        for (MemtableRef m : newestFirst) {
            sources.add(new MemtableSource(m.memtable(), Long.MAX_VALUE, null));
        }
        return new Merger(sources);
    }

    @Override
    public String toString() {
        return newestFirst.size() == 1 ? newestFirst.getFirst().toString()
                : newestFirst.size() + " memtables " + newestFirst;
    }
}
