package dev.remixdb.kafka;

import dev.remixdb.Options;
import org.apache.kafka.common.config.ConfigException;

import java.lang.reflect.InvocationTargetException;
import java.util.Map;

/**
 * The RemixDB options of one store: defaults sized for Kafka Streams, then the user's
 * {@link RemixConfigSetter}.
 *
 * <p>An application holds one store per task and per stateful operator, often dozens per instance,
 * so the engine's defaults (a 64 MiB memtable, a 256 MiB block cache, two compaction threads) would
 * multiply. These match the built-in RocksDB store's budget instead: a 16 MiB memtable (RocksDB:
 * 16 MiB write buffers), a 50 MiB block cache (RocksDB: 50 MiB), one compaction thread.
 *
 * <p>Full memtables may also wait for compaction in the block cache's unused room
 * ({@link Options#frozenInCacheRoom()}): a restore writes into a store whose cache is still empty,
 * and one or two more memtables may wait in it while compaction catches up (a full 16 MiB memtable
 * reserves about 20-25 MiB: its 2 MiB chunks, entry headers and point index). Once the task
 * processes and its reads fill the cache, the limit is two frozen memtables again.
 *
 * <p>WAL: {@code syncWrites(false)}. The changelog topic is the store's real log, so no write needs
 * to reach the disk on its own; what must be durable is each commit, and the store calls
 * {@link dev.remixdb.RemixDB#sync()} once per commit, after writing the offsets. The WAL itself stays
 * on (RemixDB has no switch for it): it is what puts the offsets in the same recovery order as the
 * data, and between commits it turns a process crash into no loss at all (writes reach the OS at
 * once), so a restart restores only from the last commit.
 */
final class StoreOptions {
    /** Default memtable size: 16 MiB. */
    static final long MEMTABLE_BYTES = 16L << 20;
    /** Default block cache: 50 MiB. */
    static final long BLOCK_CACHE_BYTES = 50L << 20;

    private StoreOptions() {}

    /** The defaults above, as a builder. */
    static Options.Builder defaults() {
        return Options.builder()
                .memtableBytes(MEMTABLE_BYTES)
                .blockCacheBytes(BLOCK_CACHE_BYTES)
                .compactionThreads(1)
                .frozenInCacheRoom(true)
                .syncWrites(false);
    }

    /** The options for {@code storeName}: defaults, then the configured setter if any. */
    static Options forStore(String storeName, Map<String, Object> configs) {
        Options.Builder builder = defaults();
        RemixConfigSetter setter = setter(configs.get(RemixConfigSetter.CONFIG));
        if (setter != null) {
            setter.setConfig(storeName, builder, configs);
        }
        return builder.build();
    }

    private static RemixConfigSetter setter(Object configured) {
        if (configured == null) {
            return null;
        }
        Class<?> type;
        try {
            type = configured instanceof Class<?> c ? c
                    : Class.forName(configured.toString().trim(), true, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ConfigException(RemixConfigSetter.CONFIG, configured, "class not found");
        }
        if (!RemixConfigSetter.class.isAssignableFrom(type)) {
            throw new ConfigException(RemixConfigSetter.CONFIG, configured,
                    "does not implement " + RemixConfigSetter.class.getName());
        }
        try {
            return (RemixConfigSetter) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
            throw new ConfigException(RemixConfigSetter.CONFIG + " " + type.getName()
                    + " cannot be made with a public no-argument constructor: " + cause);
        }
    }
}
