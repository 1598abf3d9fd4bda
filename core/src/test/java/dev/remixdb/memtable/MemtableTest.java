package dev.remixdb.memtable;

import dev.remixdb.util.Limits;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemtableTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The point index grows by doubling; every key must stay findable across the moves. */
    @Test
    void pointLookupsStayExactWhileTheIndexGrows() {
        try (Memtable m = new Memtable()) {
            long before = m.memoryBytes();
            int n = 100_000;
            for (int i = 0; i < n; i++) {
                m.add(i + 1, b("key" + i), b("v" + i));
                if (Integer.bitCount(i + 1) == 1) {  // right after each power of two: around every growth
                    for (int j = 0; j <= i; j += 1 + j / 16) {
                        assertArrayEquals(b("v" + j), m.value(m.find(b("key" + j), Long.MAX_VALUE)), "key" + j);
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                assertArrayEquals(b("v" + i), m.value(m.find(b("key" + i), Long.MAX_VALUE)));
                assertEquals(-1, m.find(b("key" + i), i), "key" + i + " is newer than snapshot " + i);
                assertEquals(-1, m.find(b("absent" + i), Long.MAX_VALUE));
            }
            assertTrue(m.memoryBytes() - before >= 16L * 2 * n, "the index's memory is counted");
        }
    }

    /**
     * The point index prepares its next table (a huge page or more) ahead of growing, unless the
     * memtable will be frozen before it could need it: that memory would be faulted in for nothing.
     */
    @Test
    void thePointIndexPreparesOnlyATableTheMemtableCanReach() {
        int n = 30_000;  // past 3/8 of a table of 65,536 slots (24,576 keys), short of growing it (32,769)
        long unknown;
        long bounded;
        try (Memtable m = new Memtable()) {
            for (int i = 0; i < n; i++) {
                m.add(i + 1, b(String.format("key%07d", i)), b("value"));
            }
            unknown = m.memoryBytes();
        }
        try (Memtable m = new Memtable()) {
            m.expectFullAt(31_000L * 15);  // frozen at about 31,000 of these 15-byte entries
            for (int i = 0; i < n; i++) {
                m.add(i + 1, b(String.format("key%07d", i)), b("value"));
            }
            bounded = m.memoryBytes();
            assertArrayEquals(b("value"), m.value(m.find(b("key0012345"), Long.MAX_VALUE)));
        }
        assertEquals(2L << 20, unknown - bounded, "the next table, 131,072 slots of 16 bytes, prepared only when reachable");
    }

    /**
     * The same with every key written twice, as a hot key's versions are: the index holds keys, not
     * versions, so a memtable that fills up with versions does not reach the next table either.
     */
    @Test
    void thePointIndexCountsKeysNotVersionsWhenItPrepares() {
        int keys = 26_000;  // past 3/8 of 65,536 slots; 52,000 versions
        long unknown;
        long bounded;
        try (Memtable m = new Memtable()) {
            addTwice(m, keys);
            unknown = m.memoryBytes();
        }
        try (Memtable m = new Memtable()) {
            m.expectFullAt(56_000L * 15);  // frozen at about 56,000 versions: 28,000 keys, short of 32,769
            addTwice(m, keys);
            bounded = m.memoryBytes();
        }
        assertEquals(2L << 20, unknown - bounded, "no table prepared for keys the memtable will not hold");
    }

    /** Each key twice in a row, so that versions come with the keys from the start, as hot keys' do. */
    private static void addTwice(Memtable m, int keys) {
        long seq = 1;
        for (int i = 0; i < keys; i++) {
            m.add(seq++, b(String.format("key%07d", i)), b("value"));
            m.add(seq++, b(String.format("key%07d", i)), b("value"));
        }
    }

    /**
     * While the point index moves its keys into a larger table, an aborted compaction puts older
     * versions of keys back: lookups, which ask the new table first, must still find each key's newest
     * version even when the old table still held it.
     */
    @Test
    void olderVersionsAddedWhileTheIndexGrowsDoNotHideNewerOnes() {
        try (Memtable m = new Memtable()) {
            int n = 50_000;
            for (int i = 0; i < n; i++) {
                m.add(1_000_000 + i, b("old" + i), b("new" + i));
            }
            for (int i = 0; i < n; i++) {
                m.add(i + 1, b("fresh" + i), b("f"));                // new keys: the index grows and moves keys
                m.add(500_000 + i, b("old" + i), b("stale" + i));    // an older version of an old key comes back
                assertArrayEquals(b("new" + i), m.value(m.find(b("old" + i), Long.MAX_VALUE)), "old" + i);
            }
            for (int i = 0; i < n; i++) {
                assertArrayEquals(b("new" + i), m.value(m.find(b("old" + i), Long.MAX_VALUE)), "old" + i);
                assertArrayEquals(b("stale" + i), m.value(m.find(b("old" + i), 999_999)), "old" + i);
                assertArrayEquals(b("f"), m.value(m.find(b("fresh" + i), Long.MAX_VALUE)), "fresh" + i);
            }
        }
    }


    /**
     * A bulk load stops the point index halfway: lookups then search the tree, and must find keys
     * added before and after, each version at its snapshots, and nothing that is absent.
     */
    @Test
    void lookupsStayExactAfterThePointIndexStops() {
        try (Memtable m = new Memtable()) {
            int n = 20_000;
            for (int i = 0; i < n; i++) {
                m.add(10 + 2L * i, b("k" + i), b("a" + i));
            }
            assertTrue(m.pointIndexed());
            m.stopPointIndex();
            assertFalse(m.pointIndexed());
            for (int i = 0; i < n; i += 2) {
                m.add(1_000_000 + i, b("k" + i), b("b" + i));     // a newer version of every other key
                m.add(2_000_000 + i, b("new" + i), b("n" + i));   // keys only after the stop
            }
            for (int i = 0; i < n; i++) {
                long first = 10 + 2L * i;
                assertEquals(-1, m.find(b("k" + i), first - 1), "k" + i + " before its first version");
                assertArrayEquals(b("a" + i), m.value(m.find(b("k" + i), first)), "k" + i + " at its first version");
                assertArrayEquals(b((i % 2 == 0 ? "b" : "a") + i), m.value(m.find(b("k" + i), Long.MAX_VALUE)), "k" + i);
                if (i % 2 == 0) {
                    assertArrayEquals(b("a" + i), m.value(m.find(b("k" + i), 999_999)), "k" + i + " below the newer one");
                    assertArrayEquals(b("n" + i), m.value(m.find(b("new" + i), Long.MAX_VALUE)), "new" + i);
                    assertEquals(-1, m.find(b("new" + i), 1_999_999), "new" + i + " before it was added");
                }
                assertEquals(-1, m.find(b("k" + i + "x"), Long.MAX_VALUE));
            }
        }
    }
    /** An aborted compaction puts older versions back after newer ones: lookups must still see the newest. */
    @Test
    void anOlderVersionAddedLaterDoesNotHideTheNewest() {
        try (Memtable m = new Memtable()) {
            m.add(10, b("k"), b("new"));
            m.add(5, b("k"), b("old"));
            m.delete(3, b("k"));
            assertArrayEquals(b("new"), m.value(m.find(b("k"), 100)));
            assertArrayEquals(b("old"), m.value(m.find(b("k"), 9)));
            assertTrue(m.isTombstone(m.find(b("k"), 4)));
            assertEquals(-1, m.find(b("k"), 2));
        }
    }

    @Test
    void versionsAreSeenBySnapshot() {
        try (Memtable m = new Memtable()) {
            m.add(1, b("a"), b("a1"));
            m.add(5, b("a"), b("a5"));
            m.delete(7, b("a"));
            m.add(3, b("b"), b("b3"));
            assertEquals(-1, m.find(b("a"), 0));
            assertArrayEquals(b("a1"), m.value(m.find(b("a"), 4)));
            assertArrayEquals(b("a5"), m.value(m.find(b("a"), 5)));
            long node = m.find(b("a"), 100);
            assertTrue(m.isTombstone(node));
            assertEquals(7, m.seq(node));
            assertEquals(0, m.valueLength(node));
            assertEquals(-1, m.find(b("b"), 2));
            assertEquals(-1, m.find(b("c"), 100));
            assertEquals(4, m.entryCount());
            assertEquals(7, m.maxSeq());
            assertEquals(3 + 3 + 1 + 3, m.dataBytes());
        }
    }

    @Test
    void cursorSkipsKeysWithOnlyNewerVersions() {
        try (Memtable m = new Memtable()) {
            m.add(10, b("a"), b("x"));
            m.add(2, b("b"), b("y"));
            m.add(11, b("c"), b("z"));
            MemtableModel model = new MemtableModel();
            model.add(10, b("a"), b("x"));
            model.add(2, b("b"), b("y"));
            model.add(11, b("c"), b("z"));
            for (long snap = 0; snap <= 12; snap++) {
                new CursorChecker(m, model, snap).checkAll(MemtableModel.probes(model.keys()));
            }
            try (MemtableCursor c = m.cursor(5)) {
                c.seekToFirst();
                assertArrayEquals(b("b"), c.key());
                c.next();
                assertFalse(c.isValid());
                c.seekToLast();
                assertArrayEquals(b("b"), c.key());
            }
        }
    }

    @Test
    void emptyKeyAndEmptyValue() {
        try (Memtable m = new Memtable()) {
            m.add(1, new byte[0], new byte[0]);
            m.add(2, new byte[] {0}, b("v"));
            long node = m.find(new byte[0], 1);
            assertTrue(node >= 0);
            assertEquals(0, m.keyLength(node));
            assertEquals(0, m.valueLength(node));
            assertFalse(m.isTombstone(node));
            try (MemtableCursor c = m.cursor(Long.MAX_VALUE)) {
                c.seekToFirst();
                assertEquals(0, c.keyLength());
                c.next();
                assertArrayEquals(new byte[] {0}, c.key());
                c.prev();
                assertEquals(0, c.keyLength());
                c.prev();
                assertFalse(c.isValid());
                c.seekForPrev(new byte[0]);
                assertEquals(0, c.keyLength());
            }
        }
    }

    @Test
    void addingTheSameKeyAndSeqTwiceIsRefused() {
        try (Memtable m = new Memtable()) {
            m.add(3, b("k"), b("v"));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.add(3, b("k"), b("w")));
            assertTrue(e.getMessage().contains("3"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> m.delete(3, b("k")));
            assertEquals(1, m.entryCount());
            assertArrayEquals(b("v"), m.value(m.find(b("k"), 3)));
            m.add(4, b("k"), b("w"));  // another seq is fine
            m.add(3, b("k2"), b("w"));  // and another key
            // A seq below the newest is checked too (only a seq above every one added cannot repeat).
            assertThrows(IllegalArgumentException.class, () -> m.add(3, b("k"), b("x")));
            assertArrayEquals(b("v"), m.value(m.find(b("k"), 3)));
        }
    }

    @Test
    void badArgumentsChangeNothing() {
        try (Memtable m = new Memtable()) {
            long memory = m.memoryBytes();
            assertThrows(IllegalArgumentException.class, () -> m.add(-1, b("k"), b("v")));
            assertThrows(IllegalArgumentException.class, () -> m.add(1, new byte[Limits.MAX_KEY_BYTES + 1], b("v")));
            MemorySegment big = MemorySegment.ofArray(new byte[1]);
            assertThrows(IllegalArgumentException.class,
                    () -> m.add(1, big, 0, 1, big, 0, Limits.MAX_VALUE_BYTES + 1, false));
            assertThrows(NullPointerException.class, () -> m.add(1, b("k"), null));
            assertThrows(IndexOutOfBoundsException.class, () -> m.add(1, big, 0, 2, big, 0, 0, false));
            assertThrows(IndexOutOfBoundsException.class, () -> m.add(1, big, 0, 1, big, 1, 1, false));
            assertEquals(memory, m.memoryBytes());
            assertEquals(0, m.entryCount());
            assertEquals(0, m.dataBytes());
            assertEquals(-1, m.maxSeq());
            m.add(1, new byte[Limits.MAX_KEY_BYTES], b("v"));  // the limit itself is fine
            assertEquals(1, m.entryCount());
        }
    }

    @Test
    void reinsertedOldSeqsTakeTheirPlaceAmongVersions() {
        try (Memtable m = new Memtable()) {
            MemtableModel model = new MemtableModel();
            long[] order = {50, 10, 30, 5, 40, 20, 1};  // out of seq order, as a compaction abort re-inserts
            for (long seq : order) {
                for (String k : List.of("a", "b", "c")) {
                    byte[] v = b(k + seq);
                    if (seq % 20 == 0) {
                        m.delete(seq, b(k));
                        model.add(seq, b(k), null);
                    } else {
                        m.add(seq, b(k), v);
                        model.add(seq, b(k), v);
                    }
                }
            }
            assertEquals(50, m.maxSeq());
            for (long snap : new long[] {0, 1, 4, 5, 9, 10, 19, 20, 25, 30, 35, 40, 49, 50, 99}) {
                new CursorChecker(m, model, snap).checkAll(MemtableModel.probes(model.keys()));
            }
        }
    }

    @Test
    void manyVersionsOfOneKeyAreSkippedByNext() {
        try (Memtable m = new Memtable()) {
            MemtableModel model = new MemtableModel();
            for (long seq = 1; seq <= 100; seq++) {
                m.add(seq, b("hot"), b("v" + seq));
                model.add(seq, b("hot"), b("v" + seq));
            }
            m.add(1, b("a"), b("x"));
            model.add(1, b("a"), b("x"));
            m.add(1, b("z"), b("y"));
            model.add(1, b("z"), b("y"));
            for (long snap : new long[] {0, 1, 2, 50, 99, 100, 101}) {
                new CursorChecker(m, model, snap).checkAll(MemtableModel.probes(model.keys()));
            }
        }
    }

    @Test
    void smallChunksAndLargeValues() {
        Random random = new Random(42);
        try (Memtable m = new Memtable(4096)) {
            MemtableModel model = new MemtableModel();
            long seq = 1;
            for (int i = 0; i < 300; i++) {
                byte[] key = new byte[1 + random.nextInt(40)];
                random.nextBytes(key);
                int len = i % 50 == 0 ? (1 << 20) + random.nextInt(3 << 20) : random.nextInt(3000);
                byte[] value = new byte[len];
                random.nextBytes(value);
                m.add(seq, key, value);
                model.add(seq++, key, value);
            }
            assertTrue(m.memoryBytes() >= m.dataBytes(), m.toString());
            for (long snap : new long[] {0, 100, 299, 300}) {
                new CursorChecker(m, model, snap).checkAll(MemtableModel.probes(model.keys()));
            }
        }
    }

    @Test
    void sixtyFourMebibyteValue() {
        byte[] value = new byte[Limits.MAX_VALUE_BYTES];
        new Random(7).nextBytes(value);
        byte[] key = new byte[Limits.MAX_KEY_BYTES];
        key[0] = 1;
        try (Memtable m = new Memtable()) {
            m.add(1, b("\u0000before"), b("x"));
            m.add(2, key, value);
            m.add(3, b("after"), b("y"));
            long node = m.find(key, 5);
            assertEquals(Limits.MAX_VALUE_BYTES, m.valueLength(node));
            assertEquals(-1, MemorySegment.ofArray(value).mismatch(m.valueSegment(node)));
            assertTrue(m.memoryBytes() > Limits.MAX_VALUE_BYTES);
            try (MemtableCursor c = m.cursor(5)) {
                c.seek(key);
                assertEquals(2, c.seq());
                c.next();
                assertArrayEquals(b("after"), c.key());
                c.prev();
                assertEquals(2, c.seq());
                c.prev();
                assertArrayEquals(b("\u0000before"), c.key());
            }
        }
    }

    @Test
    void memoryBytesGrowsWithData() {
        try (Memtable m = new Memtable(64 << 10)) {
            long empty = m.memoryBytes();
            assertTrue(empty > 0);
            long previous = empty;
            for (int i = 0; i < 2000; i++) {
                m.add(i, b("key" + i), new byte[100]);
                assertTrue(m.memoryBytes() >= previous);
                previous = m.memoryBytes();
            }
            assertTrue(m.memoryBytes() >= empty + m.dataBytes(), m.toString());
            assertTrue(m.memoryBytes() < empty + 2 * m.dataBytes() + (64 << 10), m.toString());
        }
    }

    @Test
    void useAfterCloseIsAnIllegalStateException() {
        Memtable m = new Memtable();
        m.add(1, b("k"), b("v"));
        long node = m.find(b("k"), 1);
        MemtableCursor c = m.cursor(1);
        c.seekToFirst();
        MemorySegment view = m.valueSegment(node);
        m.close();
        m.close();  // idempotent
        assertFalse(m.isOpen());
        for (Runnable r : List.<Runnable>of(
                () -> m.add(2, b("k"), b("v")), () -> m.find(b("k"), 1), () -> m.cursor(1), () -> m.seq(node),
                () -> m.value(node), () -> m.isTombstone(node), c::next, c::key, c::seekToFirst, c::isValid)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, r::run);
            assertEquals("memtable is closed", e.getMessage());
        }
        assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_BYTE, 0));
    }

    @Test
    void closedOrUnpositionedCursorSaysSo() {
        try (Memtable m = new Memtable()) {
            MemtableCursor c = m.cursor(1);
            assertFalse(c.isValid());
            assertEquals("memtable cursor is not positioned at an entry",
                    assertThrows(IllegalStateException.class, c::key).getMessage());
            c.close();
            assertEquals("memtable cursor is closed", assertThrows(IllegalStateException.class, c::seekToFirst).getMessage());
        }
    }

    @Test
    void addAcceptsOffsetsIntoLargerSegments() {
        try (Memtable m = new Memtable()) {
            MemorySegment buf = MemorySegment.ofArray(b("xxKEYyyVALUEzz"));
            m.add(1, buf, 2, 3, buf, 7, 5, false);
            long node = m.find(b("KEY"), 1);
            assertArrayEquals(b("VALUE"), m.value(node));
            assertArrayEquals(b("KEY"), m.keySegment(node).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(node, m.find(buf, 2, 3, 1));
            buf.fill((byte) 0);  // the memtable holds copies
            assertArrayEquals(b("VALUE"), m.value(node));
        }
    }

    @Test
    void viewsAreReadOnly() {
        try (Memtable m = new Memtable(); MemtableCursor c = m.cursor(1)) {
            m.add(1, b("k"), b("v"));
            long node = m.find(b("k"), 1);
            c.seekToFirst();
            for (MemorySegment view : List.of(m.segment(node), m.keySegment(node), m.valueSegment(node), c.keySegment(), c.valueSegment())) {
                assertTrue(view.isReadOnly());
                assertThrows(IllegalArgumentException.class, () -> view.set(ValueLayout.JAVA_BYTE, 0, (byte) 1));
            }
            assertArrayEquals(b("v"), c.value());
        }
    }
}
