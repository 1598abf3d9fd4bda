package dev.remixdb.kafka;

import dev.remixdb.WriteBatch;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;

import java.util.Collection;

/**
 * Restores a {@link RemixKeyValueStore} from its changelog in bulk: each batch Kafka hands over (one
 * poll of the restore consumer, up to {@code max.poll.records}) becomes one {@link WriteBatch},
 * written with {@link dev.remixdb.RemixDB#writeDeferred}: the changelog already is a log, so a
 * restore writes no WAL and syncs nothing, and RemixDB indexes a memtable's worth of records at a
 * time, sorted, rather than each where it falls (reads of the store publish them first). A null value is a delete. Kafka commits the store
 * as restoration goes on; while it restores, those commits write the offsets without the WAL too
 * (see {@link RemixKeyValueStore#commit}), and memtables reach the tables whole and oldest first,
 * so the offsets that survive a crash never run ahead of the data and Kafka restores again from them.
 *
 * <p>It is a {@link RecordBatchingStateRestoreCallback} (a {@code BatchingStateRestoreCallback} that
 * also receives whole records) so that, when the changelog carries position headers (IQv2
 * consistency), the store's position is rebuilt from them, as Kafka's own stores do. That interface
 * and {@link ChangelogRecordDeserializationHelper} are Kafka internals: the header format is
 * Kafka's, and reading it any other way would copy it.
 */
final class RestoreCallback implements RecordBatchingStateRestoreCallback {
    /** Split a batch well below {@link WriteBatch#MAX_BYTES}, so huge values cannot overflow it. */
    private static final long BATCH_BYTES = 64L << 20;

    private final RemixKeyValueStore store;

    RestoreCallback(RemixKeyValueStore store) {
        this.store = store;
    }

    @Override
    public void restoreBatch(Collection<ConsumerRecord<byte[], byte[]>> records) {
        WriteBatch batch = new WriteBatch();
        synchronized (store.position()) {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                ChangelogRecordDeserializationHelper.applyChecksAndUpdatePosition(
                        record, store.consistencyEnabled(), store.position());
                add(batch, record.key(), record.value());
            }
            store.restore(batch);
        }
    }

    /** The plain form, for callers that hand over key-value pairs (no position headers then). */
    @Override
    public void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        WriteBatch batch = new WriteBatch();
        for (KeyValue<byte[], byte[]> record : records) {
            add(batch, record.key, record.value);
        }
        store.restore(batch);
    }

    private void add(WriteBatch batch, byte[] key, byte[] value) {
        if (batch.byteSize() >= BATCH_BYTES) {
            store.restore(batch);
            batch.clear();
        }
        if (value == null) {
            if (key.length > StoreKeys.MAX_USER_KEY) {
                return;  // never stored, so nothing to delete
            }
            batch.delete(StoreKeys.data(key));
        } else {
            StoreKeys.checkStorable(store.name(), key, value);
            batch.put(StoreKeys.data(key), value);
        }
    }
}
