package dev.remixdb.kafka;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two things an application sees that the store's own tests missed (found by a review that used
 * the store as an application would): a global store under exactly-once that a crash left open must
 * start again, as Kafka's RocksDB store does; and {@code approximateNumEntries} must not grow with
 * commits, which rewrite the store's offset and position keys.
 */
class GlobalStoreAndEstimateTest {
    @TempDir
    Path dir;

    private static Properties props(Path stateDir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "app");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        return p;
    }

    private static Topology globalTable(Function<String, KeyValueBytesStoreSupplier> stores) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.globalTable("users", Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.<String, String>as(stores.apply("users-store"))
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
        return builder.build();
    }

    /**
     * Runs a global table, copies its state as a crash would leave it, and starts on the copy;
     * {@code keeps}: the records before the crash are still there (RemixDB's WAL; RocksDB's store
     * runs without one, and the test driver does not re-read the topic).
     */
    private void crashAndRestart(Function<String, KeyValueBytesStoreSupplier> stores, String name, boolean keeps)
            throws IOException {
        Path live = dir.resolve(name + "-live");
        Path crashed = dir.resolve(name + "-crashed");
        try (TopologyTestDriver driver = new TopologyTestDriver(globalTable(stores), props(live))) {
            TestInputTopic<String, String> users = driver.createInputTopic("users", new StringSerializer(), new StringSerializer());
            for (int i = 0; i < 10; i++) {
                users.pipeInput("u" + i, "name" + i);
            }
            copy(live, crashed);  // the process dies here: the store was not closed
        }
        try (TopologyTestDriver driver = new TopologyTestDriver(globalTable(stores), props(crashed))) {
            TestInputTopic<String, String> users = driver.createInputTopic("users", new StringSerializer(), new StringSerializer());
            users.pipeInput("u10", "name10");
            KeyValueStore<String, ValueAndTimestamp<String>> store = driver.getTimestampedKeyValueStore("users-store");
            assertEquals("name10", store.get("u10").value());
            if (keeps) {
                assertEquals("name3", store.get("u3").value(), "the crashed store's records are kept");
            }
        }
    }

    @Test
    void aRocksDbGlobalStoreStartsAfterACrashUnderExactlyOnce() throws IOException {
        crashAndRestart(Stores::persistentTimestampedKeyValueStore, "rocks", false);
    }

    @Test
    void aRemixGlobalStoreStartsAfterACrashUnderExactlyOnce() throws IOException {
        crashAndRestart(RemixStores::persistentTimestampedKeyValueStore, "remix", true);
    }

    @Test
    void anEmptyStoreCountsZeroEntriesAfterManyCommits() {
        StoreFixture fixture = new StoreFixture(dir.toFile());
        RemixKeyValueStore store = fixture.open("kv");
        TopicPartition changelog = new TopicPartition("app-kv-changelog", 0);
        try {
            for (int i = 0; i < 1000; i++) {
                store.commit(Map.of(changelog, (long) i));
            }
            assertEquals(0, store.approximateNumEntries());
        } finally {
            store.close();
        }
    }

    private long countAfterFiveKeys(Class<?> suppliers, String sub, int rounds) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "app");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve(sub).toString());
        p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, suppliers);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("in", Consumed.with(Serdes.String(), Serdes.String())).groupByKey().count(Materialized.as("counts"));
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), p)) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < 5; i++) {
                    in.pipeInput("k" + i, "x");  // each record is committed: offsets rewritten each time
                }
            }
            return driver.getTimestampedKeyValueStore("counts").approximateNumEntries();
        }
    }

    /**
     * A DSL count of 5 keys, each counted 20 times: 5 entries (RocksDB's store says 100 here, every
     * version in its memtable; once per key it says 5, and this store used to say 15 then).
     */
    @Test
    void aCountOfFiveKeysHasFiveEntries() {
        assertEquals(5, countAfterFiveKeys(RemixDslStoreSuppliers.class, "remix", 20));
        assertEquals(5, countAfterFiveKeys(RemixDslStoreSuppliers.class, "remix-once", 1));
        assertEquals(5, countAfterFiveKeys(BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers.class, "rocks-once", 1));
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path t = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(t);
                } else if (!f.getFileName().toString().equals(".lock")) {
                    Files.copy(f, t);
                }
            }
        }
    }
}
