package dev.remixdb.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.remix.KeySource;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.table.TableFixture.Kv;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * Checks a {@link Table} against the sorted list of entries it was written from: forward and
 * backward iteration, {@code seekTo} of every address, {@code seek} to every key and just before and
 * after it, {@code skip} across blocks, and the keys block.
 */
final class CursorChecks {
    private final Table table;
    private final List<Kv> kvs;
    private final int[] addresses;
    private final String label;
    /** Check scan cursors (compactions': uncached blocks read through a window) instead of caching ones. */
    private final boolean scan;

    CursorChecks(Table table, List<Kv> kvs, String label) {
        this(table, kvs, label, false);
    }

    private CursorChecks(Table table, List<Kv> kvs, String label, boolean scan) {
        this.table = table;
        this.kvs = kvs;
        this.label = scan ? label + " (scan cursor)" : label;
        this.scan = scan;
        this.addresses = new int[kvs.size() + 1];
        int a = RunAddress.of(0, 0);
        for (int i = 0; i < kvs.size(); i++) {
            addresses[i] = a;
            a = RunAddress.advance(table, a, 1);
        }
        addresses[kvs.size()] = table.endAddress();
        assertEquals(table.endAddress(), a, label);
    }

    /** The same checks through scan cursors. */
    CursorChecks scanning() {
        return new CursorChecks(table, kvs, label, true);
    }

    private TableCursor cursor() {
        return scan ? table.newScanCursor() : table.newCursor();
    }

    void all(Random rnd) {
        assertEquals(kvs.size(), table.keyCount(), label);
        assertEquals(kvs.stream().filter(Kv::tombstone).count(), table.tombstoneCount(), label);
        if (!kvs.isEmpty()) {
            assertArrayEquals(kvs.getFirst().key(), table.firstKey(), label);
            assertArrayEquals(kvs.getLast().key(), table.lastKey(), label);
        }
        iterate();
        randomWalk(rnd);
        seekToEach(rnd);
        seekProbes();
        skips(rnd);
        keySource();
    }

    void iterate() {
        int n = kvs.size();
        try (TableCursor c = cursor()) {
            assertFalse(c.isValid(), label);
            c.seekTo(RunAddress.of(0, 0));
            for (int i = 0; i < n; i++) {
                at(c, i, "forward");
                c.next();
            }
            assertFalse(c.isValid(), label);
            assertEquals(table.endAddress(), c.address(), label);
            c.next();
            assertFalse(c.isValid(), label);
            if (n > 0) {
                c.prev();  // from the end back to the last key, like every run cursor
                for (int i = n - 1; i >= 0; i--) {
                    at(c, i, "backward");
                    c.prev();
                }
                assertFalse(c.isValid(), label);
            }
        }
    }

    /**
     * Runs of steps forward and back from random places, each run checked entry by entry: a walk that
     * turns (a backward walk loads entries below ahead of use) and seeks again must still read each
     * entry right, across block ends and at both ends of the table.
     */
    void randomWalk(Random rnd) {
        int n = kvs.size();
        if (n == 0) {
            return;
        }
        try (TableCursor c = cursor()) {
            int i = rnd.nextInt(n);
            c.seekTo(addresses[i]);
            for (int turn = 0; turn < 60; turn++) {
                if (rnd.nextBoolean()) {
                    c.seekTo(addresses[i]);  // the same place: a seek resets what was loaded ahead
                }
                boolean forward = rnd.nextBoolean();
                int steps = 1 + rnd.nextInt(20);
                for (int s = 0; s < steps; s++) {
                    if (forward ? i == n - 1 : i == 0) {
                        break;  // stay on the table: stepping off parks the cursor, which iterate() checks
                    }
                    if (forward) {
                        c.next();
                        i++;
                    } else {
                        c.prev();
                        i--;
                    }
                    at(c, i, "walk " + (forward ? "forward" : "backward"));
                }
            }
        }
    }

