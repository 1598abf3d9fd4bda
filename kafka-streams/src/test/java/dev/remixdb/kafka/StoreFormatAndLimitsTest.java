package dev.remixdb.kafka;

import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.internals.ValueAndTimestampSerde;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store's value format across suppliers (plain to timestamped converts in place, resumably; the
 * way back is refused), the key and value limits as a Kafka store user meets them, and a store
 * object initialised again after Kafka wiped its directory.
 */
class StoreFormatAndLimitsTest {
    private static final TopicPartition TP = new TopicPartition("changelog", 0);

    @TempDir
    Path dir;

    private static Bytes key(int i) {
        return Bytes.wrap(String.format("key-%06d", i).getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(int i) {
        // Lengths 0 to 40: short values (under a timestamp's 8 bytes) are the ones a misread breaks.
        byte[] v = new byte[i % 41];
        Arrays.fill(v, (byte) i);
        return v;
    }

    private RemixKeyValueStore open(StoreFixture context, String name, boolean timestamped) {
        RemixKeyValueStore store = timestamped
                ? new RemixTimestampedKeyValueStore(name, RemixKeyValueBytesStoreSupplier.METRICS_SCOPE)
                : new RemixKeyValueStore(name, RemixKeyValueBytesStoreSupplier.METRICS_SCOPE);
        store.init(context, store);
        return store;
    }

    @Test
    void aPlainStoreOpenedAsTimestampedIsConvertedInPlace() {
        StoreFixture context = new StoreFixture(dir.toFile());
        RemixKeyValueStore plain = open(context, "s", false);
        int n = 3000;
        for (int i = 0; i < n; i++) {
            plain.put(key(i), value(i));
        }
        plain.commit(Map.of(TP, 41L));
        plain.close();

        RemixKeyValueStore timestamped = open(context, "s", true);
        ValueAndTimestampSerde<byte[]> serde = new ValueAndTimestampSerde<>(Serdes.ByteArray());
        for (int i = 0; i < n; i++) {
            ValueAndTimestamp<byte[]> vt = serde.deserializer().deserialize("t", timestamped.get(key(i)));
            assertArrayEquals(value(i), vt.value(), "value of " + key(i));
            assertEquals(-1L, vt.timestamp());
        }
        assertEquals(41L, timestamped.committedOffset(TP), "metadata is not converted");
        // New writes are the caller's timestamped bytes, kept as they are.
        byte[] fresh = serde.serializer().serialize("t", ValueAndTimestamp.make(new byte[] {7}, 1234L));
        timestamped.put(key(n), fresh);
        timestamped.close();

        // Reopened as timestamped: nothing is converted twice.
        timestamped = open(context, "s", true);
        assertArrayEquals(TimestampedBytesStore.convertToTimestampedFormat(value(5)), timestamped.get(key(5)));
        assertArrayEquals(fresh, timestamped.get(key(n)));
        timestamped.close();
    }

    /** Bytes of each value {@link #cutShortConversion} writes. */
    private static final int BIG = 64 << 10;

    /**
     * Fills a plain store "s" with values of {@link #BIG} bytes, about {@code batches} conversion
     * batches of them (each value's first two bytes its index), then runs a conversion to the
     * timestamped format that stops after {@code converted} batches, as a crash would leave it.
     * Returns how many keys were written.
     */
    private int cutShortConversion(StoreFixture context, int batches, int converted) throws Exception {
        RemixKeyValueStore plain = open(context, "s", false);
        int n = (int) (batches * StoreFormat.BATCH_BYTES / BIG) + 7;
        for (int i = 0; i < n; i++) {
            byte[] big = new byte[BIG];
            big[0] = (byte) i;
            big[1] = (byte) (i >> 8);
            plain.put(key(i), big);
        }
        plain.close();
        Path db = context.stateDir().toPath().resolve("s");
        try (RemixDB d = RemixDB.open(db, StoreOptions.forStore("s", Map.of()))) {
            StoreFormat.check(d, true, "s", db, converted);
        }
        return n;
    }

    @Test
    void aConversionCutShortResumesWithoutConvertingAValueTwice() throws Exception {
        StoreFixture context = new StoreFixture(dir.toFile());
        int n = cutShortConversion(context, 3, 2);

        RemixKeyValueStore timestamped = open(context, "s", true);
        for (int i = 0; i < n; i++) {
            byte[] got = timestamped.get(key(i));
            assertEquals(8 + BIG, got.length, "value " + i + " converted exactly once");
            assertEquals(-1L, java.nio.ByteBuffer.wrap(got).getLong());
            assertEquals((byte) i, got[8]);
            assertEquals((byte) (i >> 8), got[9]);
        }
        timestamped.close();
    }

    @Test
    void aHalfConvertedStoreOpensOnlyAsTimestamped() throws Exception {
        StoreFixture context = new StoreFixture(dir.toFile());
        int n = cutShortConversion(context, 2, 1);

        // A rollback to the plain supplier now would read half-converted values: refused.
        RemixKeyValueStore again = new RemixKeyValueStore("s", RemixKeyValueBytesStoreSupplier.METRICS_SCOPE);
        ProcessorStateException e = assertThrows(ProcessorStateException.class, () -> again.init(context, again));
        assertTrue(e.getMessage().contains("under way"), e.getMessage());

        RemixKeyValueStore timestamped = open(context, "s", true);
        for (int i = 0; i < n; i++) {
            assertEquals(8 + BIG, timestamped.get(key(i)).length, "value " + i);
        }
        timestamped.close();
    }

    @Test
    void aValueTheTimestampWouldPushOverTheLimitStopsTheUpgradeBeforeAnyChange() {
        StoreFixture context = new StoreFixture(dir.toFile());
        RemixKeyValueStore plain = open(context, "s", false);
        byte[] huge = new byte[Options.MAX_VALUE_BYTES - 4];
        huge[0] = 42;
        plain.put(key(1), new byte[] {1});
        plain.put(key(2), huge);
        plain.close();

        RemixKeyValueStore timestamped = new RemixTimestampedKeyValueStore("s", RemixKeyValueBytesStoreSupplier.METRICS_SCOPE);
        ProcessorStateException e = assertThrows(ProcessorStateException.class,
                () -> timestamped.init(context, timestamped));
        assertTrue(e.getMessage().contains("Nothing was converted"), e.getMessage());

        plain = open(context, "s", false);
        assertArrayEquals(new byte[] {1}, plain.get(key(1)));
        assertEquals(huge.length, plain.get(key(2)).length);
        plain.close();
    }

    @Test
    void aStoreWithoutTheMarkTakesTheFormatOfItsFirstOpenerUnchanged() throws Exception {
        StoreFixture context = new StoreFixture(dir.toFile());
        RemixKeyValueStore plain = open(context, "s", false);
        plain.put(key(1), value(20));
        plain.close();
        Path db = context.stateDir().toPath().resolve("s");
        try (RemixDB d = RemixDB.open(db, StoreOptions.forStore("s", Map.of()))) {
            d.delete(StoreKeys.meta("format"));  // as an older build left it
        }
        RemixKeyValueStore timestamped = open(context, "s", true);
        assertArrayEquals(value(20), timestamped.get(key(1)), "no mark, no conversion (a warning is logged)");
        timestamped.close();
        timestamped = open(context, "s", true);
        assertArrayEquals(value(20), timestamped.get(key(1)));
        timestamped.close();
    }

    @Test
    void aTimestampedStoreOpenedAsPlainIsRefusedAndKeepsItsData() {
        StoreFixture context = new StoreFixture(dir.toFile());
        RemixKeyValueStore timestamped = open(context, "s", true);
        byte[] stored = TimestampedBytesStore.convertToTimestampedFormat(new byte[] {1, 2, 3});
        timestamped.put(key(1), stored);
        timestamped.close();

        RemixKeyValueStore plain = new RemixKeyValueStore("s", RemixKeyValueBytesStoreSupplier.METRICS_SCOPE);
        ProcessorStateException e = assertThrows(ProcessorStateException.class, () -> plain.init(context, plain));
        assertTrue(e.getMessage().contains("timestamped"), e.getMessage());
        assertTrue(!plain.isOpen());

        timestamped = open(context, "s", true);
        assertArrayEquals(stored, timestamped.get(key(1)));
        timestamped.close();
    }

    @Test
    void keysAndValuesOverTheLimitsAreRefusedByWritesAndAbsentForReads() {
        StoreFixture context = new StoreFixture(dir.toFile());
        RemixKeyValueStore store = open(context, "s", false);
        Bytes longest = Bytes.wrap(new byte[StoreKeys.MAX_USER_KEY]);
        Bytes tooLong = Bytes.wrap(new byte[StoreKeys.MAX_USER_KEY + 1]);

        store.put(longest, new byte[] {1});
        assertArrayEquals(new byte[] {1}, store.get(longest));

        assertNull(store.get(tooLong));
        context.record("input", 0, 5);
        assertNull(store.delete(tooLong));
        context.record("input", 0, 6);
        store.put(tooLong, null);  // a delete: nothing to write, but the position moves as for any delete
        assertEquals(6L, store.getPosition().getPartitionPositions("input").get(0));
        ProcessorStateException e = assertThrows(ProcessorStateException.class, () -> store.put(tooLong, new byte[1]));
        assertTrue(e.getMessage().contains(String.valueOf(StoreKeys.MAX_USER_KEY)), e.getMessage());
        assertThrows(ProcessorStateException.class, () -> store.putIfAbsent(tooLong, new byte[1]));
        byte[] hugeValue = new byte[Options.MAX_VALUE_BYTES + 1];
        assertThrows(ProcessorStateException.class, () -> store.put(key(1), hugeValue));

        // A batch with one unstorable record writes nothing of it.
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
        batch.add(KeyValue.pair(key(2), new byte[] {2}));
        batch.add(KeyValue.pair(tooLong, new byte[] {3}));
        assertThrows(ProcessorStateException.class, () -> store.putAll(batch));
        assertNull(store.get(key(2)));

        // Range bounds of any length: the order is still the bytes' order.
        TreeMap<Bytes, byte[]> seen = new TreeMap<>();
        try (KeyValueIterator<Bytes, byte[]> it = store.range(Bytes.wrap(new byte[0]), tooLong)) {
            it.forEachRemaining(kv -> seen.put(kv.key, kv.value));
        }
        assertEquals(List.of(longest), List.copyOf(seen.keySet()));
        try (KeyValueIterator<Bytes, byte[]> it = store.range(tooLong, null)) {
            assertTrue(!it.hasNext());
        }

        // A changelog being restored: a delete of such a key is nothing to do, a put of it fails.
        var restore = (org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback)
                context.callbacks.get("s");
        restore.restoreBatch(List.of(record(0, key(3).get(), new byte[] {3}), record(1, tooLong.get(), null)));
        assertArrayEquals(new byte[] {3}, store.get(key(3)));
        assertThrows(ProcessorStateException.class,
                () -> restore.restoreBatch(List.of(record(2, tooLong.get(), new byte[] {4}))));
        store.close();
    }

    private static org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> record(long offset, byte[] key,
                                                                                           byte[] value) {
        return new org.apache.kafka.clients.consumer.ConsumerRecord<>(TP.topic(), TP.partition(), offset, key, value);
    }

    @Test
    void aStoreObjectInitialisedAgainAfterAWipeCommitsItsFirstOffsets() throws Exception {
        StoreFixture context = new StoreFixture(dir.toFile());
        RemixKeyValueStore store = open(context, "s", false);
        context.record("input", 0, 10);
        store.put(key(1), value(1));
        store.commit(Map.of(TP, 7L));
        store.close();

        // Kafka wipes a corrupted task's state and initialises the same store objects again.
        deleteTree(context.stateDir().toPath().resolve("s"));
        store.init(context, store);
        assertNull(store.get(key(1)));
        assertNull(store.committedOffset(TP));
        assertTrue(store.getPosition().isEmpty(), "position after the wipe: " + store.getPosition());
        store.commit(Map.of(TP, 7L));
        assertEquals(7L, store.committedOffset(TP));
        store.close();

        RemixKeyValueStore reopened = open(context, "s", false);
        assertEquals(7L, reopened.committedOffset(TP));
        reopened.close();
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (var paths = java.nio.file.Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.delete(p);
            }
        }
    }
}
