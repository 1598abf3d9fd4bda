package dev.remixdb.engine;

import dev.remixdb.files.StoreDirectory;
import dev.remixdb.version.Partition;
import dev.remixdb.version.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link VersionSet}'s limit on frozen memtables with the block cache's room: memtables beyond
 * {@code maxFrozen} freeze while their memory fits the room, never more than
 * {@link VersionSet#MAX_FROZEN}; and a freeze the write queue's head decided on still happens when
 * the room shrank meanwhile (the WAL has already been switched by then).
 */
class FrozenLimitTest {
    @TempDir
    Path dir;

    private static MemtableRef memtable(long number) {
        MemtableRef m = VersionSet.newMemtable(number);
        m.memtable().add(number, new byte[] {(byte) number}, new byte[] {1});
        return m;
    }

    private VersionSet versions(StoreDirectory d, int maxFrozen, AtomicLong room) {
        MemtableRef mem = memtable(1);
        Version v = new Version(List.of(Partition.empty(new byte[0])), 0);
        VersionSet set = new VersionSet(d, 2, mem, v, maxFrozen, room == null ? null : room::get, new Counters(),
                () -> new IllegalStateException("closed"));
        mem.release();
        v.release();
        return set;
    }

    /** Freezes while the set allows it; how many froze. */
    private static int freezeWhileAllowed(VersionSet set, long firstNumber) {
        int n = 0;
        while (set.canFreeze()) {
            MemtableRef fresh = memtable(firstNumber + n);
            set.freeze(fresh);
            fresh.release();
            n++;
            assertTrue(n <= VersionSet.MAX_FROZEN, "more than the hard bound");
        }
        assertTrue(set.frozenFull());
        return n;
    }

    @Test
    void theRoomDecidesBeyondMaxFrozenUpToTheHardBound() throws Exception {
        try (StoreDirectory d = StoreDirectory.lockForOpen(dir)) {
            MemtableRef probe = memtable(99);
            long one = probe.memtable().memoryBytes();  // every memtable here reserves the same
            probe.release();
            VersionSet none = versions(d, 2, null);
            assertEquals(2, freezeWhileAllowed(none, 10), "without the room: maxFrozen");
            none.close();
            VersionSet some = versions(d, 2, new AtomicLong(3 * one));
            assertEquals(2 + 3, freezeWhileAllowed(some, 20), "room for three memtables: three beyond maxFrozen");
            some.close();
            VersionSet lots = versions(d, 2, new AtomicLong(Long.MAX_VALUE / 4));
            assertEquals(VersionSet.MAX_FROZEN, freezeWhileAllowed(lots, 40));
            lots.close();
        }
    }

    @Test
    void aFreezeDecidedBeforeTheRoomShrankStillHappens() throws Exception {
        try (StoreDirectory d = StoreDirectory.lockForOpen(dir)) {
            AtomicLong room = new AtomicLong(Long.MAX_VALUE / 4);
            VersionSet set = versions(d, 2, room);
            freezeOnce(set, 10);
            freezeOnce(set, 11);
            assertTrue(set.canFreeze(), "the room allows a third");
            room.set(0);  // a reader's miss took the rest of the cache meanwhile
            assertFalse(set.canFreeze());
            MemtableRef fresh = memtable(12);
            assertDoesNotThrow(() -> set.freeze(fresh), "the head had decided; only the hard bound is checked");
            fresh.release();
            assertTrue(set.frozenFull());
            set.close();
        }
    }

    @Test
    void theHardBoundStillHolds() throws Exception {
        try (StoreDirectory d = StoreDirectory.lockForOpen(dir)) {
            VersionSet set = versions(d, 2, null);
            freezeOnce(set, 10);
            freezeOnce(set, 11);
            MemtableRef fresh = memtable(12);
            assertThrows(IllegalStateException.class, () -> set.freeze(fresh));
            fresh.release();
            set.close();
        }
    }

    private static void freezeOnce(VersionSet set, long number) {
        MemtableRef fresh = memtable(number);
        set.freeze(fresh);
        fresh.release();
    }
}
