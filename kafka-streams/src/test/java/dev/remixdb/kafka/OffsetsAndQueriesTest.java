package dev.remixdb.kafka;

import dev.remixdb.Options;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import static dev.remixdb.kafka.RemixKeyValueStoreTest.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Offsets, crash images, restore, IQv2 and the config setter. */
class OffsetsAndQueriesTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("app-kv-changelog", 0);
    private static final TopicPartition OTHER = new TopicPartition("app-kv-changelog", 1);

    @TempDir
    Path dir;

    /**
     * The restore writes deferred (unseen until published): every kind of read right after a restore
     * batch, with no commit in between, sees it, and so does a delete's returned old value.
     */
    @Test
    void everyReadRightAfterARestoreSeesIt() {
        StoreFixture fixture = new StoreFixture(dir.toFile());
        RemixKeyValueStore store = fixture.open("kv");
        RecordBatchingStateRestoreCallback callback = (RecordBatchingStateRestoreCallback) fixture.callbacks.get("kv");
        long offset = 0;
        for (int round = 0; round < 4; round++) {
            List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                batch.add(new ConsumerRecord<>(CHANGELOG.topic(), 0, offset++, new byte[] {(byte) round, (byte) i},
                        new byte[] {(byte) i}));
            }
            callback.restoreBatch(batch);
            switch (round) {
                case 0 -> assertArrayEquals(new byte[] {7}, store.get(b(0, 7)));
                case 1 -> {
                    try (KeyValueIterator<Bytes, byte[]> it = store.range(b(1, 0), b(1, 29))) {
                        int n = 0;
                        for (; it.hasNext(); it.next()) {
                            n++;
                        }
                        assertEquals(30, n);
                    }
                }
                case 2 -> assertArrayEquals(new byte[] {3}, store.delete(b(2, 3)));
                default -> assertTrue(store.approximateNumEntries() >= 119, "entries " + store.approximateNumEntries());
            }
        }
        assertNull(store.get(b(2, 3)));
        store.commit(Map.of(CHANGELOG, offset - 1));
        store.close();
        store = fixture.open("kv");
        assertArrayEquals(new byte[] {29}, store.get(b(3, 29)));
        assertEquals(offset - 1, store.committedOffset(CHANGELOG));
        store.close();
    }

    /**
     * Readers on several threads right after each restored batch (interactive queries racing the
     * stream thread): every one of them sees the batch, also one that did not run the publish itself.
     */
    @Test
    void concurrentReadsAfterARestoreAllSeeIt() throws Exception {
        StoreFixture fixture = new StoreFixture(dir.toFile());
        RemixKeyValueStore store = fixture.open("kv");
        RecordBatchingStateRestoreCallback callback = (RecordBatchingStateRestoreCallback) fixture.callbacks.get("kv");
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(4)) {
            for (int round = 0; round < 100; round++) {
                byte[] key = {(byte) (round >> 8), (byte) round};
                callback.restoreBatch(List.of(new ConsumerRecord<>(CHANGELOG.topic(), 0, round, key, new byte[] {(byte) round})));
                java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
                List<java.util.concurrent.Future<byte[]>> reads = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    reads.add(pool.submit(() -> {
                        start.await();
                        return store.get(Bytes.wrap(key));
                    }));
                }
                start.countDown();
                for (java.util.concurrent.Future<byte[]> f : reads) {
                    assertArrayEquals(new byte[] {(byte) round}, f.get(), "round " + round);
                }
            }
        }
        store.close();
    }

    @Test
    @SuppressWarnings("deprecation")
    void committedOffsetsAndPositionSurviveCloseAndReopen() {
        StoreFixture fixture = new StoreFixture(dir.toFile());
        RemixKeyValueStore store = fixture.open("kv");
        assertTrue(store.managesOffsets());
        assertNull(store.committedOffset(CHANGELOG));
        fixture.record("input", 0, 7);
        store.put(b(1), new byte[] {1});
        store.commit(Map.of(CHANGELOG, 41L, OTHER, 3L));
        store.close();

        store = fixture.open("kv");
        assertEquals(41L, store.committedOffset(CHANGELOG));
        assertEquals(3L, store.committedOffset(OTHER));
        assertEquals(Position.emptyPosition().withComponent("input", 0, 7), store.getPosition());

        Map<TopicPartition, Long> dropOne = new HashMap<>();
        dropOne.put(OTHER, null);
        dropOne.put(CHANGELOG, 42L);
        store.commit(dropOne);
        assertEquals(42L, store.committedOffset(CHANGELOG));
        assertNull(store.committedOffset(OTHER), "a null offset removes the partition's");
        store.commit(Map.of());
        assertNull(store.committedOffset(CHANGELOG), "an empty commit removes every offset");
        store.close();
        store = fixture.open("kv");
        assertNull(store.committedOffset(CHANGELOG));
        assertArrayEquals(new byte[] {1}, store.get(b(1)));
        store.close();
    }

    /**
     * A copy of the directory of an open store, taken after a commit and more writes, is what a
     * crash of the process leaves (RemixDB writes every record to the OS at once). It must open with
     * the committed offset and at least the committed data; under exactly-once it must refuse.
     */
    @Test
    void aCrashImageKeepsOffsetsNoNewerThanTheDataAndIsCorruptUnderExactlyOnce() throws IOException {
        StoreFixture fixture = new StoreFixture(dir.resolve("live").toFile());
        RemixKeyValueStore store = fixture.open("kv");
        for (int i = 0; i < 100; i++) {
            store.put(b(i), new byte[] {(byte) i});
        }
        store.commit(Map.of(CHANGELOG, 99L));
        store.put(b(100), new byte[] {100});  // after the commit
        copy(dir.resolve("live/kv"), dir.resolve("crash/kv"));
        copy(dir.resolve("live/kv"), dir.resolve("crash-eos/kv"));
        store.close();

        RemixKeyValueStore recovered = new StoreFixture(dir.resolve("crash").toFile()).open("kv");
        assertEquals(99L, recovered.committedOffset(CHANGELOG));
        for (int i = 0; i <= 99; i++) {
            assertArrayEquals(new byte[] {(byte) i}, recovered.get(b(i)), "key " + i);
        }
        recovered.close();

        Properties eos = new Properties();
        eos.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        StoreFixture eosFixture = new StoreFixture(dir.resolve("crash-eos").toFile(), eos);
        assertThrows(TaskCorruptedException.class, () -> eosFixture.open("kv"));
        // A cleanly closed store opens under exactly-once.
        new StoreFixture(dir.resolve("live").toFile(), eos).open("kv").close();
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }

    @Test
    void restoreAppliesBatchesWithDeletesAndRebuildsThePositionFromHeaders() {
        Properties consistency = new Properties();
        consistency.put(StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, true);
        StoreFixture fixture = new StoreFixture(dir.toFile(), consistency);
        RemixKeyValueStore store = fixture.open("kv");
        RecordBatchingStateRestoreCallback callback = (RecordBatchingStateRestoreCallback) fixture.callbacks.get("kv");
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(CHANGELOG.topic(), 0, i, new byte[] {(byte) (i % 20)},
                    i >= 40 ? null : new byte[] {(byte) i});
            // The header the changelogging wrapper writes when consistency is on: version 0 + position.
            r.headers().add("v", new byte[] {0});
            r.headers().add("c", org.apache.kafka.streams.state.internals.PositionSerde.serialize(
                    Position.emptyPosition().withComponent("input", 0, 1000 + i)).array());
            batch.add(r);
        }
        callback.restoreBatch(batch);
        // Keys 0..19 were last written at i = 20..39 (values), then keys 0..9 deleted at i = 40..49.
        for (int k = 0; k < 20; k++) {
            byte[] v = store.get(b(k));
            if (k < 10) {
                assertNull(v, "key " + k);
            } else {
                assertArrayEquals(new byte[] {(byte) (20 + k)}, v, "key " + k);
            }
        }
        assertEquals(Position.emptyPosition().withComponent("input", 0, 1049), store.getPosition());
        store.close();
    }

    @Test
    void keyAndRangeQueriesHonourPositionBounds() {
        StoreFixture fixture = new StoreFixture(dir.toFile());
        RemixKeyValueStore store = fixture.open("kv");
        for (int i = 0; i < 10; i++) {
            fixture.record("input", 0, i);
            store.put(b(i), new byte[] {(byte) i});
        }
        QueryConfig config = new QueryConfig(true);
        QueryResult<byte[]> key = store.query(KeyQuery.withKey(b(3)), PositionBound.unbounded(), config);
        assertTrue(key.isSuccess());
        assertArrayEquals(new byte[] {3}, key.getResult());
        assertEquals(Position.emptyPosition().withComponent("input", 0, 9), key.getPosition());

        PositionBound reached = PositionBound.at(Position.emptyPosition().withComponent("input", 0, 9));
        PositionBound ahead = PositionBound.at(Position.emptyPosition().withComponent("input", 0, 10));
        assertTrue(store.query(KeyQuery.withKey(b(3)), reached, config).isSuccess());
        QueryResult<byte[]> tooNew = store.query(KeyQuery.withKey(b(3)), ahead, config);
        assertFalse(tooNew.isSuccess());
        assertEquals(FailureReason.NOT_UP_TO_BOUND, tooNew.getFailureReason());

        QueryResult<KeyValueIterator<Bytes, byte[]>> range = store.query(
                RangeQuery.<Bytes, byte[]>withRange(b(2), b(5)).withDescendingKeys(), reached, config);
        assertTrue(range.isSuccess());
        List<Bytes> keys = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = range.getResult()) {
            it.forEachRemaining(kv -> keys.add(kv.key));
        }
        assertEquals(List.of(b(5), b(4), b(3), b(2)), keys);
        QueryResult<KeyValueIterator<Bytes, byte[]>> all = store.query(
                RangeQuery.<Bytes, byte[]>withNoBounds(), PositionBound.unbounded(), config);
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = all.getResult()) {
            for (; it.hasNext(); it.next()) {
                n++;
            }
        }
        assertEquals(10, n);
        store.close();
    }

    /** Records what it was given; a test reads it back. */
    public static final class SmallMemtables implements RemixConfigSetter {
        static final List<String> CALLS = new ArrayList<>();

        @Override
        public void setConfig(String storeName, Options.Builder options, Map<String, Object> configs) {
            CALLS.add(storeName + " " + configs.get(StreamsConfig.APPLICATION_ID_CONFIG));
            options.memtableBytes(1 << 20).blockCacheBytes(1 << 20);
        }
    }

    @Test
    void theConfigSetterIsCalledByNameOrClassAndABadOneFails() {
        SmallMemtables.CALLS.clear();
        Properties byName = new Properties();
        byName.put(RemixConfigSetter.CONFIG, SmallMemtables.class.getName());
        new StoreFixture(dir.resolve("a").toFile(), byName).open("kv").close();
        Properties byClass = new Properties();
        byClass.put(RemixConfigSetter.CONFIG, SmallMemtables.class);
        new StoreFixture(dir.resolve("b").toFile(), byClass).open("other").close();
        assertEquals(List.of("kv fixture", "other fixture"), SmallMemtables.CALLS);

        Properties bad = new Properties();
        bad.put(RemixConfigSetter.CONFIG, "no.such.Setter");
        StoreFixture fixture = new StoreFixture(dir.resolve("c").toFile(), bad);
        assertThrows(ConfigException.class, () -> fixture.open("kv"));
        Properties wrongType = new Properties();
        wrongType.put(RemixConfigSetter.CONFIG, String.class);
        StoreFixture fixture2 = new StoreFixture(dir.resolve("d").toFile(), wrongType);
        assertThrows(ConfigException.class, () -> fixture2.open("kv"));
    }
}
