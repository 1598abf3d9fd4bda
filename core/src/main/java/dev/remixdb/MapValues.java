package dev.remixdb;

import java.util.AbstractCollection;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;

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

    /** Weakly consistent like the iterator, and not SIZED (see {@link MapKeySet#spliterator()}). */
    @Override
    public Spliterator<V> spliterator() {
        return Spliterators.spliteratorUnknownSize(iterator(),
                Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.CONCURRENT);
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
