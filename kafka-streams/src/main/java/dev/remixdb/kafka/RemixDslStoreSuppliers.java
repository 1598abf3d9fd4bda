package dev.remixdb.kafka;

import org.apache.kafka.streams.DslStoreFormat;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * Makes RemixDB the DSL's default key-value store:
 * {@code props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, RemixDslStoreSuppliers.class)}.
 *
 * <p>Key-value stores (tables, aggregations, counts, reduces) are RemixDB stores, plain or
 * timestamped as the DSL asks. Window and session stores, and key-value stores in the headers
 * format ({@link DslStoreFormat#HEADERS}), are Kafka's built-in RocksDB stores: this module has no
 * segmented window store, and the headers format needs a store type of its own.
 */
public class RemixDslStoreSuppliers implements DslStoreSuppliers {
    private final DslStoreSuppliers rocksDb = new BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers();

    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        return switch (params.dslStoreFormat()) {
            case PLAIN -> RemixStores.persistentKeyValueStore(params.name());
            case TIMESTAMPED -> RemixStores.persistentTimestampedKeyValueStore(params.name());
            case HEADERS -> rocksDb.keyValueStore(params);
        };
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        return rocksDb.windowStore(params);
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        return rocksDb.sessionStore(params);
    }
}
