package dev.remixdb.cursor;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Merger} on its own, over sources held in lists: at every key the source with the lowest
 * index wins, tombstones are yielded flagged, and moves in both directions, with every change of
 * direction, land where a model (the winners in a {@link TreeMap}) says.
 */
class MergerTest {

    /** A version of a key in one source: its value, or a tombstone. */
    private record Entry(byte[] key, byte[] value, boolean tombstone) {}

    /** A sorted list as a {@link Source} that moves both ways. */
    private static final class ListSource implements Source {
        private final List<Entry> entries;
        private int at = -1;
        boolean closed;

        ListSource(List<Entry> sorted) {
            this.entries = sorted;
        }

        @Override
        public void seekToFirst() {
            at = 0;
        }

        @Override
        public void seek(MemorySegment key, long offset, int length) {
            byte[] k = key.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
            at = 0;
            while (at < entries.size() && Arrays.compareUnsigned(entries.get(at).key(), k) < 0) {
                at++;
            }
        }

        @Override
        public void seekToLast() {
            at = entries.size() - 1;
        }

        @Override
        public void seekForPrev(MemorySegment key, long offset, int length) {
            byte[] k = key.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
            at = entries.size() - 1;
            while (at >= 0 && Arrays.compareUnsigned(entries.get(at).key(), k) > 0) {
                at--;
            }
        }

        @Override
        public boolean isValid() {
            return at >= 0 && at < entries.size();
        }

        @Override
        public void next() {
            at++;
        }

        @Override
        public void prev() {
            at--;
        }

        private Entry current() {
            if (!isValid()) {
                throw new IllegalStateException("source read while not positioned");
            }
            return entries.get(at);
        }

        @Override
        public MemorySegment keySegment() {
            return MemorySegment.ofArray(current().key());
        }

        @Override
        public long keyOffset() {
            return 0;
        }

        @Override
        public int keyLength() {
            return current().key().length;
        }

        @Override
        public boolean isTombstone() {
            return current().tombstone();
        }

        @Override
        public MemorySegment valueSegment() {
            return MemorySegment.ofArray(current().value());
        }

        @Override
        public long valueOffset() {
            return 0;
        }

