package dev.remixdb;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Spliterator;
import java.util.Spliterators;

/** {@link MapView#entrySet()}: the view's entries, read through on every call; removal writes through. */
final class MapEntrySet<K, V> extends AbstractSet<Map.Entry<K, V>> {
    private final MapView<K, V> map;

    MapEntrySet(MapView<K, V> map) {
        this.map = map;
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        return new MapIterator<>(map, (k, v) -> map.new Entry(map.keys.decode(k), map.values.decode(v)));
    }

    /** Weakly consistent like the iterator, and not SIZED (see {@link MapKeySet#spliterator()}). */
    @Override
    public Spliterator<Map.Entry<K, V>> spliterator() {
        return Spliterators.spliteratorUnknownSize(iterator(),
                Spliterator.ORDERED | Spliterator.DISTINCT | Spliterator.NONNULL | Spliterator.CONCURRENT);
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public boolean isEmpty() {
        return map.isEmpty();
    }

    @Override
    public boolean contains(Object o) {
        if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
            return false;
        }
        try {
            K k = map.key(e.getKey());
            @SuppressWarnings("unchecked") V v = (V) e.getValue();
            byte[] b = map.encodeInRangeToFind(k);
            return b != null && Arrays.equals(map.read(b), map.values.encode(v));
        } catch (ClassCastException ex) {
            return false;
        }
    }

    @Override
    public boolean remove(Object o) {
        return o instanceof Map.Entry<?, ?> e && e.getKey() != null && map.remove(e.getKey(), e.getValue());
    }

    @Override
    public void clear() {
        map.clear();
    }
}
