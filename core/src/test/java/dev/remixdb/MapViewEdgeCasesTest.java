package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Edge cases of the map views an outside review found, each checked against {@link TreeMap}: views
 * narrowed past their other end, {@code clear()} of ranges bounded by the empty key or by keys of the
 * greatest length, streams while writers change the range, use after close, and {@code compute} of
 * a key outside the view.
 */
class MapViewEdgeCasesTest {
    @TempDir
    Path dir;

    /** What a call gives: its result, or the class of what it threw. */
    private static <M> Object outcome(M map, Function<M, Object> call) {
        try {
            Object r = call.apply(map);
            return r instanceof NavigableMap<?, ?> m ? m.keySet().toString() : String.valueOf(r);
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName();
        }
    }

    @Test
    void aViewCannotBeNarrowedPastItsOtherEnd() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<String, Long> map = db.asMap(Codecs.STRING, Codecs.LONG);
            TreeMap<String, Long> model = new TreeMap<>();
            for (String k : List.of("a", "b", "c", "m", "x", "y")) {
                map.put(k, 1L);
                model.put(k, 1L);
            }
            List<Function<NavigableMap<String, Long>, Object>> calls = List.of(
                    m -> m.headMap("c", false).tailMap("x", true),
                    m -> m.headMap("c", false).tailMap("c", false),
                    m -> m.headMap("c", false).tailMap("c", true),
                    m -> m.headMap("c", true).tailMap("c", true),
                    m -> m.tailMap("x", true).headMap("c", false),
                    m -> m.tailMap("x", false).headMap("x", false),
                    m -> m.tailMap("x", false).headMap("x", true),
                    m -> m.subMap("a", true, "c", false).tailMap("x", true),
                    m -> m.subMap("a", true, "c", false).headMap("a", false),
                    m -> m.descendingMap().headMap("x", false).tailMap("c", true),
                    m -> m.descendingMap().tailMap("c", true).headMap("x", false),
                    m -> m.descendingMap().tailMap("c", true).headMap("a", true),
                    m -> m.navigableKeySet().headSet("c", false).tailSet("x", true).toString(),
                    m -> m.subMap("b", true, "y", true).subMap("c", true, "x", false));
            for (int i = 0; i < calls.size(); i++) {
                Function<NavigableMap<String, Long>, Object> call = calls.get(i);
                assertEquals(outcome(model, call), outcome(map, call), "call " + i);
            }
        }
    }

    @Test
    void clearOfAnEmptyRangeBelowTheEmptyKeyDoesNothing() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            map.put(new byte[0], new byte[] {1});
            map.put(new byte[] {5}, new byte[] {2});
            map.headMap(new byte[0]).clear();
            map.headMap(new byte[0], false).keySet().clear();
            map.descendingMap().tailMap(new byte[0], false).clear();
            db.asMap(Codecs.STRING, Codecs.STRING).headMap("").clear();
            assertEquals(2, map.size());
            map.headMap(new byte[0], true).clear();
            assertEquals(1, map.size(), "the empty key itself, inclusive");
        }
    }

    @Test
    void clearWorksWithBoundsOfTheGreatestKeyLength() throws Exception {
        byte[] max = new byte[Options.MAX_KEY_BYTES];
        Arrays.fill(max, (byte) 'm');
        byte[] allFf = new byte[Options.MAX_KEY_BYTES];
        Arrays.fill(allFf, (byte) 0xFF);
        byte[] below = {'a'};
        byte[] above = {'z'};
        List<Function<NavigableMap<byte[], byte[]>, NavigableMap<byte[], byte[]>>> views = List.of(
                m -> m.headMap(max, true),
                m -> m.tailMap(max, false),
                m -> m.subMap(below, true, max, true),
                m -> m.headMap(allFf, true),
                m -> m.tailMap(allFf, false),
                m -> m.tailMap(max, true).headMap(allFf, true),
                m -> m.descendingMap().headMap(max, false));
        for (int i = 0; i < views.size(); i++) {
            try (RemixDB db = RemixDB.open(dir.resolve("v" + i))) {
                ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
                TreeMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
                for (byte[] k : List.of(below, max, above, allFf, Arrays.copyOf(max, 7))) {
                    map.put(k, new byte[] {1});
                    model.put(k, new byte[] {1});
                }
                views.get(i).apply(map).clear();
                views.get(i).apply(model).clear();
                assertEquals(keys(model), keys(map), "view " + i);
            }
        }
    }

    private static List<String> keys(NavigableMap<byte[], byte[]> map) {
        List<String> out = new ArrayList<>();
        for (byte[] k : map.keySet()) {
            out.add(k.length > 16 ? k.length + " bytes of " + (k[0] & 0xFF) : Arrays.toString(k));
        }
        return out;
    }

    @Test
    void streamsOfTheViewsSurviveWritesDuringTheWalk() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<Long, Long> map = db.asMap(Codecs.LONG, Codecs.LONG);
            for (long i = 0; i < 50; i++) {
                map.put(i, i);
            }
            // A key added ahead of the walk is seen (weakly consistent), a key removed ahead is not.
            Object[] keys = map.keySet().stream().peek(k -> {
                if (k == 2) {
                    map.put(95L, 95L);
                }
            }).toArray();
            assertEquals(51, keys.length);
            List<Long> values = map.values().stream().peek(v -> {
                if (v == 2) {
                    map.remove(49L);
                }
            }).toList();
            assertEquals(50, values.size());
            // toList, not count: a SIZED stream's count() would not walk at all.
            assertEquals(50, map.entrySet().stream().peek(e -> {
                if (e.getKey() == 0) {
                    map.put(96L, 96L);
                    map.remove(95L);
                }
            }).toList().size());
            assertEquals(List.of(0L, 1L, 2L), map.headMap(3L).keySet().stream().toList());
            assertEquals(List.of(2L, 1L, 0L), map.headMap(3L).descendingKeySet().stream().toList());
        }
    }

    @Test
    void everyUseOfAViewAfterCloseThrows() throws Exception {
        RemixDB db = RemixDB.open(dir);
        ConcurrentNavigableMap<String, Long> map = db.asMap(Codecs.STRING, Codecs.LONG);
        ConcurrentNavigableMap<String, Long> head = map.headMap("m");
        db.close();
        assertThrows(ClosedException.class, () -> head.get("z"), "a key out of the view's range");
        assertThrows(ClosedException.class, () -> head.containsKey("z"));
        assertThrows(ClosedException.class, () -> head.remove("z"));
        assertThrows(ClosedException.class, () -> head.remove("z", 1L));
        assertThrows(ClosedException.class, () -> head.replace("z", 1L));
        assertThrows(ClosedException.class, () -> head.subMap("a", "b"));
        assertThrows(ClosedException.class, () -> map.descendingMap());
        assertThrows(ClosedException.class, () -> head.get("a"));
    }

    @Test
    void computeOfAKeyOutsideTheViewActsAsOnAnAbsentKey() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<String, Long> head = db.asMap(Codecs.STRING, Codecs.LONG).headMap("m");
            TreeMap<String, Long> model = new TreeMap<>();
            NavigableMap<String, Long> modelHead = model.headMap("m", false);
            int[] calls = new int[2];
            assertNull(head.compute("z", (k, v) -> {
                calls[0]++;
                return null;
            }));
            assertNull(modelHead.compute("z", (k, v) -> {
                calls[1]++;
                return null;
            }));
            assertEquals(calls[1], calls[0], "the function runs as it does for TreeMap");
            assertNull(head.computeIfAbsent("z", k -> null));
            assertThrows(IllegalArgumentException.class, () -> head.compute("z", (k, v) -> 1L));
            assertThrows(IllegalArgumentException.class, () -> head.computeIfAbsent("z", k -> 1L));
            assertThrows(IllegalArgumentException.class, () -> modelHead.compute("z", (k, v) -> 1L));
            assertNull(head.get("z"));
            assertTrue(head.isEmpty());
        }
    }

    @Test
    void theOrderOfAKeySetStreamIsTheViewsOrder() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            map.put(new byte[] {(byte) 0xFF}, new byte[0]);
            map.put(new byte[] {1}, new byte[0]);
            List<byte[]> keys = map.keySet().stream().toList();
            assertArrayEquals(new byte[] {1}, keys.get(0));
            // Not SORTED (byte[] has no natural order): sorting the stream really sorts it.
            assertArrayEquals(new byte[] {(byte) 0xFF},
                    map.keySet().stream().sorted((a, b) -> Arrays.compareUnsigned(b, a)).toList().get(0));
            List<byte[]> descending = map.descendingKeySet().stream().toList();
            assertArrayEquals(new byte[] {(byte) 0xFF}, descending.get(0));
        }
    }

    @Test
    void entrySetContainsOfAKeyTooLongToStoreIsFalse() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            map.put(new byte[] {1}, new byte[] {1});
            byte[] tooLong = new byte[Options.MAX_KEY_BYTES + 1];
            // As get, containsKey and remove answer: absent, not an error.
            assertEquals(false, map.entrySet().contains(Map.entry(tooLong, new byte[] {1})));
            assertEquals(false, map.headMap(new byte[] {2}).entrySet().contains(Map.entry(tooLong, new byte[] {1})));
            assertTrue(map.entrySet().contains(Map.entry(new byte[] {1}, new byte[] {1})));
        }
    }

    @Test
    void aSubMapKeepsItsRangeWhenTheCallerReusesTheBoundArrays() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            for (char c = 'a'; c <= 'e'; c++) {
                map.put(new byte[] {(byte) c}, new byte[] {1});
            }
            byte[] from = {'b'};
            byte[] to = {'d'};
            ConcurrentNavigableMap<byte[], byte[]> sub = map.subMap(from, to);
            ConcurrentNavigableMap<byte[], byte[]> tail = map.tailMap(from, false);
            from[0] = 'a';  // arrays passed in are never kept: the views stay [b, d) and (b, ...)
            to[0] = 'z';
            assertEquals(false, sub.containsKey(new byte[] {'a'}));
            assertEquals(false, sub.containsKey(new byte[] {'d'}));
            assertEquals(2, sub.size());
            assertThrows(IllegalArgumentException.class, () -> sub.put(new byte[] {'a'}, new byte[] {2}));
            assertEquals(false, tail.containsKey(new byte[] {'b'}));
            assertEquals(3, tail.size());
            sub.clear();
            assertEquals(List.of("a", "d", "e"), map.keySet().stream().map(String::new).toList());
        }
    }
}