        @Override
        public int valueLength() {
            return current().value().length;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(MemorySegment seg, long off, int len) {
        return new String(seg.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private static String key(Merger m) {
        Source c = m.current();
        return s(c.keySegment(), c.keyOffset(), c.keyLength());
    }

    private static String value(Merger m) {
        Source c = m.current();
        return s(c.valueSegment(), c.valueOffset(), c.valueLength());
    }

    private static MemorySegment seg(String k) {
        return MemorySegment.ofArray(b(k));
    }

    @Test
    void theNewestSourceWinsEachKeyInBothDirections() {
        ListSource newest = new ListSource(List.of(new Entry(b("b"), b("new-b"), false), new Entry(b("d"), b(""), true)));
        ListSource older = new ListSource(List.of(new Entry(b("a"), b("old-a"), false), new Entry(b("b"), b("old-b"), false),
                new Entry(b("d"), b("old-d"), false), new Entry(b("e"), b("old-e"), false)));
        try (Merger m = new Merger(List.of(newest, older))) {
            m.seekToFirst();
            List<String> forwards = new ArrayList<>();
            for (; m.isValid(); m.next()) {
                forwards.add(key(m) + "=" + (m.isTombstone() ? "†" : value(m)));
            }
            assertEquals(List.of("a=old-a", "b=new-b", "d=†", "e=old-e"), forwards);
            m.seekToLast();
            List<String> backwards = new ArrayList<>();
            for (; m.isValid(); m.prev()) {
                backwards.add(key(m) + "=" + (m.isTombstone() ? "†" : value(m)));
            }
            assertEquals(List.of("e=old-e", "d=†", "b=new-b", "a=old-a"), backwards);
        }
        assertTrue(newest.closed && older.closed, "closing the merger closes its sources");
    }

    @Test
    void changingDirectionOnASharedKeySkipsTheLosersVersion() {
        ListSource a = new ListSource(List.of(new Entry(b("k1"), b("a1"), false), new Entry(b("k3"), b("a3"), false)));
        ListSource c = new ListSource(List.of(new Entry(b("k1"), b("c1"), false), new Entry(b("k2"), b("c2"), false),
                new Entry(b("k3"), b("c3"), false)));
        try (Merger m = new Merger(List.of(a, c))) {
            m.seek(seg("k2"), 0, 2);
            assertEquals("k2", key(m));
            m.prev();
            assertEquals("k1", key(m));
            assertEquals("a1", value(m));
            m.next();
            assertEquals("k2", key(m));
            m.next();
            assertEquals("k3", key(m));
            assertEquals("a3", value(m));
            m.prev();
            assertEquals("k2", key(m));
            m.prev();
            m.prev();
            assertFalse(m.isValid());
        }
    }

    @Test
    void emptySourcesAndEmptyMergesAreInvalidEverywhere() {
        try (Merger m = new Merger(List.of(new ListSource(List.of()), new ListSource(List.of())))) {
            m.seekToFirst();
            assertFalse(m.isValid());
            m.seekToLast();
            assertFalse(m.isValid());
            m.seek(seg("x"), 0, 1);
            assertFalse(m.isValid());
            m.seekForPrev(seg("x"), 0, 1);
            assertFalse(m.isValid());
        }
    }

    /**
     * Random sources over a small key space (so that keys collide across sources) and a random
     * walk of seeks and steps in both directions: after every move the merger sits where the model
     * says, with the winner's value and tombstone flag.
     */
    @Property(tries = 300)
    void randomWalksMatchTheModel(@ForAll long seed, @ForAll @IntRange(min = 1, max = 5) int sourceCount) {
        Random r = new Random(seed);
        List<ListSource> sources = new ArrayList<>();
        TreeMap<String, Entry> winners = new TreeMap<>();
        for (int i = 0; i < sourceCount; i++) {
            TreeMap<String, Entry> own = new TreeMap<>();
            int n = r.nextInt(12);
            for (int j = 0; j < n; j++) {
                String k = "k" + (char) ('a' + r.nextInt(16));
                own.put(k, new Entry(b(k), b("s" + i + k), r.nextInt(4) == 0));
            }
            for (Map.Entry<String, Entry> e : own.entrySet()) {
                winners.putIfAbsent(e.getKey(), e.getValue());  // lower index first: the newest wins
            }
            sources.add(new ListSource(new ArrayList<>(own.values())));
        }
        try (Merger m = new Merger(sources)) {
            String expected = null;
            for (int step = 0; step < 60; step++) {
                String probe = "k" + (char) ('a' + r.nextInt(17));
                switch (r.nextInt(6)) {
                    case 0 -> {
                        m.seekToFirst();
                        expected = winners.isEmpty() ? null : winners.firstKey();
                    }
                    case 1 -> {
                        m.seekToLast();
                        expected = winners.isEmpty() ? null : winners.lastKey();
                    }
                    case 2 -> {
                        m.seek(seg(probe), 0, probe.length());
                        expected = winners.ceilingKey(probe);
                    }
                    case 3 -> {
                        m.seekForPrev(seg(probe), 0, probe.length());
                        expected = winners.floorKey(probe);
                    }
                    case 4 -> {
                        if (expected == null) {
                            continue;
                        }
                        m.next();
                        expected = winners.higherKey(expected);
                    }
                    default -> {
                        if (expected == null) {
                            continue;
                        }
                        m.prev();
                        expected = winners.lowerKey(expected);
                    }
                }
                String where = "seed " + seed + ", step " + step;
                assertEquals(expected != null, m.isValid(), where);
                if (expected != null) {
                    Entry w = winners.get(expected);
                    assertEquals(expected, key(m), where);
                    assertEquals(w.tombstone(), m.isTombstone(), where);
                    assertEquals(new String(w.value(), StandardCharsets.UTF_8), value(m), where);
                }
            }
        }
    }
}
