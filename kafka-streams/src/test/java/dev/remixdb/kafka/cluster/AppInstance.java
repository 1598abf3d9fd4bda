package dev.remixdb.kafka.cluster;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One running instance of {@link WordCountApp}: its {@link KafkaStreams}, what it restored (as
 * active tasks) and kept up to date (as standbys), the error that stopped it if one did, and the
 * interactive queries a service would make of it.
 */
final class AppInstance implements AutoCloseable {
    /** A restore of one changelog partition into one store, as an active task or a standby. */
    record Restore(TopicPartition changelog, String store, long startOffset, boolean standby) {}

    final int port;
    final Path stateDir;
    final KafkaStreams streams;
    final List<Restore> restores = new CopyOnWriteArrayList<>();
    final AtomicLong restoredRecords = new AtomicLong();
    final AtomicLong standbyRecords = new AtomicLong();
    final AtomicReference<Throwable> error = new AtomicReference<>();
    private boolean closed;

    AppInstance(String appId, String in, String outSuffix, String bootstrap, Path stateDir, int port,
                int standbys, boolean remix) {
        this.port = port;
        this.stateDir = stateDir;
        this.streams = new KafkaStreams(WordCountApp.topology(in, outSuffix),
                WordCountApp.config(appId, bootstrap, stateDir, "localhost:" + port, standbys, remix));
        streams.setUncaughtExceptionHandler(e -> {
            error.compareAndSet(null, e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
                restores.add(new Restore(tp, store, start, false));
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long count) {
                restoredRecords.addAndGet(count);
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {}
        });
        streams.setStandbyUpdateListener(new StandbyUpdateListener() {
            @Override
            public void onUpdateStart(TopicPartition tp, String store, long start) {
                restores.add(new Restore(tp, store, start, true));
            }

            @Override
            public void onBatchLoaded(TopicPartition tp, String store, TaskId task, long batchEnd, long size,
                                      long endOffset) {
                standbyRecords.addAndGet(size);
            }

            @Override
            public void onUpdateSuspended(TopicPartition tp, String store, long storeOffset, long endOffset,
                                          SuspendReason reason) {}
        });
        streams.start();
    }

    boolean running() {
        return !closed && streams.state() == KafkaStreams.State.RUNNING;
    }

    /** Where {@code key} of {@code store} is active and standing by, as the cluster's metadata says. */
    KeyQueryMetadata locate(String store, String key) {
        return streams.queryMetadataForKey(store, key, Serdes.String().serializer());
    }

    /**
     * IQv2 {@code KeyQuery} on the active copy of {@code key}'s partition here: the value, or null
     * with the failure in {@code failure} when this instance cannot answer (not active, rebalancing).
     */
    Object activeGet(String store, String key, int partition, StringBuilder failure) {
        StateQueryRequest<Object> request = StateQueryRequest.inStore(store)
                .withQuery(KeyQuery.<String, Object>withKey(key))
                .withPartitions(Set.of(partition))
                .requireActive();
        StateQueryResult<Object> result = streams.query(request);
        QueryResult<Object> r = result.getPartitionResults().get(partition);
        if (r == null || r.isFailure()) {
            failure.append(r == null ? "no result" : r.getFailureReason() + ": " + r.getFailureMessage());
            return null;
        }
        return unwrap(r.getResult());
    }

    /**
     * IQv2 {@code RangeQuery} over every partition of {@code store} active here (those kept here as
     * standbys answer NOT_ACTIVE and are left out); null with the failure in {@code failure} when
     * some partition could not answer.
     */
    Map<String, Object> activeRange(String store, StringBuilder failure) {
        StateQueryRequest<KeyValueIterator<String, Object>> request = StateQueryRequest.inStore(store)
                .withQuery(RangeQuery.<String, Object>withNoBounds())
                .requireActive();
        StateQueryResult<KeyValueIterator<String, Object>> result = streams.query(request);
        Map<String, Object> out = new TreeMap<>();
        boolean failed = false;
        for (Map.Entry<Integer, QueryResult<KeyValueIterator<String, Object>>> e
                : result.getPartitionResults().entrySet()) {
            QueryResult<KeyValueIterator<String, Object>> r = e.getValue();
            if (r.isFailure() && r.getFailureReason() == FailureReason.NOT_ACTIVE) {
                continue;
            }
            if (r.isFailure()) {
                failure.append("partition ").append(e.getKey()).append(": ").append(r.getFailureReason()).append("; ");
                failed = true;
                continue;
            }
            try (KeyValueIterator<String, Object> it = r.getResult()) {
                it.forEachRemaining(kv -> {
                    if (out.put(kv.key, unwrap(kv.value)) != null) {
                        failure.append("key ").append(kv.key).append(" in two partitions; ");
                    }
                });
            }
        }
        return failed ? null : out;
    }

    /** A standby's (possibly stale) value of {@code key}, through IQv1 with stale stores enabled. */
    Object standbyGet(String store, String key, int partition) {
        ReadOnlyKeyValueStore<String, Object> s = streams.store(StoreQueryParameters
                .fromNameAndType(store, QueryableStoreTypes.<String, Object>keyValueStore())
                .enableStaleStores()
                .withPartition(partition));
        return s.get(key);
    }

    /** The tasks active here, as "subtopology_partition". */
    List<String> activeTasks() {
        List<String> out = new ArrayList<>();
        streams.metadataForLocalThreads().forEach(t -> t.activeTasks().forEach(m -> out.add(m.taskId().toString())));
        return out;
    }

    private static Object unwrap(Object v) {
        return v instanceof ValueAndTimestamp<?> vt ? vt.value() : v;
    }

    /**
     * Stops the instance the way a killed one stops as far as the group sees it: it stays a member
     * until its session times out, and its state directory stays as it is (no cleanup).
     */
    void kill() {
        closed = true;
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                .withTimeout(Duration.ofSeconds(60)));
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            streams.close(Duration.ofSeconds(60));
        }
    }
}
