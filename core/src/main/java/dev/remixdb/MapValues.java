package dev.remixdb;

import java.util.AbstractCollection;
import java.util.Iterator;

/** {@link MapView#values()}: the view's values in key order, read through on every call. */
final class MapValues<K, V> extends AbstractCollection<V> {
    private final MapView<K, V> map;

    MapValues(MapView<K, V> map) {
        this.map = map;
    }

    @Override
    public Iterator<V> iterator() {
        return new MapIterator<>(map, (k, v) -> map.values.decode(v));
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
    public void clear() {
        map.clear();
    }
}
