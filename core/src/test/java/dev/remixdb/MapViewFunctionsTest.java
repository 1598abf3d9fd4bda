package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Functions given to the map views' and the store's atomic operations, used as map users write
 * them (found by a review that ran them against {@link ConcurrentSkipListMap}): a function that
 * changes the value it is given and returns it, {@code replaceAll} with such a function, a
 * function that throws a checked exception through a lambda, and calls on keys a view or the
 * store cannot hold.
 */
class MapViewFunctionsTest {
    @TempDir
    Path dir;

    private static final ValueCodec<List<String>> LIST = new ValueCodec<>() {
        @Override
        public byte[] encode(List<String> v) {
            return String.join("\n", v).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public List<String> decode(byte[] b) {
            String s = new String(b, StandardCharsets.UTF_8);
            return s.isEmpty() ? new ArrayList<>() : new ArrayList<>(Arrays.asList(s.split("\n", -1)));
        }
    };

    @Test
    void aFunctionThatChangesTheValueItIsGivenIsStored() throws Exception {
        ConcurrentNavigableMap<String, List<String>> model = new ConcurrentSkipListMap<>();
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<String, List<String>> view = db.asMap(Codecs.STRING, LIST);
            for (ConcurrentNavigableMap<String, List<String>> m : List.of(model, view)) {
                String which = m == view ? "view" : "model";
                m.put("k", new ArrayList<>(List.of("a")));
                m.merge("k", List.of("b"), (old, add) -> {
                    old.addAll(add);
                    return old;
                });
                m.compute("k", (k, old) -> {
                    old.add("c");
                    return old;
                });
                assertEquals(List.of("a", "b", "c", "d"), m.computeIfPresent("k", (k, old) -> {
                    old.add("d");
                    return old;
                }), which);
                assertEquals(List.of("a", "b", "c", "d"), m.get("k"), which);
            }
            ConcurrentNavigableMap<byte[], byte[]> bytes = db.asMap();
            byte[] k = {1};
            bytes.put(k, new byte[] {0});
            assertArrayEquals(new byte[] {1}, bytes.compute(k, (kk, v) -> {
                v[0]++;
                return v;
            }));
            assertArrayEquals(new byte[] {1}, bytes.get(k));
            // The store's own compute: the function gets a copy it may change.
            byte[] k2 = {2};
            db.put(k2, new byte[] {5});
            byte[] got = db.compute(k2, v -> {
                v[0] = 6;
                return v;
            });
            assertArrayEquals(new byte[] {6}, got);
            assertArrayEquals(new byte[] {6}, db.get(k2));
            long written = db.stats().userBytesWritten();
            db.compute(k2, v -> v);  // unchanged: nothing to write
            assertEquals(written, db.stats().userBytesWritten());
        }
    }

    @Test
    void replaceAllWithAFunctionThatChangesItsValueEnds() throws Exception {
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            for (int i = 0; i < 10; i++) {
                map.put(new byte[] {(byte) i}, new byte[] {0});
            }
            int[] calls = {0};
            map.headMap(new byte[] {5}).replaceAll((k, v) -> {
                assertTrue(++calls[0] <= 5, "called " + calls[0] + " times");
                v[0]++;
                return v;
            });
            assertEquals(5, calls[0]);
            for (int i = 0; i < 10; i++) {
                assertArrayEquals(new byte[] {(byte) (i < 5 ? 1 : 0)}, map.get(new byte[] {(byte) i}));
            }
            assertThrows(NullPointerException.class, () -> map.replaceAll((k, v) -> null));
            assertEquals(10, map.size());
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException hidden(Throwable t) throws E {
        throw (E) t;
    }

    /**
     * A checked exception thrown through a lambda (Kotlin, Lombok) failed the whole store, and
     * another thread's put in the same write group with it, although that put became durable.
     */
    @Test
    void aCheckedExceptionFromAFunctionFailsOnlyItsCall() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<String, String> map = db.asMap(Codecs.STRING, Codecs.STRING);
            map.put("a", "1");
            Exception checked = new Exception("checked");
            Exception thrown = assertThrows(Exception.class, () -> map.compute("a", (k, v) -> {
                throw hidden(checked);
            }));
            assertSame(checked, thrown, "the function's own exception, as it is");
            assertEquals("1", map.get("a"));
            map.put("b", "2");  // the store still takes writes
            assertEquals("2", map.get("b"));
            // In one write group with other writers: only the failing call fails.
            CountDownLatch in = new CountDownLatch(1);
            Future<?> slow = pool.submit(() -> map.compute("s", (k, v) -> {
                in.countDown();
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                return "S";
            }));
            in.await();
            Future<?> put = pool.submit(() -> map.put("x", "X"));
            Thread.sleep(50);
            Future<?> bad = pool.submit(() -> map.compute("a", (k, v) -> {
                throw hidden(new Exception("checked too"));
            }));
            slow.get(10, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> bad.get(10, TimeUnit.SECONDS));
            assertEquals("checked too", e.getCause().getMessage());
            put.get(10, TimeUnit.SECONDS);
            assertEquals("X", map.get("x"));
        } finally {
            pool.shutdownNow();
        }
    }

    /** As a sorted map's sub-map: a key outside it is refused by replace as by put. */
    @Test
    void replaceOfAKeyOutsideASubMapIsRefused() throws Exception {
        ConcurrentNavigableMap<Integer, Integer> model = new ConcurrentSkipListMap<>();
        model.put(50, 1);
        assertThrows(IllegalArgumentException.class, () -> model.headMap(10).replace(50, 2));
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<Integer, Integer> map = db.asMap(Codecs.INTEGER, Codecs.INTEGER);
            map.put(50, 1);
            assertThrows(IllegalArgumentException.class, () -> map.headMap(10).replace(50, 2));
            assertThrows(IllegalArgumentException.class, () -> map.headMap(10).replace(50, 1, 2));
            assertEquals(1, map.get(50));
        }
    }

    /** A key longer than any the store holds is absent to the calls that only find. */
    @Test
    void aKeyTooLongToStoreIsAbsent() throws Exception {
        String tooLong = "a".repeat(Options.MAX_KEY_BYTES + 1);
        try (RemixDB db = RemixDB.open(dir)) {
            ConcurrentNavigableMap<String, String> map = db.asMap(Codecs.STRING, Codecs.STRING);
            assertNull(map.get(tooLong));
            assertFalse(map.containsKey(tooLong));
            assertNull(map.remove(tooLong));
            assertFalse(map.remove(tooLong, "x"));
            assertNull(map.replace(tooLong, "x"));
            assertFalse(map.replace(tooLong, "x", "y"));
            assertNull(map.computeIfPresent(tooLong, (k, v) -> "y"));
            assertNull(map.compute(tooLong, (k, v) -> null), "absent, and a null result changes nothing");
            assertNull(map.computeIfAbsent(tooLong, k -> null));
            assertThrows(IllegalArgumentException.class, () -> map.put(tooLong, "x"), "a write is refused");
            assertThrows(IllegalArgumentException.class, () -> map.compute(tooLong, (k, v) -> "x"));
            assertThrows(IllegalArgumentException.class, () -> map.computeIfAbsent(tooLong, k -> "x"));
        }
    }
}
