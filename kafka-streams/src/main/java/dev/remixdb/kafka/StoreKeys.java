package dev.remixdb.kafka;

import org.apache.kafka.common.utils.Bytes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How one RemixDB directory holds both the user's keys and the store's own metadata (committed
 * changelog offsets, the IQv2 position, the open/closed status).
 *
 * <p>Kafka hands the store arbitrary byte keys, so no user key can be reserved for metadata. Every
 * key therefore gets a one-byte namespace prefix:
 * <pre>
 *   0x00 + ASCII name   metadata ("status", "position", "offset:" + topic-partition)
 *   0x01 + user key     user data
 * </pre>
 * Keeping both in one store is what lets a commit write the offsets in the same write batch and WAL
 * as the data, and the prefix also makes every upper bound representable: the end of the user
 * namespace is the single byte 0x02, and the smallest key above {@code k} is {@code k + 0x00}.
 * The price is one array copy per key in each direction.
 */
final class StoreKeys {
    static final byte META = 0x00;
    static final byte DATA = 0x01;
    /** The first user key: everything user-visible is at or after it. */
    static final byte[] DATA_START = {DATA};
    /** The first metadata key: the store's own keys are in [META_START, DATA_START). */
    static final byte[] META_START = {META};
    /** Just past the last user key (exclusive upper bound). */
    static final byte[] DATA_END = {DATA + 1};

    /** The longest user key: RemixDB's key limit less the namespace byte. */
    static final int MAX_USER_KEY = dev.remixdb.Options.MAX_KEY_BYTES - 1;

    private StoreKeys() {}

    /** Whether {@code key} is too long to be stored, so that it cannot be in the store. */
    static boolean tooLong(Bytes key) {
        return key.get().length > MAX_USER_KEY;
    }

    /**
     * Throws {@link org.apache.kafka.streams.errors.ProcessorStateException} naming the limit when
     * the record cannot be stored: a key over {@link #MAX_USER_KEY} bytes or a value over RemixDB's
     * {@link dev.remixdb.Options#MAX_VALUE_BYTES}. Nothing is written then.
     */
    static void checkStorable(String store, byte[] key, byte[] value) {
        if (key.length > MAX_USER_KEY) {
            throw new org.apache.kafka.streams.errors.ProcessorStateException("store " + store + " cannot hold a key of "
                    + key.length + " bytes: the limit is " + MAX_USER_KEY + " (RemixDB's " + dev.remixdb.Options.MAX_KEY_BYTES
                    + "-byte key limit less the store's namespace byte)");
        }
        if (value != null && value.length > dev.remixdb.Options.MAX_VALUE_BYTES) {
            throw new org.apache.kafka.streams.errors.ProcessorStateException("store " + store + " cannot hold a value of "
                    + value.length + " bytes: the limit is " + dev.remixdb.Options.MAX_VALUE_BYTES + " (RemixDB's)");
        }
    }

    /** The stored form of a user key. */
    static byte[] data(Bytes key) {
        return data(key.get());
    }

    static byte[] data(byte[] key) {
        byte[] stored = new byte[key.length + 1];
        stored[0] = DATA;
        System.arraycopy(key, 0, stored, 1, key.length);
        return stored;
    }

    /** The user key of a stored data key. */
    static Bytes user(byte[] stored) {
        return Bytes.wrap(Arrays.copyOfRange(stored, 1, stored.length));
    }

    /** The stored form of a metadata name. */
    static byte[] meta(String name) {
        byte[] ascii = name.getBytes(StandardCharsets.UTF_8);
        byte[] stored = new byte[ascii.length + 1];
        stored[0] = META;
        System.arraycopy(ascii, 0, stored, 1, ascii.length);
        return stored;
    }

    /** The metadata name of a stored metadata key. */
    static String metaName(byte[] stored) {
        return new String(stored, 1, stored.length - 1, StandardCharsets.UTF_8);
    }

    /** Inclusive lower bound of a user range: null is the start of the user namespace. */
    static byte[] lowerInclusive(Bytes from) {
        return from == null ? DATA_START : data(from);
    }

    /**
     * Exclusive upper bound for an inclusive user bound {@code to}: the stored key followed by a
     * zero byte is the smallest key greater than it. Null is the end of the user namespace.
     */
    static byte[] upperExclusiveOfInclusive(Bytes to) {
        if (to == null) {
            return DATA_END;
        }
        byte[] k = to.get();
        byte[] stored = new byte[k.length + 2];
        stored[0] = DATA;
        System.arraycopy(k, 0, stored, 1, k.length);
        return stored;  // the trailing byte is already 0
    }

    /**
     * Exclusive upper bound of every key starting with {@code prefix}: the stored prefix with its last
     * byte below 0xFF incremented and the rest cut off. Since the namespace byte is 0x01, a prefix of
     * all 0xFF bytes ends at {@link #DATA_END}.
     */
    static byte[] prefixEnd(byte[] prefix) {
        byte[] stored = data(prefix);
        for (int i = stored.length - 1; i >= 0; i--) {
            if (stored[i] != (byte) 0xFF) {
                byte[] end = Arrays.copyOf(stored, i + 1);
                end[i]++;
                return end;
            }
        }
        throw new AssertionError("the namespace byte is never 0xFF");
    }
}
