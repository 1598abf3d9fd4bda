package dev.remixdb.wal;

import dev.remixdb.util.Limits;

import java.util.Arrays;
import java.util.Objects;

/**
 * One operation of a WAL record: a put of {@code value} under {@code key}, a delete of {@code key}
 * ({@code value} empty), or a range delete of every key in [{@code key}, {@code value}) ({@code value}
 * empty: to the end of the key space). The arrays are not copied; do not change them until
 * {@link WalWriter#append} returns. Key and value lengths are checked against {@link Limits}.
 */
public record WalOp(Type type, byte[] key, byte[] value) {
    private static final byte[] EMPTY = new byte[0];

    /** What an op does; its WAL type byte is {@code ordinal() + 1}. */
    public enum Type { PUT, DELETE, RANGE_DELETE }

    /** Checks the op; a delete's null value becomes an empty one, as does a range's open end. */
    public WalOp {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(key, "key");
        Limits.checkKeyLength(key.length);
        switch (type) {
            case PUT -> {
                Objects.requireNonNull(value, "value");
                Limits.checkValueLength(value.length);
            }
            case DELETE -> {
                if (value != null && value.length > 0) {
                    throw new IllegalArgumentException("a delete carries no value: " + value.length + " bytes given");
                }
                value = EMPTY;
            }
            case RANGE_DELETE -> {
                if (value == null) {
                    value = EMPTY;
                }
                Limits.checkKeyLength(value.length);
                if (value.length > 0 && Arrays.compareUnsigned(key, value) >= 0) {
                    throw new IllegalArgumentException("a range delete's end must be above its start");
                }
            }
        }
    }

    /** A put. */
    public static WalOp put(byte[] key, byte[] value) {
        return new WalOp(Type.PUT, key, value);
    }

    /** A delete. */
    public static WalOp delete(byte[] key) {
        return new WalOp(Type.DELETE, key, null);
    }

    /** A delete of every key in [{@code from}, {@code to}); a null {@code to} is the end of the key space. */
    public static WalOp rangeDelete(byte[] from, byte[] to) {
        return new WalOp(Type.RANGE_DELETE, from, to);
    }

    /** Whether this is a single-key delete. */
    public boolean delete() {
        return type == Type.DELETE;
    }

    /** A range delete's end (exclusive), or null for the end of the key space. */
    public byte[] rangeEnd() {
        return value.length == 0 ? null : value;
    }
}
