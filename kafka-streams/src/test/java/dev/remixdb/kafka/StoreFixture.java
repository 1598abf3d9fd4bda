package dev.remixdb.kafka;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * A store context for tests that drive a store directly: Kafka's {@link MockProcessorContext}
 * (metrics, configs, record metadata) with the restore callback kept, since the mock's own
 * {@code register} drops it.
 */
public final class StoreFixture implements StateStoreContext {
    public final MockProcessorContext<Object, Object> processor;
    private final StateStoreContext inner;
    public final Map<String, StateRestoreCallback> callbacks = new HashMap<>();

    public StoreFixture(File stateDir, Properties extra) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "fixture");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.putAll(extra);
        processor = new MockProcessorContext<>(props, new TaskId(0, 0), stateDir);
        inner = processor.getStateStoreContext();
    }

    public StoreFixture(File stateDir) {
        this(stateDir, new Properties());
    }

    /** Sets the metadata of the "record being processed", which moves the store's position. */
    public void record(String topic, int partition, long offset) {
        processor.setRecordMetadata(topic, partition, offset);
    }

    /** Opens a fresh store named {@code name} on this context. */
    public RemixKeyValueStore open(String name) {
        RemixKeyValueStore store = new RemixKeyValueStore(name, RemixKeyValueBytesStoreSupplier.METRICS_SCOPE);
        store.init(this, store);
        return store;
    }

    @Override public String applicationId() { return inner.applicationId(); }
    @Override public TaskId taskId() { return inner.taskId(); }
    @Override public Optional<RecordMetadata> recordMetadata() { return inner.recordMetadata(); }
    @Override public Serde<?> keySerde() { return inner.keySerde(); }
    @Override public Serde<?> valueSerde() { return inner.valueSerde(); }
    @Override public File stateDir() { return inner.stateDir(); }
    @Override public StreamsMetrics metrics() { return inner.metrics(); }
    @Override public Map<String, Object> appConfigs() { return inner.appConfigs(); }
    @Override public Map<String, Object> appConfigsWithPrefix(String prefix) { return inner.appConfigsWithPrefix(prefix); }

    @Override
    public void register(StateStore store, StateRestoreCallback callback) {
        callbacks.put(store.name(), callback);
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback, CommitCallback onCommit) {
        callbacks.put(store.name(), callback);
    }
}
