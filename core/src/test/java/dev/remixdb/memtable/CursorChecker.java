package dev.remixdb.memtable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.memtable.MemtableModel.Entry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * Checks find() and every cursor move of a memtable at one snapshot against the model's view:
 * full scans both ways, and at every probe seek / seekForPrev followed by steps both ways.
 */
final class CursorChecker {
    private static final int STEPS = 3;

    private final Memtable table;
    private final List<Entry> view;
    private final long snapshotSeq;
    private final String label;

    CursorChecker(Memtable table, MemtableModel model, long snapshotSeq) {
        this.table = table;
        this.view = model.view(snapshotSeq);
        this.snapshotSeq = snapshotSeq;
        this.label = "snapshot " + snapshotSeq;
    }

    void checkAll(List<byte[]> probes) {
        checkScans();
        checkFinds(probes);
        checkSeeks(probes);
    }

    void checkScans() {
        try (MemtableCursor c = table.cursor(snapshotSeq)) {
            c.seekToFirst();
            for (int i = 0; i < view.size(); i++) {
                assertAt(c, i, "forward scan");
                c.next();
            }
            assertFalse(c.isValid(), label + ": forward scan should end");
            c.seekToLast();
            for (int i = view.size() - 1; i >= 0; i--) {
                assertAt(c, i, "backward scan");
                c.prev();
            }
            assertFalse(c.isValid(), label + ": backward scan should end");
        }
    }

    void checkFinds(List<byte[]> probes) {
        for (byte[] p : probes) {
            int i = index(p);
            long node = table.find(p, snapshotSeq);
            if (i < 0) {
                assertEquals(-1, node, () -> label + ": find " + MemtableModel.hex(p));
            } else {
                Entry e = view.get(i);
                assertTrue(node >= 0, () -> label + ": find " + MemtableModel.hex(p));
                assertEquals(e.seq(), table.seq(node), label);
                assertEquals(e.value() == null, table.isTombstone(node), label);
                assertArrayEquals(e.key(), table.key(node), label);
                assertArrayEquals(e.value() == null ? new byte[0] : e.value(), table.value(node), label);
            }
        }
    }

    void checkSeeks(List<byte[]> probes) {
        try (MemtableCursor c = table.cursor(snapshotSeq); Arena arena = Arena.ofConfined()) {
            for (byte[] p : probes) {
                int ceiling = ceiling(p);
                // Alternate heap keys and padded native keys, so offset bugs show.
                if ((p.length & 1) == 0) {
                    c.seek(p);
                } else {
                    MemorySegment s = arena.allocate(p.length + 6);
                    MemorySegment.copy(p, 0, s, ValueLayout.JAVA_BYTE, 3, p.length);
                    c.seek(s, 3, p.length);
                }
                walk(c, ceiling, "seek " + MemtableModel.hex(p));
                c.seekForPrev(p);
                int floor = ceiling < view.size() && Arrays.equals(view.get(ceiling).key(), p) ? ceiling : ceiling - 1;
                walk(c, floor, "seekForPrev " + MemtableModel.hex(p));
            }
        }
    }

    /** Expects the cursor at view[i] (invalid when i is out of range), then steps forward and back from there. */
    private void walk(MemtableCursor c, int i, String what) {
        if (i < 0 || i >= view.size()) {
            assertFalse(c.isValid(), () -> label + ": " + what + " should be invalid");
            return;
        }
        assertAt(c, i, what);
        int j = i;
        for (int s = 0; s < STEPS && j + 1 < view.size(); s++) {
            c.next();
            assertAt(c, ++j, what + " then next");
        }
        for (int s = 0; s < 2 * STEPS && j - 1 >= 0; s++) {
            c.prev();
            assertAt(c, --j, what + " then prev");
        }
    }

    private void assertAt(MemtableCursor c, int i, String what) {
        Entry e = view.get(i);
        assertTrue(c.isValid(), () -> label + ": " + what + ": expected " + e + ", cursor invalid");
        assertArrayEquals(e.key(), c.key(), () -> label + ": " + what + " key");
        assertEquals(e.key().length, c.keyLength());
        assertEquals(e.seq(), c.seq(), () -> label + ": " + what + " seq of " + e);
        assertEquals(e.value() == null, c.isTombstone(), () -> label + ": " + what + " tombstone of " + e);
        byte[] value = e.value() == null ? new byte[0] : e.value();
        assertEquals(value.length, c.valueLength());
        assertEquals(-1, MemorySegment.mismatch(MemorySegment.ofArray(value), 0, value.length,
                c.valueSegment(), c.valueOffset(), c.valueOffset() + c.valueLength()), () -> label + ": " + what + " value");
        assertEquals(-1, MemorySegment.mismatch(MemorySegment.ofArray(e.key()), 0, e.key().length,
                c.keySegment(), c.keyOffset(), c.keyOffset() + c.keyLength()), () -> label + ": " + what + " key segment");
    }

    /** Index of the entry with this key, or -1. */
    private int index(byte[] key) {
        int i = ceiling(key);
        return i < view.size() && Arrays.equals(view.get(i).key(), key) ? i : -1;
    }

    /** Index of the first entry with a key >= key (view.size() if none). */
    private int ceiling(byte[] key) {
        int lo = 0;
        int hi = view.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(view.get(mid).key(), key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
