package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The map views beyond Guava's conformance suites: the byte-array map, misuse, weakly consistent
 * iteration under concurrent writes, atomic operations under contention, and stats for monitoring.
 */
class MapViewTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theByteMapIsOrderedUnsignedAndWritesThrough() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            map.put(new byte[] {(byte) 0xFF}, b("high"));
            map.put(new byte[] {0x01}, b("low"));
            map.put(new byte[] {}, b("empty"));
            assertArrayEquals(new byte[] {}, map.firstKey());
            assertArrayEquals(new byte[] {(byte) 0xFF}, map.lastKey(), "0xFF sorts last: unsigned");
            assertArrayEquals(b("low"), db.get(new byte[] {0x01}));
            assertArrayEquals(b("low"), map.get(new byte[] {0x01}), "lookups by content, not identity");
            assertArrayEquals(new byte[] {0x01}, map.higherKey(new byte[] {}));
            assertEquals(2, map.tailMap(new byte[] {0x01}).size());
            assertArrayEquals(new byte[] {(byte) 0xFF}, map.descendingMap().firstKey());
            assertTrue(map.remove(new byte[] {0x01}, b("low")), "conditional remove compares bytes");
            assertNull(db.get(new byte[] {0x01}));
        }
    }

    @Test
    void misuseGivesClearErrorsAndChangesNothing() throws Exception {
        RemixDB db = RemixDB.open(dir);
        ConcurrentNavigableMap<String, Long> map = db.asMap(Codecs.STRING, Codecs.LONG);
        map.put("a", 1L);
        assertThrows(NullPointerException.class, () -> map.put(null, 1L));
        assertThrows(NullPointerException.class, () -> map.put("b", null));
        assertThrows(NullPointerException.class, () -> map.get(null));
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> map.put("x".repeat(Options.MAX_KEY_BYTES + 1), 1L));
        assertTrue(big.getMessage().contains("key"), big.getMessage());
        ConcurrentNavigableMap<String, Long> head = map.headMap("m");
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class, () -> head.put("z", 1L));
        assertTrue(range.getMessage().contains("out of range"), range.getMessage());
        assertThrows(IllegalArgumentException.class, () -> map.subMap("z", "a"));
        assertThrows(IllegalArgumentException.class, () -> db.asMap(null, Codecs.LONG));
        assertEquals(Map.of("a", 1L), Map.copyOf(map));
        db.close();
        assertThrows(ClosedException.class, () -> map.get("a"));
        assertThrows(ClosedException.class, () -> map.put("c", 3L));
        assertThrows(ClosedException.class, map::firstKey);
        assertThrows(ClosedException.class, () -> map.entrySet().iterator().hasNext());
        assertThrows(ClosedException.class, () -> db.asMap());
        try (RemixDB again = RemixDB.open(dir)) {
            assertEquals(Map.of("a", 1L), Map.copyOf(again.asMap(Codecs.STRING, Codecs.LONG)));
        }
    }

    /**
     * Writers insert odd keys and delete them again while an iterator walks: even keys, present all
     * along, must each be seen exactly once, in order, whichever way it goes.
     */
    @Test
    void iteratorsAreWeaklyConsistent() throws Exception {
        Options small = Options.builder().memtableBytes(16 * 1024).tableBytes(8 * 1024).build();
        try (RemixDB db = RemixDB.open(dir, small)) {
            ConcurrentNavigableMap<Integer, Integer> map = db.asMap(Codecs.INTEGER, Codecs.INTEGER);
            for (int i = 0; i < 4000; i += 2) {
                map.put(i, i);
            }
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = Thread.ofPlatform().start(() -> {
                for (int round = 0; !stop.get(); round++) {
                    for (int i = 1; i < 4000 && !stop.get(); i += 2) {
                        if ((i + round) % 3 == 0) {
                            map.put(i, -i);
                        } else {
                            map.remove(i);
                        }
                    }
                }
            });
            try {
                for (ConcurrentNavigableMap<Integer, Integer> m : List.of(map, map.descendingMap())) {
                    for (int pass = 0; pass < 3; pass++) {
                        List<Integer> evens = new ArrayList<>();
                        Integer last = null;
                        for (Map.Entry<Integer, Integer> e : m.entrySet()) {
                            if (last != null) {
                                assertTrue(m.comparator().compare(last, e.getKey()) < 0, "in order: " + last + ", " + e.getKey());
                            }
                            last = e.getKey();
                            if (e.getKey() % 2 == 0) {
                                assertEquals(e.getKey(), e.getValue());
                                evens.add(e.getKey());
                            }
                        }
                        assertEquals(2000, evens.size(), "every even key exactly once");
                    }
                }
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }

    @Test
    void iteratorRemoveDeletesTheLastKeyReturned() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<String, String> map = db.asMap(Codecs.STRING, Codecs.STRING);
            for (String k : List.of("a", "b", "c", "d")) {
                map.put(k, k.toUpperCase());
            }
            Iterator<String> it = map.descendingKeySet().iterator();
            assertThrows(IllegalStateException.class, it::remove);
            assertEquals("d", it.next());
            it.next();
            it.remove();
            assertThrows(IllegalStateException.class, it::remove);
            assertEquals(List.of("a", "b", "d"), new ArrayList<>(map.keySet()));
            Map.Entry<String, String> e = map.entrySet().iterator().next();
            assertEquals("A", e.setValue("changed"));
            assertEquals("changed", map.get("a"));
            assertEquals(Map.entry("a", "changed"), map.pollFirstEntry());
            assertEquals(List.of("b", "d"), new ArrayList<>(map.keySet()));
        }
    }

    /** Contended map.merge and replace loops: the map's atomic operations lose no update. */
    @Test
    void mapOperationsAreAtomicUnderContention() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<String, Long> map = db.asMap(Codecs.STRING, Codecs.LONG);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 1000; i++) {
                        map.merge("merged", 1L, Long::sum);
                        for (;;) {
                            Long old = map.putIfAbsent("cas", 1L);
                            if (old == null || map.replace("cas", old, old + 1)) {
                                break;
                            }
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(4000L, map.get("merged"));
            assertEquals(4000L, map.get("cas"));
        }
    }

    @Test
    void putAllIsOneAtomicBatch() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<String, String> map = db.asMap(Codecs.STRING, Codecs.STRING);
            Map<String, String> in = new java.util.TreeMap<>();
            in.put("a", "1");
            in.put("b", "2");
            in.put("c", "3");
            long before = db.stats().walBytesWritten();
            map.putAll(in);
            assertEquals(in, Map.copyOf(map));
            assertTrue(db.stats().walBytesWritten() > before);
            Map<String, String> bad = new java.util.HashMap<>(in);
            bad.put("d", null);
            assertThrows(NullPointerException.class, () -> map.putAll(bad));
            assertFalse(map.containsKey("d"));
        }
    }

    @Test
    void statsAreReadableAndReachableThroughJmx() throws Exception {
        try (RemixDB db = RemixDB.open(dir, Options.builder().jmx(true).build())) {
            db.put(b("k"), b("v"));
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("dev.remixdb:type=RemixDB,path="
                    + ObjectName.quote(dir.toAbsolutePath().toString()));
            assertTrue(server.isRegistered(name));
            assertEquals(db.stats().userBytesWritten(), (Long) server.getAttribute(name, "UserBytesWritten"));
            assertEquals(0, (Integer) server.getAttribute(name, "OpenSnapshots"));
            assertEquals(db.stats().keys(), db.statsBean().getKeys());
            String text = db.stats().toString();
            assertTrue(text.contains("write amplification") && text.contains("snapshots"), text);
            db.close();
            assertFalse(server.isRegistered(name), "close unregisters");
            assertThrows(ClosedException.class, () -> db.statsBean().getKeys());
        }
    }
}
