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
 * stream.groupByKey().count(Materialized.as(RemixStores.persistentKeyValueStore("counts")));
 * }</pre>
 *
 * To make it the DSL's default, see {@link RemixDslStoreSuppliers}.
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
