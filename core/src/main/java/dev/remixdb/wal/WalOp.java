package dev.remixdb.wal;

import dev.remixdb.util.Limits;

import java.util.Objects;

/**
 * One operation of a WAL record: a put of {@code value} under {@code key}, or a delete of
 * {@code key} ({@code value} null or empty). The arrays are not copied; do not change them until
 * {@link WalWriter#append} returns. Key and value lengths are
 * checked against {@link Limits}.
 */
public record WalOp(boolean delete, byte[] key, byte[] value) {
    private static final byte[] EMPTY = new byte[0];

    /** Checks the op; a delete's null value becomes an empty one. */
    public WalOp {
        Objects.requireNonNull(key, "key");
        Limits.checkKeyLength(key.length);
        if (delete) {
            if (value != null && value.length > 0) {
                throw new IllegalArgumentException("a delete carries no value: " + value.length + " bytes given");
            }
            value = EMPTY;
        } else {
            Objects.requireNonNull(value, "value");
            Limits.checkValueLength(value.length);
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
