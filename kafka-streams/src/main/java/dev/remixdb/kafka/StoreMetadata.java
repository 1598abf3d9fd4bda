package dev.remixdb.kafka;

import dev.remixdb.Cursor;
import dev.remixdb.RemixDB;
import dev.remixdb.WriteBatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.query.Position;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;

/**
 * The store's own records in the metadata namespace of its RemixDB (see {@link StoreKeys}): the
 * committed changelog offset of each partition, the IQv2 position, and whether the store was
 * closed cleanly. A commit writes offsets and position as one {@link WriteBatch} (one WAL record)
 * after the data they describe, on the same WAL: RemixDB recovers a prefix of its writes, so a
 * recovered offset never claims more than the recovered data holds.
 */
final class StoreMetadata {
    private static final String OFFSET_PREFIX = "offset:";
    private static final byte[] STATUS = StoreKeys.meta("status");
    private static final byte[] POSITION = StoreKeys.meta("position");
    private static final byte[] OPEN = {1};
    private static final byte[] CLOSED = {0};

    private StoreMetadata() {}

    /** Whether the store was left open, i.e. the last run did not close it cleanly. */
    static boolean leftOpen(RemixDB db) {
        byte[] status = db.get(STATUS);
        return status != null && status[0] == OPEN[0];
    }

    /** Marks the store open (until {@link #markClosed}) and makes the mark durable. */
    static void markOpen(RemixDB db) throws IOException {
        db.put(STATUS, OPEN);
        db.sync();
    }

    /** Marks the store cleanly closed; {@link RemixDB#close()} syncs it. */
    static void markClosed(RemixDB db) throws IOException {
        db.put(STATUS, CLOSED);
    }

    static Long committedOffset(RemixDB db, TopicPartition partition) {
        byte[] value = db.get(offsetKey(partition));
        return value == null ? null : ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /**
     * Adds to {@code batch} what {@link org.apache.kafka.streams.processor.StateStore#commit(Map)}
     * asks: an empty map removes every committed offset, a null offset removes that partition's.
     */
    static void addOffsets(RemixDB db, WriteBatch batch, Map<TopicPartition, Long> offsets) {
        if (offsets.isEmpty()) {
            byte[] lower = StoreKeys.meta(OFFSET_PREFIX);
            byte[] upper = StoreKeys.meta(OFFSET_PREFIX.substring(0, OFFSET_PREFIX.length() - 1) + ';');
            try (Cursor c = db.cursor(lower, upper)) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    batch.delete(c.key());
                }
            }
            return;
        }
        for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
            if (e.getValue() == null) {
                batch.delete(offsetKey(e.getKey()));
            } else {
                byte[] value = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(e.getValue()).array();
                batch.put(offsetKey(e.getKey()), value);
            }
        }
    }

    static void addPosition(WriteBatch batch, Position position) {
        batch.put(POSITION, PositionCodec.encode(position));
    }

    static Position position(RemixDB db, String storeName) {
        byte[] value = db.get(POSITION);
        return value == null ? Position.emptyPosition() : PositionCodec.decode(value, storeName);
    }

    /** "offset:" + topic + ":" + partition; topic names cannot hold ':' so this is unambiguous. */
    private static byte[] offsetKey(TopicPartition partition) {
        return StoreKeys.meta(OFFSET_PREFIX + partition.topic() + ":" + partition.partition());
    }
}
