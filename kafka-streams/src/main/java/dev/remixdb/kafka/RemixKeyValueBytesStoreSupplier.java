package dev.remixdb.kafka;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

import java.util.Objects;

/**
 * Makes {@link RemixKeyValueStore}s (or their timestamped form) named {@code name}; see
 * {@link RemixStores}. Kafka calls {@link #get()} once per task.
 */
public final class RemixKeyValueBytesStoreSupplier implements KeyValueBytesStoreSupplier {
    /** The metrics scope: gauges carry the tag {@code remixdb-state-id}, as RocksDB's carry {@code rocksdb-state-id}. */
    public static final String METRICS_SCOPE = "remixdb";

    private final String name;
    private final boolean timestamped;

    RemixKeyValueBytesStoreSupplier(String name, boolean timestamped) {
        this.name = Objects.requireNonNull(name, "name cannot be null");
        this.timestamped = timestamped;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public KeyValueStore<Bytes, byte[]> get() {
        return timestamped ? new RemixTimestampedKeyValueStore(name, METRICS_SCOPE)
                : new RemixKeyValueStore(name, METRICS_SCOPE);
    }

    @Override
    public String metricsScope() {
        return METRICS_SCOPE;
    }

    @Override
    public String toString() {
        return "RemixKeyValueBytesStoreSupplier[" + name + (timestamped ? ", timestamped]" : "]");
    }
}
