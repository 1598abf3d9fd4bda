package dev.remixdb.kafka;

import org.apache.kafka.streams.query.Position;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Encodes a {@link Position} (topic -> partition -> offset) as the value of the "position" metadata
 * key, so that IQv2 position bounds still hold after a restart without replaying the changelog.
 *
 * <p>Layout, little-endian (the value sits inside RemixDB's CRC-checked WAL and tables):
 * <pre>
 *   u8   format version, 1
 *   i32  topic count
 *   per topic:  u16 name length, UTF-8 name, i32 partition count,
 *               per partition: i32 partition, i64 offset
 * </pre>
 */
final class PositionCodec {
    private static final byte VERSION = 1;

    private PositionCodec() {}

    static byte[] encode(Position position) {
        Map<String, byte[]> names = new HashMap<>();
        int size = 1 + 4;
        for (String topic : position.getTopics()) {
            byte[] name = topic.getBytes(StandardCharsets.UTF_8);
            names.put(topic, name);
            size += 2 + name.length + 4 + position.getPartitionPositions(topic).size() * 12;
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.put(VERSION).putInt(names.size());
        for (Map.Entry<String, byte[]> topic : names.entrySet()) {
            Map<Integer, Long> partitions = position.getPartitionPositions(topic.getKey());
            out.putShort((short) topic.getValue().length).put(topic.getValue()).putInt(partitions.size());
            partitions.forEach((partition, offset) -> out.putInt(partition).putLong(offset));
        }
        return out.array();
    }

    /** Decodes what {@link #encode} wrote; a damaged or unknown value is an {@link IllegalStateException}. */
    static Position decode(byte[] bytes, String storeName) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalStateException("store " + storeName + ": unknown position format version " + version);
            }
            Map<String, Map<Integer, Long>> topics = new HashMap<>();
            for (int t = in.getInt(); t > 0; t--) {
                byte[] name = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(name);
                Map<Integer, Long> partitions = new HashMap<>();
                for (int p = in.getInt(); p > 0; p--) {
                    partitions.put(in.getInt(), in.getLong());
                }
                topics.put(new String(name, StandardCharsets.UTF_8), partitions);
            }
            return Position.fromMap(topics);
        } catch (BufferUnderflowException e) {
            throw new IllegalStateException("store " + storeName + ": truncated position of " + bytes.length + " bytes", e);
        }
    }
}
