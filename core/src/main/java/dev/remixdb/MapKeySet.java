package dev.remixdb;

import java.util.AbstractSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.SortedSet;
import java.util.Spliterator;
import java.util.Spliterators;

/**
 * The keys of a {@link MapView} as a {@link NavigableSet}, like
 * {@link java.util.concurrent.ConcurrentSkipListMap#navigableKeySet()}: removals write to the store,
 * additions are not supported, and sub-sets and the descending set are key sets of the map's
 * sub-maps and descending map.
 */
final class MapKeySet<K> extends AbstractSet<K> implements NavigableSet<K> {
    private final MapView<K, ?> map;

    MapKeySet(MapView<K, ?> map) {
        this.map = map;
    }

    private static <K> K keyOf(Map.Entry<K, ?> e) {
        return e == null ? null : e.getKey();
    }

    @Override
    public Iterator<K> iterator() {
        return new MapIterator<>(map, (k, v) -> map.keys.decode(k));
    }

    @Override
    public Iterator<K> descendingIterator() {
        return descendingSet().iterator();
    }

    /**
     * Weakly consistent like the iterator, and not SIZED: the default spliterator promises the
     * size read before the walk, and a stream then fails when writers change the range meanwhile.
     * Not SORTED either: that promises the keys' natural order, which byte[] keys do not have.
     */
    @Override
    public Spliterator<K> spliterator() {
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
        return map.containsKey(o);
    }

    @Override
    public boolean remove(Object o) {
        return map.remove(o) != null;
    }

    @Override
    public void clear() {
        map.clear();
    }

    @Override
    public boolean removeAll(Collection<?> c) {
        // AbstractSet's version may call contains() on c with our keys; removing one by one is plainer.
        Objects.requireNonNull(c);
        boolean changed = false;
        for (Object o : c) {
            changed |= remove(o);
        }
        return changed;
    }

    @Override
    public K lower(K k) {
        return map.lowerKey(k);
    }

    @Override
    public K floor(K k) {
        return map.floorKey(k);
    }

    @Override
    public K ceiling(K k) {
        return map.ceilingKey(k);
    }

    @Override
    public K higher(K k) {
        return map.higherKey(k);
    }

    @Override
    public K pollFirst() {
        return keyOf(map.pollFirstEntry());
    }

    @Override
    public K pollLast() {
        return keyOf(map.pollLastEntry());
    }

    @Override
    public Comparator<? super K> comparator() {
        return map.comparator();
    }

    @Override
    public K first() {
        return map.firstKey();
    }

    @Override
    public K last() {
        return map.lastKey();
    }

    @Override
    public NavigableSet<K> descendingSet() {
        return new MapKeySet<>((MapView<K, ?>) map.descendingMap());
    }

    @Override
    public NavigableSet<K> subSet(K from, boolean fromInclusive, K to, boolean toInclusive) {
        return new MapKeySet<>((MapView<K, ?>) map.subMap(from, fromInclusive, to, toInclusive));
    }

    @Override
    public NavigableSet<K> headSet(K to, boolean inclusive) {
        return new MapKeySet<>((MapView<K, ?>) map.headMap(to, inclusive));
    }

    @Override
    public NavigableSet<K> tailSet(K from, boolean inclusive) {
        return new MapKeySet<>((MapView<K, ?>) map.tailMap(from, inclusive));
    }

    @Override
    public SortedSet<K> subSet(K from, K to) {
        return subSet(from, true, to, false);
    }

    @Override
    public SortedSet<K> headSet(K to) {
        return headSet(to, false);
    }

    @Override
    public SortedSet<K> tailSet(K from) {
        return tailSet(from, true);
    }
}
