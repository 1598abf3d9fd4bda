package dev.remixdb.kafka;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The store's key-value contract, checked against Kafka's in-memory store as the model. */
class RemixKeyValueStoreTest {
    @TempDir
    Path dir;
    private StoreFixture fixture;
    private RemixKeyValueStore store;

    @BeforeEach
    void open() {
        fixture = new StoreFixture(dir.toFile());
        store = fixture.open("kv");
    }

    @AfterEach
    void close() {
        store.close();
    }

    static Bytes b(int... bytes) {
        byte[] a = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            a[i] = (byte) bytes[i];
        }
        return Bytes.wrap(a);
    }

    static List<String> drain(KeyValueIterator<Bytes, byte[]> it) {
        List<String> out = new ArrayList<>();
        try (it) {
            while (it.hasNext()) {
                Bytes peeked = it.peekNextKey();
                KeyValue<Bytes, byte[]> kv = it.next();
                assertEquals(peeked, kv.key);
                out.add(Arrays.toString(kv.key.get()) + "=" + Arrays.toString(kv.value));
            }
        }
        return out;
    }

    @Test
    void rangesMatchTheInMemoryStoreOnRandomData() {
        KeyValueStore<Bytes, byte[]> model = Stores.inMemoryKeyValueStore("model").get();
        model.init(fixture.processor.getStateStoreContext(), model);
        Random random = new Random(42);
        // Short keys over a small alphabet, including 0x00 and 0xFF, so bounds often hit keys, prefixes
        // of keys, and the ends of the byte range.
        int[] alphabet = {0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF};
        List<Bytes> keys = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int[] k = new int[random.nextInt(4)];
            for (int j = 0; j < k.length; j++) {
                k[j] = alphabet[random.nextInt(alphabet.length)];
            }
            keys.add(b(k));
            byte[] v = {(byte) i};
            if (random.nextInt(5) == 0) {
                store.delete(keys.get(i));
                model.delete(keys.get(i));
            } else {
                store.put(keys.get(i), v);
                model.put(keys.get(i), v);
            }
        }
        assertEquals(drain(model.all()), drain(store.all()));
        assertEquals(drain(model.reverseAll()), drain(store.reverseAll()));
        for (int i = 0; i < 400; i++) {
            Bytes from = random.nextInt(8) == 0 ? null : keys.get(random.nextInt(keys.size()));
            Bytes to = random.nextInt(8) == 0 ? null : keys.get(random.nextInt(keys.size()));
            String what = "range " + from + " .. " + to;
            assertEquals(drain(model.range(from, to)), drain(store.range(from, to)), what);
            assertEquals(drain(model.reverseRange(from, to)), drain(store.reverseRange(from, to)), what);
            // The model for prefixes is a filter over all(): the in-memory store's own prefixScan
            // gets prefixes ending in 0xFF wrong (its exclusive end, BytesUtils.increment, carries
            // into the previous byte and so admits keys that do not start with the prefix).
            byte[] prefix = keys.get(random.nextInt(keys.size())).get();
            List<String> expected = new ArrayList<>();
            try (KeyValueIterator<Bytes, byte[]> it = model.all()) {
                it.forEachRemaining(kv -> {
                    if (kv.key.get().length >= prefix.length
                            && Arrays.equals(kv.key.get(), 0, prefix.length, prefix, 0, prefix.length)) {
                        expected.add(Arrays.toString(kv.key.get()) + "=" + Arrays.toString(kv.value));
                    }
                });
            }
            assertEquals(expected, drain(store.prefixScan(prefix, Serdes.ByteArray().serializer())),
                    "prefix " + Arrays.toString(prefix));
        }
        model.close();
    }

    @Test
    void prefixScanCoversEmptyAndAllOnesPrefixes() {
        store.put(b(0xFE), new byte[] {1});
        store.put(b(0xFF), new byte[] {2});
        store.put(b(0xFF, 0xFF), new byte[] {3});
        store.put(b(0xFF, 0xFF, 0x00), new byte[] {4});
        assertEquals(List.of("[-1, -1]=[3]", "[-1, -1, 0]=[4]"),
                drain(store.prefixScan(new byte[] {-1, -1}, Serdes.ByteArray().serializer())));
        assertEquals(4, drain(store.prefixScan(new byte[0], Serdes.ByteArray().serializer())).size());
        assertEquals(List.of(), drain(store.prefixScan(new byte[] {0x10}, Serdes.ByteArray().serializer())));
    }

    @Test
    void rangeBoundsAreInclusiveOpenWhenNullAndEmptyWhenReversed() {
        for (int i = 1; i <= 5; i++) {
            store.put(b(i), new byte[] {(byte) i});
        }
        assertEquals(3, drain(store.range(b(2), b(4))).size());
        assertEquals(List.of("[4]=[4]", "[3]=[3]", "[2]=[2]"), drain(store.reverseRange(b(2), b(4))));
        assertEquals(4, drain(store.range(b(2), null)).size());
        assertEquals(2, drain(store.range(null, b(2))).size());
        assertEquals(List.of(), drain(store.range(b(4), b(2))));
        assertEquals(List.of(), drain(store.reverseRange(b(4), b(2))));
        // A bound that is a prefix of keys: [2] < [2, 0] < [3].
        store.put(b(2, 0), new byte[] {9});
        assertEquals(List.of("[2]=[2]"), drain(store.range(b(2), b(2))));
        assertEquals(2, drain(store.range(b(2), b(2, 0))).size());
    }

    @Test
    void deleteReturnsTheOldValueAndPutIfAbsentKeepsThePresentOne() {
        assertNull(store.putIfAbsent(b(1), new byte[] {1}));
        assertArrayEquals(new byte[] {1}, store.putIfAbsent(b(1), new byte[] {2}));
        assertArrayEquals(new byte[] {1}, store.get(b(1)));
        assertArrayEquals(new byte[] {1}, store.delete(b(1)));
        assertNull(store.delete(b(1)));
        assertNull(store.get(b(1)));
        store.put(b(2), new byte[] {2});
        store.put(b(2), null);
        assertNull(store.get(b(2)));
        store.put(b(3), new byte[0]);
        assertArrayEquals(new byte[0], store.get(b(3)), "an empty value is a value, not a delete");
    }

    @Test
    void putAllIsOneBatchAndABadEntryWritesNothing() {
        store.put(b(9), new byte[] {9});
        List<KeyValue<Bytes, byte[]>> bad = new ArrayList<>();
        bad.add(KeyValue.pair(b(1), new byte[] {1}));
        bad.add(KeyValue.pair(Bytes.wrap(new byte[70_000]), new byte[] {2}));  // over the key limit
        assertThrows(ProcessorStateException.class, () -> store.putAll(bad));
        assertNull(store.get(b(1)), "nothing of a refused batch is written");
        bad.set(1, KeyValue.pair(null, new byte[] {2}));
        assertThrows(NullPointerException.class, () -> store.putAll(bad));
        assertNull(store.get(b(1)));

        // An iterator opened before the batch sees none of it; one opened after sees all of it.
        KeyValueIterator<Bytes, byte[]> before = store.all();
        store.putAll(List.of(KeyValue.pair(b(1), new byte[] {1}), KeyValue.pair(b(2), new byte[] {2}),
                KeyValue.pair(b(9), null)));
        assertEquals(List.of("[9]=[9]"), drain(before));
        assertEquals(List.of("[1]=[1]", "[2]=[2]"), drain(store.all()));
    }

    @Test
    void iteratorsReadASnapshotAndStoreCloseClosesLeakedOnes() {
        for (int i = 0; i < 10; i++) {
            store.put(b(i), new byte[] {(byte) i});
        }
        KeyValueIterator<Bytes, byte[]> it = store.range(b(0), b(9));
        assertEquals(b(0), it.next().key);
        store.delete(b(1));
        store.put(b(5), new byte[] {55});
        store.put(b(20), new byte[] {20});
        assertArrayEquals(new byte[] {1}, it.next().value, "the snapshot still holds the deleted key");
        int rest = 0;
        while (it.hasNext()) {
            KeyValue<Bytes, byte[]> kv = it.next();
            if (kv.key.equals(b(5))) {
                assertArrayEquals(new byte[] {5}, kv.value);
            }
            rest++;
        }
        assertEquals(8, rest);
        it.close();
        assertEquals(0, store.openIteratorCount());

        KeyValueIterator<Bytes, byte[]> leaked1 = store.all();
        KeyValueIterator<Bytes, byte[]> leaked2 = store.reverseRange(b(2), b(4));
        assertEquals(2, store.openIteratorCount());
        store.close();
        assertEquals(0, store.openIteratorCount());
        assertThrows(InvalidStateStoreException.class, leaked1::hasNext);
        assertThrows(InvalidStateStoreException.class, leaked2::next);
    }

    @Test
    void aClosedStoreRefusesEveryOperation() {
        store.put(b(1), new byte[] {1});
        assertTrue(store.isOpen());
        store.close();
        store.close();  // idempotent
        assertFalse(store.isOpen());
        assertThrows(InvalidStateStoreException.class, () -> store.get(b(1)));
        assertThrows(InvalidStateStoreException.class, () -> store.put(b(1), new byte[] {1}));
        assertThrows(InvalidStateStoreException.class, () -> store.putAll(List.of()));
        assertThrows(InvalidStateStoreException.class, () -> store.delete(b(1)));
        assertThrows(InvalidStateStoreException.class, () -> store.range(null, null));
        assertThrows(InvalidStateStoreException.class, () -> store.range(b(2), b(1)));
        assertThrows(InvalidStateStoreException.class, store::approximateNumEntries);
        assertThrows(InvalidStateStoreException.class, () -> store.committedOffset(null));
    }

    @Test
    void nullKeysAreRefused() {
        assertThrows(NullPointerException.class, () -> store.put(null, new byte[] {1}));
        assertThrows(NullPointerException.class, () -> store.get(null));
        assertThrows(NullPointerException.class, () -> store.delete(null));
    }

    @Test
    void anEmptyStoreCountsNoEntriesAndItsOwnKeysNever() {
        assertEquals(0, store.approximateNumEntries(), "the store's metadata keys are not user entries");
        store.put(b(1), new byte[] {1});
        store.put(b(2), new byte[] {2});
        store.put(b(3), new byte[] {3});
        assertEquals(3, store.approximateNumEntries());
        store.flush();  // writes the committed offsets and position as metadata
        assertEquals(3, store.approximateNumEntries());
    }

    @Test
    void deletesTakeEntriesOffTheCount() {
        for (int i = 0; i < 100; i++) {
            store.put(b(i), new byte[] {1});
        }
        for (int i = 0; i < 60; i++) {
            store.delete(b(i));
        }
        assertEquals(40, store.approximateNumEntries());
        store.flush();
        assertEquals(40, store.approximateNumEntries());
    }

    @Test
    void theInvalidRangeWarningIsKafkasOwnSentence() throws Exception {
        // Kafka's RocksDB store has the sentence inline in its code: find it in the class file.
        try (var in = org.apache.kafka.streams.state.internals.RocksDBStore.class
                .getResourceAsStream("RocksDBStore.class")) {
            String classFile = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(classFile.contains(RemixKeyValueStore.INVALID_RANGE),
                    "our warning differs from Kafka's: " + RemixKeyValueStore.INVALID_RANGE);
        }
    }

    @Test
    void storeLivesInStateDirSlashNameAndIsPersistent() {
        assertTrue(Files.isDirectory(dir.resolve("kv")));
        assertTrue(store.persistent());
        assertEquals("kv", store.name());
        store.put(b(1), new byte[] {1});
        store.put(b(2), new byte[] {2});
        long n = store.approximateNumEntries();
        assertTrue(n >= 2, "approximate entries " + n);
        store.close();
        store = fixture.open("kv");
        assertArrayEquals(new byte[] {2}, store.get(b(2)));
    }

    @Test
    void underTheMeteredWrapperItsGaugesAppearAndGoAtClose() {
        StateStore root = Stores.keyValueStoreBuilder(RemixStores.persistentKeyValueStore("wrapped"),
                Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().build();
        // The metered wrapper needs Kafka's internal context, which the mock's store context is.
        root.init(fixture.processor.getStateStoreContext(), root);
        try {
            assertTrue(root.isOpen());
            var gauges = fixture.metrics().metrics().entrySet().stream()
                    .filter(e -> "wrapped".equals(e.getKey().tags().get("remixdb-state-id")))
                    .filter(e -> e.getKey().group().equals("stream-state-metrics"))
                    .toList();
            List<String> names = gauges.stream().map(e -> e.getKey().name()).sorted().toList();
            assertTrue(names.containsAll(List.of("off-heap-bytes", "total-disk-bytes", "write-amplification",
                    "block-cache-usage", "estimate-num-keys", "write-stall-time-total", "write-slowdown-time-total",
                    "put-rate", "range-rate")), names.toString());
            double offHeap = gauges.stream().filter(e -> e.getKey().name().equals("off-heap-bytes"))
                    .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).findFirst().orElseThrow();
            assertTrue(offHeap > 0, "off-heap bytes " + offHeap);
        } finally {
            root.close();
        }
        assertFalse(root.isOpen());
        assertTrue(fixture.metrics().metrics().keySet().stream()
                .noneMatch(n -> "wrapped".equals(n.tags().get("remixdb-state-id"))), "gauges removed at close");
    }

    /** An interactive query iterating while the stream thread writes sees ordered, complete snapshots. */
    @Test
    void iteratorsAreSafeWhileAnotherThreadWrites() throws Exception {
        for (int i = 0; i < 1000; i++) {
            store.put(b(i >> 8, i), new byte[] {1});
        }
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread writer = new Thread(() -> {
            for (int round = 0; !stop.get() && round < 200; round++) {
                for (int i = 0; i < 1000; i += 7) {
                    store.put(b(i >> 8, i), new byte[] {(byte) round});
                    store.put(b(9, i >> 8, i), new byte[] {(byte) round});  // new keys, outside the range read below
                }
            }
        });
        writer.start();
        try {
            for (int scan = 0; scan < 50; scan++) {
                Bytes previous = null;
                int n = 0;
                try (KeyValueIterator<Bytes, byte[]> it = store.range(b(0), b(3, 0xFF))) {
                    while (it.hasNext()) {
                        Bytes k = it.next().key;
                        assertTrue(previous == null || previous.compareTo(k) < 0, "order at " + k);
                        previous = k;
                        n++;
                    }
                }
                assertEquals(1000, n, "every key of the range, once");
            }
        } finally {
            stop.set(true);
            writer.join();
        }
    }

    /**
     * A rebalance closes a store while an interactive query iterates it: the query gets
     * InvalidStateStoreException, which Kafka's query layers retry on, never the engine's own exception.
     */
    @Test
    void anIteratorReadingWhileTheStoreClosesFailsAsAStateStoreError() throws Exception {
        for (int i = 0; i < 20_000; i++) {
            store.put(Bytes.wrap(("k" + i).getBytes()), new byte[50]);
        }
        store.close();
        java.util.Map<String, Integer> seen = new java.util.TreeMap<>();
        for (int round = 0; round < 60; round++) {
            RemixKeyValueStore st = fixture.open("kv");
            java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
            boolean forward = round % 2 == 0;
            Thread reader = new Thread(() -> {
                try {
                    while (true) {
                        try (KeyValueIterator<Bytes, byte[]> it = forward ? st.all() : st.reverseAll()) {
                            while (it.hasNext()) {
                                it.peekNextKey();
                                it.next();
                                reading.countDown();
                            }
                        }
                    }
                } catch (RuntimeException e) {
                    synchronized (seen) {
                        seen.merge(e.getClass().getName(), 1, Integer::sum);
                    }
                }
            });
            reader.start();
            reading.await();
            Thread.sleep(round % 5);
            st.close();
            reader.join(10_000);
            assertFalse(reader.isAlive(), "the reader did not end after the close");
        }
        assertEquals(java.util.Map.of(InvalidStateStoreException.class.getName(), 60), seen);
        store = fixture.open("kv");
    }
}
