package dev.remixdb;

import java.util.Comparator;

/**
 * A {@link ValueCodec} for keys that preserves order: for any two keys, comparing their encodings
 * as unsigned bytes gives the same sign as {@link #comparator()}. That is what lets a typed map's
 * {@code subMap}, {@code ceilingKey} and iteration run on the store's byte order. Built-in codecs
 * are in {@link Codecs}; to add one, implement both methods and check the property (the tests of
 * the built-ins show how).
 */
public interface KeyCodec<K> extends ValueCodec<K> {

    /** The order of the keys, which the encoding preserves; also the typed map's comparator. */
    Comparator<? super K> comparator();
}
