package dev.remixdb.kafka;

import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;

/**
 * Factories for RemixDB-backed Kafka Streams stores, the counterparts of
 * {@link org.apache.kafka.streams.state.Stores#persistentKeyValueStore(String)} and
 * {@link org.apache.kafka.streams.state.Stores#persistentTimestampedKeyValueStore(String)}:
 *
 * <pre>{@code
 * builder.addStateStore(Stores.keyValueStoreBuilder(
 *         RemixStores.persistentKeyValueStore("counts"), Serdes.String(), Serdes.Long()));
 * stream.groupByKey().count(Materialized.as(RemixStores.persistentTimestampedKeyValueStore("counts")));
 * }</pre>
 *
 * The DSL keeps timestamps, so it gets the timestamped store: a plain one works too, wrapped in
 * Kafka's timestamp adapter, but in Kafka Streams 4.3.1 that adapter fails IQv2 range queries on any
 * store but RocksDB's (KAFKA-20760). To make RemixDB the DSL's default, see
 * {@link RemixDslStoreSuppliers}. A store opened as timestamped over a plain store's state converts
 * it in place (see the module's README).
 */
public final class RemixStores {
    private RemixStores() {}

    /** A supplier of persistent key-value stores named {@code name} on RemixDB. */
    public static KeyValueBytesStoreSupplier persistentKeyValueStore(String name) {
        return new RemixKeyValueBytesStoreSupplier(name, false);
    }

    /**
     * A supplier of persistent key-value stores named {@code name} that keep values in Kafka's
     * timestamped format; use it with {@code Stores.timestampedKeyValueStoreBuilder}.
     */
    public static KeyValueBytesStoreSupplier persistentTimestampedKeyValueStore(String name) {
        return new RemixKeyValueBytesStoreSupplier(name, true);
    }
}
