package dev.remixdb.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The child process of {@link RestoreKillTest}: a store restored from a changelog as Kafka's state
 * updater does it. Batches go through the store's registered restore callback; after every few
 * batches the store is committed with the changelog offset of the last record restored ("C offset"
 * printed; such commits are not durable, see {@link RemixKeyValueStore#commit}). Every few commits
 * a processing write and a commit follow, which make everything so far durable ("D offset"). It
 * resumes from the committed offset and runs until it is killed.
 */
public final class RestoreKillChild {
    static final TopicPartition CHANGELOG = new TopicPartition("app-kv-changelog", 0);
    static final int BATCH = 500;
    static final byte[] PROCESSED = "processed".getBytes(StandardCharsets.UTF_8);

    private RestoreKillChild() {}

    /** Record {@code offset} of the changelog: unique keys, so each one's presence can be checked. */
    static byte[] key(long offset) {
        return String.format("k-%010d", offset).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] value(long offset) {
        return ByteBuffer.allocate(8 + (int) (offset % 90)).putLong(offset * 7919 + 3).array();
    }

    static Properties props() {
        Properties props = new Properties();
        props.put(RemixConfigSetter.CONFIG, SmallStore.class);
        return props;
    }

    /** Small memtables and tables, so that commits flush often and compactions run during a restore. */
    public static final class SmallStore implements RemixConfigSetter {
        @Override
        public void setConfig(String storeName, dev.remixdb.Options.Builder options, Map<String, Object> configs) {
            options.memtableBytes(256 * 1024).tableBytes(128 * 1024).blockCacheBytes(1 << 20);
        }
    }

    public static void main(String[] args) {
        File stateDir = new File(args[0]);
        int commitEvery = Integer.parseInt(args[1]);
        int durableEvery = Integer.parseInt(args[2]);
        StoreFixture fixture = new StoreFixture(stateDir, props());
        RemixKeyValueStore store = fixture.open("kv");
        var callback = (RecordBatchingStateRestoreCallback) fixture.callbacks.get("kv");
        Long committed = store.committedOffset(CHANGELOG);
        long next = committed == null ? 0 : committed + 1;
        System.out.println("OPEN " + next);
        System.out.flush();
        for (long batches = 1; ; batches++) {
            List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++, next++) {
                batch.add(new ConsumerRecord<>(CHANGELOG.topic(), CHANGELOG.partition(), next, key(next), value(next)));
            }
            callback.restoreBatch(batch);
            if (batches % commitEvery == 0) {
                boolean durable = (batches / commitEvery) % durableEvery == 0;
                if (durable) {
                    fixture.record("input", 0, next);
                    store.put(org.apache.kafka.common.utils.Bytes.wrap(PROCESSED), ByteBuffer.allocate(8).putLong(next - 1).array());
                }
                store.commit(Map.of(CHANGELOG, next - 1));
                System.out.println((durable ? "D " : "C ") + (next - 1));
                System.out.flush();
            }
        }
    }
}
