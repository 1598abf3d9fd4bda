package dev.remixdb.compaction;

import java.util.ArrayList;
import java.util.List;

/** Builds {@link PartitionStats} for tests in MiB, with 100-byte entries and 64 MiB tables. */
final class Stats {
    static final long MIB = 1 << 20;
    static final long TARGET = 64 * MIB;
    static final long ENTRY = 100;

    private final List<TableStats> tables = new ArrayList<>();
    private long newBytes;
    private long newTombstones;
    private long stale;
    private long tombstones;
    private long budget;

    /** Appends tables of the given sizes in MiB, as the newest runs. */
    Stats tables(long... mib) {
        for (long m : mib) {
            tables.add(new TableStats(m * MIB, m * MIB / ENTRY));
        }
        return this;
    }

    /** Appends {@code count} tables of {@code mib} MiB each. */
    Stats repeat(int count, long mib) {
        for (int i = 0; i < count; i++) {
            tables(mib);
        }
        return this;
    }

    Stats newMib(long mib) {
        return newBytes(mib * MIB);
    }

    Stats newBytes(long bytes) {
        this.newBytes = bytes;
        return this;
    }

    Stats newTombstones(long keys) {
        this.newTombstones = keys;
        return this;
    }

    Stats stale(long keys) {
        this.stale = keys;
        return this;
    }

    Stats tombstones(long keys) {
        this.tombstones = keys;
        return this;
    }

    Stats budget(long bytes) {
        this.budget = bytes;
        return this;
    }

    PartitionStats build() {
        long newKeys = (newBytes + ENTRY - 1) / ENTRY;
        return new PartitionStats(tables, newBytes, newKeys, newTombstones, stale, tombstones, budget, TARGET);
    }
}
