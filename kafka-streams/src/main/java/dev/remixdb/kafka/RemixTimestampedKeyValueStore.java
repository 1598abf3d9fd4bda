package dev.remixdb.kafka;

import org.apache.kafka.streams.state.TimestampedBytesStore;

/**
 * A {@link RemixKeyValueStore} whose values are Kafka's timestamped format (an 8-byte timestamp
 * followed by the value). RemixDB stores the bytes as they come; the {@link TimestampedBytesStore}
 * marker only tells the DSL not to wrap the store in an adapter that would drop the timestamps,
 * which is what the DSL asks for by default ({@code DslStoreFormat.TIMESTAMPED}).
 */
public class RemixTimestampedKeyValueStore extends RemixKeyValueStore implements TimestampedBytesStore {
    public RemixTimestampedKeyValueStore(String name, String metricsScope) {
        super(name, metricsScope);
    }

    @Override
    boolean timestampedValues() {
        return true;
    }
}
