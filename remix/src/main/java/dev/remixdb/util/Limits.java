package dev.remixdb.util;

/**
 * The largest key and value the store takes, in one place: the API checks user input against them,
 * and the memtable, the WAL and the table format are sized for them (a table stores key lengths in
 * varints of at most four bytes, so a value's length field {@code valueLength << 1 | tombstone}
 * must stay below 2^28).
 */
public final class Limits {
    /** The largest key, in bytes: 64 KiB. */
    public static final int MAX_KEY_BYTES = 64 << 10;
    /** The largest value, in bytes: 64 MiB. */
    public static final int MAX_VALUE_BYTES = 64 << 20;

    private Limits() {}

    /**
     * Checks a user's key.
     *
     * @throws IllegalArgumentException when it is null or over {@link #MAX_KEY_BYTES}
     */
    public static void checkKey(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (key.length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key of " + key.length + " bytes is over the limit of " + MAX_KEY_BYTES);
        }
    }

    /**
     * Checks a user's value.
     *
     * @throws IllegalArgumentException when it is null or over {@link #MAX_VALUE_BYTES}
     */
    public static void checkValue(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null");
        }
        if (value.length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the limit of "
                    + MAX_VALUE_BYTES);
        }
    }

    /**
     * Checks a key length met inside the store (a memtable insert, a WAL op).
     *
     * @throws IllegalArgumentException when it is negative or over {@link #MAX_KEY_BYTES}
     */
    public static void checkKeyLength(int length) {
        if (length < 0 || length > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key length must be in [0, " + MAX_KEY_BYTES + "]: " + length);
        }
    }

    /**
     * Checks a value length met inside the store.
     *
     * @throws IllegalArgumentException when it is negative or over {@link #MAX_VALUE_BYTES}
     */
    public static void checkValueLength(int length) {
        if (length < 0 || length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value length must be in [0, " + MAX_VALUE_BYTES + "]: " + length);
        }
    }
}
