package dev.remixdb;

import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * The cursor work behind a {@link MapView}'s navigation methods, in ascending terms (the view swaps
 * them when it is descending): the first entry, the nearest entry above or below a key, and polling.
 * Each call opens a cursor on the view's range and closes it before returning.
 */
final class MapNavigation<K, V> {
    private final MapView<K, V> map;

    MapNavigation(MapView<K, V> map) {
        this.map = map;
    }

    /** The entry at the cursor, or null when it is not positioned. */
    private Map.Entry<K, V> entryAt(Cursor c) {
        if (!c.isValid()) {
            return null;
        }
        return new AbstractMap.SimpleImmutableEntry<>(map.keys.decode(c.key()), map.values.decode(c.value()));
    }

    /** Entry readers in ascending terms; a descending view swaps them. */
    Map.Entry<K, V> first(boolean ascending) {
        try (Cursor c = map.cursor()) {
            if (ascending) {
                c.seekToFirst();
            } else {
                c.seekToLast();
            }
            return entryAt(c);
        }
    }

    /** The smallest entry {@code >= key} ({@code > key} unless {@code inclusive}). */
    Map.Entry<K, V> above(K key, boolean inclusive) {
        byte[] k = map.keys.encode(Objects.requireNonNull(key, "key must not be null"));
        try (Cursor c = map.cursor()) {
            c.seek(inclusive ? k : MapRange.successor(k));
            return entryAt(c);
        }
    }

    /** The largest entry {@code <= key} ({@code < key} unless {@code inclusive}). */
    Map.Entry<K, V> below(K key, boolean inclusive) {
        byte[] k = map.keys.encode(Objects.requireNonNull(key, "key must not be null"));
        try (Cursor c = map.cursor()) {
            c.seekForPrev(k);
            if (!inclusive && c.isValid() && Arrays.equals(c.key(), k)) {
                c.prev();
            }
            return entryAt(c);
        }
    }

    /** Removes the first (or last) entry if nobody changed it meanwhile; otherwise tries again. */
    Map.Entry<K, V> poll(boolean first) {
        for (;;) {
            byte[] k;
            byte[] v;
            try (Cursor c = map.cursor()) {
                if (first != map.isDescending()) {
                    c.seekToFirst();
                } else {
                    c.seekToLast();
                }
                if (!c.isValid()) {
                    return null;
                }
                k = c.key();
                v = c.value();
            }
            boolean[] done = new boolean[1];
            map.update(k, o -> {
                done[0] = o != null && Arrays.equals(o, v);
                return done[0] ? null : o;
            });
            if (done[0]) {
                return new AbstractMap.SimpleImmutableEntry<>(map.keys.decode(k), map.values.decode(v));
            }
        }
    }
}
