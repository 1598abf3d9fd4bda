package dev.remixdb.compaction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionStatsTest {

    @Test
    void totalsAndNewestSums() {
        PartitionStats p = new PartitionStats(
                List.of(new TableStats(100, 10), new TableStats(20, 2), new TableStats(3, 1)), 50, 5, 0, 0, 0, 0, 64);
        assertEquals(3, p.tableCount());
        assertEquals(123, p.tableBytes());
        assertEquals(13, p.tableKeys());
        assertEquals(0, p.newestBytes(0));
        assertEquals(23, p.newestBytes(2)); // the newest tables are at the end
        assertEquals(3, p.newestKeys(2));
        assertThrows(IllegalArgumentException.class, () -> p.newestBytes(4));
        assertThrows(IllegalArgumentException.class, () -> p.newestKeys(-1));
    }

    @Test
    void newTablesIsTheCeilingAndAtLeastOne() {
        assertEquals(1, withNewBytes(0).newTables());
        assertEquals(1, withNewBytes(64).newTables());
        assertEquals(2, withNewBytes(65).newTables());
        assertEquals(0, PartitionStats.tablesFor(0, 64));
        assertEquals(3, PartitionStats.tablesFor(129, 64));
    }

    private static PartitionStats withNewBytes(long bytes) {
        return new PartitionStats(List.of(), bytes, 1, 0, 0, 0, 0, 64);
    }

    @Test
    void tablesAreCopied() {
        List<TableStats> tables = new ArrayList<>(List.of(new TableStats(1, 1)));
        PartitionStats p = new PartitionStats(tables, 0, 0, 0, 0, 0, 0, 64);
        tables.add(new TableStats(2, 2));
        assertEquals(1, p.tableCount());
    }

    @Test
    void negativeCountsAndZeroTargetAreRejectedByName() {
        assertRejected("newBytes", -1, () -> new PartitionStats(List.of(), -1, 0, 0, 0, 0, 0, 64));
        assertRejected("newKeys", -2, () -> new PartitionStats(List.of(), 0, -2, 0, 0, 0, 0, 64));
        assertRejected("newTombstones", -3, () -> new PartitionStats(List.of(), 0, 0, -3, 0, 0, 0, 64));
        assertRejected("staleKeys", -4, () -> new PartitionStats(List.of(), 0, 0, 0, -4, 0, 0, 64));
        assertRejected("tombstoneKeys", -5, () -> new PartitionStats(List.of(), 0, 0, 0, 0, -5, 0, 64));
        assertRejected("abortBudgetBytes", -6, () -> new PartitionStats(List.of(), 0, 0, 0, 0, 0, -6, 64));
        assertRejected("tableTargetBytes", 0, () -> new PartitionStats(List.of(), 0, 0, 0, 0, 0, 0, 0));
        assertRejected("bytes", -7, () -> new TableStats(-7, 0));
        assertRejected("keys", -8, () -> new TableStats(0, -8));
        assertRejected("tables", 0, () -> CompactionPlan.major(0));
    }

    /** The message starts with the setting's name and ends with the offending value. */
    private static void assertRejected(String name, long value, Runnable r) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().startsWith(name + " must be") && e.getMessage().endsWith(": " + value),
                e.getMessage());
    }

    @Test
    void runTablesGroupTablesThatExtendTheRunBeforeThem() {
        // Oldest first: [a] [b c d] [e] [f g]; newest run first in the answer.
        List<TableStats> t = List.of(new TableStats(1, 1), new TableStats(1, 1), new TableStats(1, 1, true),
                new TableStats(1, 1, true), new TableStats(1, 1), new TableStats(1, 1), new TableStats(1, 1, true));
        PartitionStats p = new PartitionStats(t, 0, 0, 0, 0, 0, 0, 64);
        assertArrayEquals(new int[] {2, 1, 3, 1}, p.runTables());
        // The oldest table starts a run even if flagged.
        PartitionStats q = new PartitionStats(List.of(new TableStats(1, 1, true)), 0, 0, 0, 0, 0, 0, 64);
        assertArrayEquals(new int[] {1}, q.runTables());
        assertArrayEquals(new int[0], new PartitionStats(List.of(), 0, 0, 0, 0, 0, 0, 64).runTables());
    }
}
