package dev.remixdb.wal;

import java.util.Objects;

/**
 * One operation of a WAL record: a put of {@code value} under {@code key}, or a delete of
 * {@code key} ({@code value} null or empty). The arrays are not copied; do not change them until
 * {@link WalWriter#append} returns.
 */
public record WalOp(boolean delete, byte[] key, byte[] value) {
    /** Longest key accepted: 64 KiB, the memtable's limit. */
    public static final int MAX_KEY_LENGTH = 64 << 10;
    /** Longest value accepted: 64 MiB, the memtable's limit. */
    public static final int MAX_VALUE_LENGTH = 64 << 20;

    private static final byte[] EMPTY = new byte[0];

    /** Checks the op; a delete's null value becomes an empty one. */
    public WalOp {
        Objects.requireNonNull(key, "key");
        if (key.length > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key length must be at most " + MAX_KEY_LENGTH + ": " + key.length);
        }
        if (delete) {
            if (value != null && value.length > 0) {
                throw new IllegalArgumentException("a delete carries no value: " + value.length + " bytes given");
            }
            value = EMPTY;
        } else {
            Objects.requireNonNull(value, "value");
            if (value.length > MAX_VALUE_LENGTH) {
                throw new IllegalArgumentException("value length must be at most " + MAX_VALUE_LENGTH + ": " + value.length);
            }
        }
    }

    /** A put. */
    public static WalOp put(byte[] key, byte[] value) {
        return new WalOp(false, key, value);
    }

    /** A delete. */
    public static WalOp delete(byte[] key) {
        return new WalOp(true, key, null);
    }
}