    void seekToEach(Random rnd) {
        int n = kvs.size();
        try (TableCursor c = cursor()) {
            for (int k = 0; k < n; k++) {
                int i = rnd.nextInt(n);
                c.seekTo(addresses[i]);
                at(c, i, "seekTo");
            }
            c.seekTo(table.endAddress());
            assertFalse(c.isValid(), label);
        }
    }

    void seekProbes() {
        try (TableCursor c = cursor()) {
            probe(c, new byte[0]);
            byte[] max = new byte[400];
            Arrays.fill(max, (byte) 0xFF);
            probe(c, max);
            for (Kv kv : kvs) {
                byte[] k = kv.key();
                probe(c, k);
                probe(c, Arrays.copyOf(k, k.length + 1));  // just after
                if (k.length > 0) {
                    probe(c, Arrays.copyOf(k, k.length - 1));
                    int last = Byte.toUnsignedInt(k[k.length - 1]);
                    if (last > 0) {  // just before
                        byte[] below = k.clone();
                        below[k.length - 1] = (byte) (last - 1);
                        probe(c, below);
                    }
                }
            }
        }
    }

    private void probe(TableCursor c, byte[] key) {
        // The key sits inside a larger segment, so offset mistakes show.
        MemorySegment padded = MemorySegment.ofArray(new byte[key.length + 6]);
        padded.fill((byte) 0x5A);
        MemorySegment.copy(MemorySegment.ofArray(key), 0, padded, 3, key.length);
        c.seek(padded, 3, key.length);
        int i = ceiling(key);
        String what = "seek " + HexFormat.of().formatHex(key);
        if (i == kvs.size()) {
            assertFalse(c.isValid(), label + ": " + what);
            assertEquals(table.endAddress(), c.address(), label + ": " + what);
        } else {
            at(c, i, what);
        }
    }

    private int ceiling(byte[] key) {
        int lo = 0;
        int hi = kvs.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(kvs.get(mid).key(), key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    void skips(Random rnd) {
        int n = kvs.size();
        try (TableCursor c = cursor()) {
            for (int k = 0; k < 300 && n > 0; k++) {
                int from = rnd.nextInt(n + 1);
                int to = rnd.nextInt(n + 1);
                c.seekTo(addresses[from]);
                c.skip(to - from);
                if (to == n) {
                    assertFalse(c.isValid(), label + ": skip to the end");
                } else {
                    at(c, to, "skip " + from + " -> " + to);
                }
            }
        }
    }

    void keySource() {
        try (KeySource ks = table.keySource()) {
            for (int i = 0; i < kvs.size(); i++) {
                assertTrue(ks.next(), label);
                assertArrayEquals(kvs.get(i).key(), TableFixture.bytes(ks.keySegment(), ks.keyOffset(), ks.keyLength()),
                        label + ": key source key " + i);
                assertEquals(kvs.get(i).tombstone(), ks.isTombstone(), label + ": key source tombstone " + i);
            }
            assertFalse(ks.next(), label);
        }
    }

    private void at(TableCursor c, int i, String what) {
        String where = label + ": " + what + ", entry " + i + " of " + kvs.size();
        assertTrue(c.isValid(), where);
        assertEquals(RunAddress.toString(addresses[i]), RunAddress.toString(c.address()), where);
        Kv kv = kvs.get(i);
        assertArrayEquals(kv.key(), TableFixture.bytes(c.keySegment(), c.keyOffset(), c.keyLength()), where);
        assertEquals(kv.tombstone(), c.isTombstone(), where);
        byte[] value = TableFixture.bytes(c.valueSegment(), c.valueOffset(), c.valueLength());
        assertArrayEquals(kv.tombstone() ? new byte[0] : kv.value(), value, where);
        assertEquals(0, c.compareKey(MemorySegment.ofArray(kv.key()), 0, kv.key().length), where);
    }
}
