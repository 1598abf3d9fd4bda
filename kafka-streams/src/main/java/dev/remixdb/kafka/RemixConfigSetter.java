package dev.remixdb.kafka;

import dev.remixdb.Options;

import java.util.Map;

/**
 * Adjusts the RemixDB {@link Options} of each store before it opens, like Kafka's
 * {@code rocksdb.config.setter} does for RocksDB: name an implementation (with a public no-argument
 * constructor) in the Streams config under {@link #CONFIG}, as a class or a class name.
 *
 * <pre>{@code
 * public class BigStores implements RemixConfigSetter {
 *     public void setConfig(String storeName, Options.Builder options, Map<String, Object> configs) {
 *         options.memtableBytes(64L << 20).blockCacheBytes(512L << 20);
 *     }
 * }
 * props.put(RemixConfigSetter.CONFIG, BigStores.class);
 * }</pre>
 *
 * One instance is made per store opening. {@link Options} are immutable values, so there is nothing
 * to release when the store closes (unlike RocksDB's setter, which has a {@code close}).
 */
public interface RemixConfigSetter {
    /** The Streams config key naming the setter class. */
    String CONFIG = "remixdb.config.setter";

    /**
     * Changes {@code options}, which hold this module's defaults for {@code storeName} (see
     * {@link StoreOptions}); {@code configs} are the application's Streams configs.
     */
    void setConfig(String storeName, Options.Builder options, Map<String, Object> configs);
}
