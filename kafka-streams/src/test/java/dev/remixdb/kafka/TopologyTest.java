package dev.remixdb.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whole topologies through {@link TopologyTestDriver}, each run once with RemixDB stores and once
 * with Kafka's in-memory stores: the outputs must be identical record for record.
 */
class TopologyTest {
    private static final Function<String, KeyValueBytesStoreSupplier> REMIX = RemixStores::persistentKeyValueStore;
    private static final Function<String, KeyValueBytesStoreSupplier> IN_MEMORY = Stores::inMemoryKeyValueStore;
    private static final String[] WORDS = "the quick brown fox jumps over lazy dog kafka streams remix index table".split(" ");

    @TempDir
    Path dir;

    private Properties props(String stateDir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "app");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve(stateDir).toString());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        return p;
    }

    // ------------------------------------------------------------------ word count

    private static Topology wordCount(Function<String, KeyValueBytesStoreSupplier> stores) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("text", Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .groupBy((k, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(stores == null ? Materialized.as("counts")
                        : Materialized.<String, Long>as(stores.apply("counts")).withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream()
                .to("counts-out", Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private List<KeyValue<String, Long>> runWordCount(Topology topology, Properties props, List<TestRecord<byte[], byte[]>> changelog,
                                                      Runnable whileOpen) {
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props)) {
            TestInputTopic<String, String> in = driver.createInputTopic("text", new StringSerializer(), new StringSerializer());
            Random random = new Random(7);
            for (int i = 0; i < 600; i++) {
                StringBuilder line = new StringBuilder();
                for (int w = random.nextInt(8); w >= 0; w--) {
                    line.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
                }
                in.pipeInput("line" + i, line.toString());
            }
            whileOpen.run();  // the driver wipes its state directory when it closes
            if (changelog != null) {
                changelog.addAll(driver.createOutputTopic("app-counts-changelog", new ByteArrayDeserializer(),
                        new ByteArrayDeserializer()).readRecordsToList());
            }
            return driver.createOutputTopic("counts-out", new StringDeserializer(), new LongDeserializer()).readKeyValuesToList();
        }
    }

    @Test
    void wordCountIsTheSameWithRemixAndInMemoryStores() {
        List<KeyValue<String, Long>> remix = runWordCount(wordCount(REMIX), props("remix"), null, () -> { });
        List<KeyValue<String, Long>> memory = runWordCount(wordCount(IN_MEMORY), props("memory"), null, () -> { });
        assertTrue(remix.size() > 1_500, "records out: " + remix.size());
        assertEquals(memory, remix);
    }

    @Test
    void theDslDefaultThroughDslStoreSuppliersIsRemix() {
        Properties props = props("dsl");
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, RemixDslStoreSuppliers.class);
        List<KeyValue<String, Long>> viaDefault = runWordCount(wordCount(null), props, null, () -> {
            // The named store got a RemixDB directory (stateDir/app/<task>/counts), not RocksDB's
            // stateDir/app/<task>/rocksdb/counts.
            try (Stream<Path> files = Files.walk(dir.resolve("dsl"))) {
                List<Path> all = files.toList();
                assertTrue(all.stream().anyMatch(p -> p.getFileName().toString().equals("counts")
                        && p.getParent().getFileName().toString().matches("\\d+_\\d+")), all.toString());
                assertFalse(all.stream().anyMatch(p -> p.getFileName().toString().equals("rocksdb")), all.toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertEquals(runWordCount(wordCount(IN_MEMORY), props("memory"), null, () -> { }), viaDefault);
    }

    // ------------------------------------------------------------------ table-table join

    private static Topology tableJoin(Function<String, KeyValueBytesStoreSupplier> stores) {
        StreamsBuilder builder = new StreamsBuilder();
        KTable<String, String> users = builder.table("users", Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.<String, String>as(stores.apply("users")).withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
        KTable<String, String> regions = builder.table("regions", Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.<String, String>as(stores.apply("regions")).withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
        users.leftJoin(regions, (user, region) -> user + "@" + region,
                        Materialized.<String, String>as(stores.apply("joined")).withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
                .toStream()
                .to("joined-out", Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    private List<KeyValue<String, String>> runJoin(Function<String, KeyValueBytesStoreSupplier> stores, String stateDir) {
        try (TopologyTestDriver driver = new TopologyTestDriver(tableJoin(stores), props(stateDir))) {
            TestInputTopic<String, String> users = driver.createInputTopic("users", new StringSerializer(), new StringSerializer());
            TestInputTopic<String, String> regions = driver.createInputTopic("regions", new StringSerializer(), new StringSerializer());
            Random random = new Random(11);
            for (int i = 0; i < 1_000; i++) {
                String key = "id" + random.nextInt(200);
                String value = random.nextInt(10) == 0 ? null : "v" + i;  // tombstones too
                (random.nextBoolean() ? users : regions).pipeInput(key, value);
            }
            return driver.createOutputTopic("joined-out", new StringDeserializer(), new StringDeserializer()).readKeyValuesToList();
        }
    }

    @Test
    void tableTableJoinIsTheSameWithRemixAndInMemoryStores() {
        List<KeyValue<String, String>> remix = runJoin(REMIX, "remix");
        assertTrue(remix.size() > 300, "records out: " + remix.size());
        assertEquals(runJoin(IN_MEMORY, "memory"), remix);
    }

    // ------------------------------------------------------------------ aggregation over ranges

    /**
     * Keeps the latest reading of each sensor and, for every reading, emits the sum of the
     * neighbourhood [id - 5, id + 5] read with a range query (forward on even offsets, reverse on
     * odd ones) together with the first key it saw, so order matters too.
     */
    static final class NeighbourhoodSum implements Processor<String, Long, String, String> {
        private KeyValueStore<String, Long> store;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            store = context.getStateStore("readings");
        }

        private ProcessorContext<String, String> context;

        @Override
        public void process(Record<String, Long> record) {
            store.put(record.key(), record.value());
            int id = Integer.parseInt(record.key().substring(1));
            String from = String.format(Locale.ROOT, "s%04d", Math.max(0, id - 5));
            String to = String.format(Locale.ROOT, "s%04d", id + 5);
            boolean reverse = (record.value() & 1) == 1;
            long sum = 0;
            String first = null;
            try (KeyValueIterator<String, Long> it = reverse ? store.reverseRange(from, to) : store.range(from, to)) {
                while (it.hasNext()) {
                    KeyValue<String, Long> kv = it.next();
                    first = first == null ? kv.key : first;
                    sum += kv.value;
                }
            }
            if (record.value() % 7 == 0) {
                store.delete(record.key());
            }
            context.forward(record.withValue(first + ":" + sum));
        }
    }

    private static Topology rangeAggregation(Function<String, KeyValueBytesStoreSupplier> stores) {
        Topology topology = new Topology();
        topology.addSource("in", Serdes.String().deserializer(), Serdes.Long().deserializer(), "readings");
        topology.addProcessor("sum", NeighbourhoodSum::new, "in");
        topology.addStateStore(Stores.keyValueStoreBuilder(stores.apply("readings"), Serdes.String(), Serdes.Long()), "sum");
        topology.addSink("out", "sums", Serdes.String().serializer(), Serdes.String().serializer(), "sum");
        return topology;
    }

    private List<KeyValue<String, String>> runRanges(Function<String, KeyValueBytesStoreSupplier> stores, String stateDir) {
        try (TopologyTestDriver driver = new TopologyTestDriver(rangeAggregation(stores), props(stateDir))) {
            TestInputTopic<String, Long> in = driver.createInputTopic("readings", new StringSerializer(),
                    Serdes.Long().serializer());
            Random random = new Random(3);
            for (int i = 0; i < 1_000; i++) {
                in.pipeInput(String.format(Locale.ROOT, "s%04d", random.nextInt(200)), (long) random.nextInt(1000));
            }
            return driver.createOutputTopic("sums", new StringDeserializer(), new StringDeserializer()).readKeyValuesToList();
        }
    }

    @Test
    void rangeQueryAggregationIsTheSameWithRemixAndInMemoryStores() {
        List<KeyValue<String, String>> remix = runRanges(REMIX, "remix");
        assertEquals(1_000, remix.size());
        assertEquals(runRanges(IN_MEMORY, "memory"), remix);
    }

    // ------------------------------------------------------------------ restore

    /**
     * The word count's changelog, as TopologyTestDriver captured it, restored through the store's
     * registered callback into a store in an empty state directory, must give back exactly the
     * table the topology built: the last value of each key, no deleted key.
     * (TopologyTestDriver itself never restores, so Kafka's state manager is not part of this.)
     */
    @Test
    void aStoreRestoredFromTheChangelogIntoAnEmptyDirectoryHoldsTheTable() {
        List<TestRecord<byte[], byte[]>> changelog = new ArrayList<>();
        List<KeyValue<String, Long>> output = runWordCount(wordCount(REMIX), props("run"), changelog, () -> { });
        assertTrue(changelog.size() > 1_500, "changelog records: " + changelog.size());
        Map<Bytes, byte[]> expected = new HashMap<>();
        for (TestRecord<byte[], byte[]> r : changelog) {
            if (r.value() == null) {
                expected.remove(Bytes.wrap(r.key()));
            } else {
                expected.put(Bytes.wrap(r.key()), r.value());
            }
        }

        StoreFixture fixture = new StoreFixture(dir.resolve("wiped").toFile());
        RemixKeyValueStore store = fixture.open("counts");
        RecordBatchingStateRestoreCallback restore = (RecordBatchingStateRestoreCallback) fixture.callbacks.get("counts");
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        long offset = 0;
        for (TestRecord<byte[], byte[]> r : changelog) {
            batch.add(new ConsumerRecord<>("app-counts-changelog", 0, offset++, r.key(), r.value()));
            if (batch.size() == 97) {
                restore.restoreBatch(batch);
                batch.clear();
            }
        }
        restore.restoreBatch(batch);

        Map<Bytes, byte[]> restored = new HashMap<>();
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            it.forEachRemaining(kv -> restored.put(kv.key, kv.value));
        }
        assertEquals(expected.keySet(), restored.keySet());
        expected.forEach((k, v) -> assertArrayEquals(v, restored.get(k), k.toString()));
        // And it is the word count: the last count emitted per word, in the timestamped format's last 8 bytes.
        Map<String, Long> finalCounts = new HashMap<>();
        output.forEach(kv -> finalCounts.put(kv.key, kv.value));
        restored.forEach((k, v) -> assertEquals(finalCounts.get(new String(k.get())),
                ByteBuffer.wrap(v, v.length - 8, 8).getLong(), new String(k.get())));
        assertEquals(finalCounts.size(), restored.size());
        store.close();
    }
}
