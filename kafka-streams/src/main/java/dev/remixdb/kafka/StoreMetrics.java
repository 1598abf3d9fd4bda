package dev.remixdb.kafka;

import dev.remixdb.RemixDB;
import dev.remixdb.StatsMXBean;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Sensor.RecordingLevel;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;

import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Store-level gauges from {@link RemixDB#statsBean()}, in the group and with the tags the built-in
 * RocksDB store uses for its own ({@code stream-state-metrics}; {@code thread-id}, {@code task-id},
 * {@code <metricsScope>-state-id}). The operation sensors (put/get/range rates and latencies, open
 * iterators) come from the {@code MeteredKeyValueStore} wrapper that {@code Stores.keyValueStoreBuilder}
 * and the DSL put around every store.
 *
 * <p>Registering a gauge needs Kafka's internal {@link StreamsMetricsImpl} (as RocksDB's recorder
 * does): there is no public way to add a gauge. When the context's metrics are anything else the
 * store simply has no gauges. The stats bean caches its figures for a second, so a reporter polling
 * every gauge costs one stats walk per second at most.
 */
final class StoreMetrics {
    private StoreMetrics() {}

    /** {@code entries}: the store's {@code approximateNumEntries} of {@code db}, for {@code estimate-num-keys}. */
    static void register(StateStoreContext context, String metricsScope, String storeName, RemixDB db,
                         ToLongFunction<RemixDB> entries) {
        if (!(context.metrics() instanceof StreamsMetricsImpl metrics)) {
            return;
        }
        String task = context.taskId().toString();
        StatsMXBean stats = db.statsBean();
        gauge(metrics, task, metricsScope, storeName, "estimate-num-keys",
                "Estimated live keys, as approximateNumEntries: entries in memtables and tables less deletes"
                        + " (RemixDB Stats.estimatedLiveKeys) less the store's metadata keys",
                stats, s -> entries.applyAsLong(db));
        gauge(metrics, task, metricsScope, storeName, "off-heap-bytes",
                "Native memory of the store: memtables, block cache, REMIX and table metadata", stats,
                StatsMXBean::getOffHeapBytes);
        gauge(metrics, task, metricsScope, storeName, "block-cache-usage",
                "Native memory held by the block cache", stats, StatsMXBean::getBlockCacheBytes);
        gauge(metrics, task, metricsScope, storeName, "total-disk-bytes",
                "Bytes of every file of the store: tables, REMIX files, WALs, manifest", stats,
                StatsMXBean::getDiskBytes);
        gauge(metrics, task, metricsScope, storeName, "write-amplification",
                "Bytes written to disk per user byte since the store opened", stats,
                StatsMXBean::getWriteAmplification);
        gauge(metrics, task, metricsScope, storeName, "write-stall-time-total",
                "Milliseconds writers waited for compaction since the store opened", stats,
                StatsMXBean::getStallMillis);
        gauge(metrics, task, metricsScope, storeName, "write-slowdown-time-total",
                "Milliseconds writers were slowed down (paced) while compaction was behind, since the store opened",
                stats, StatsMXBean::getSlowdownMillis);
        gauge(metrics, task, metricsScope, storeName, "compactions-total",
                "Partition compactions (minor, major, split) since the store opened", stats,
                s -> s.getMinorCompactions() + s.getMajorCompactions() + s.getSplitCompactions());
        gauge(metrics, task, metricsScope, storeName, "number-of-tables",
                "Table files in the current version", stats, StatsMXBean::getTables);
    }

    /** Removes every store-level metric of this store (the wrapper's too: it removes them right after anyway). */
    static void remove(StateStoreContext context, String storeName) {
        if (context.metrics() instanceof StreamsMetricsImpl metrics) {
            metrics.removeAllStoreLevelSensorsAndMetrics(context.taskId().toString(), storeName);
        }
    }

    private static void gauge(StreamsMetricsImpl metrics, String task, String scope, String store, String name,
                              String description, StatsMXBean stats, ToDoubleFunction<StatsMXBean> read) {
        Gauge<Double> gauge = (config, now) -> {
            try {
                return read.applyAsDouble(stats);
            } catch (IllegalStateException closed) {  // ClosedException too
                // A reporter may poll between the store's close and the metric's removal.
                return Double.NaN;
            }
        };
        metrics.addStoreLevelMutableMetric(task, scope, store, name, description, RecordingLevel.INFO, gauge);
    }
}
