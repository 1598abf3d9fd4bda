package dev.remixdb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * {@link RemixDB#asMap(KeyCodec, ValueCodec)}: a key range of the store, in either direction, seen
 * through codecs. Reads go to the store on each call; writes are the store's atomic operations
 * ({@link RemixDB#compute}), so {@code put} can return the previous value and {@code replace(k, old,
 * new)} compares and sets. Sub-maps and descending maps are new views on the same store.
 *
 * <p>The range is kept twice: as keys with inclusive flags, compared with the codec's comparator
 * exactly as {@link java.util.concurrent.ConcurrentSkipListMap} checks its sub-maps, and as the
 * byte bounds of the cursors that scan it ([lower, upper), an exclusive key bound becoming the
 * key's successor in byte order, the key followed by a zero byte).
 */
final class MapView<K, V> extends AbstractMap<K, V> implements ConcurrentNavigableMap<K, V> {
    private final RemixDB db;
    final KeyCodec<K> keys;
    final ValueCodec<V> values;
    private final Comparator<? super K> order;
    private final K lo;
    private final boolean loInclusive;
    private final K hi;
    private final boolean hiInclusive;
    private final boolean descending;
    /** Cursor bounds: inclusive lower, exclusive upper, null when open. */
    final byte[] lowerBytes;
    final byte[] upperBytes;

    private MapView(RemixDB db, KeyCodec<K> keys, ValueCodec<V> values, K lo, boolean loInclusive,
                    K hi, boolean hiInclusive, boolean descending) {
        this.db = db;
        this.keys = keys;
        this.values = values;
        this.order = keys.comparator();
        this.lo = lo;
        this.loInclusive = loInclusive;
        this.hi = hi;
        this.hiInclusive = hiInclusive;
        this.descending = descending;
        this.lowerBytes = lo == null ? null : loInclusive ? keys.encode(lo) : successor(keys.encode(lo));
        this.upperBytes = hi == null ? null : hiInclusive ? successor(keys.encode(hi)) : keys.encode(hi);
    }

    static <K, V> MapView<K, V> of(RemixDB db, KeyCodec<K> keys, ValueCodec<V> values) {
        return new MapView<>(db, keys, values, null, false, null, false, false);
    }

    /** The smallest byte string greater than {@code key}. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    // ------------------------------------------------------------------ range

    private boolean tooLow(K key) {
        if (lo == null) {
            return false;
        }
        int c = order.compare(key, lo);
        return c < 0 || (c == 0 && !loInclusive);
    }

    private boolean tooHigh(K key) {
        if (hi == null) {
            return false;
        }
        int c = order.compare(key, hi);
        return c > 0 || (c == 0 && !hiInclusive);
    }

    boolean inRange(K key) {
        return !tooLow(key) && !tooHigh(key);
    }

    /** The key as {@code K}, checked for null; a key of another type fails in the codec or comparator. */
    @SuppressWarnings("unchecked")
    private K key(Object key) {
        return (K) Objects.requireNonNull(key, "key must not be null");
    }

    private byte[] encodeInRange(K key) {
        Objects.requireNonNull(key, "key must not be null");
        if (!inRange(key)) {
            throw new IllegalArgumentException("key out of range of this map view: " + key);
        }
        return keys.encode(key);
    }

    private byte[] encodeValue(V value) {
        return values.encode(Objects.requireNonNull(value, "value must not be null"));
    }

    private V decodeValue(byte[] bytes) {
        return bytes == null ? null : values.decode(bytes);
    }

    // ------------------------------------------------------------------ store calls

    private byte[] read(byte[] key) {
        return db.get(key);
    }

    /** {@link RemixDB#compute}, with I/O errors unchecked as a {@link Map} must. */
    private byte[] update(byte[] key, java.util.function.UnaryOperator<byte[]> fn) {
        try {
            return db.compute(key, fn);
        } catch (IOException e) {
            throw new UncheckedIOException("write through map view of " + db + " failed", e);
        }
    }

    void write(WriteBatch batch) {
        try {
            db.write(batch);
        } catch (IOException e) {
            throw new UncheckedIOException("write through map view of " + db + " failed", e);
        }
    }

    /** Throws {@link ClosedException} once the store is closed. */
    void checkOpen() {
        db.checkOpen();
    }

    /** A cursor over this view's range; the caller closes it. */
    Cursor cursor() {
        return db.cursor(lowerBytes, upperBytes);
    }

    boolean isDescending() {
        return descending;
    }

    // ------------------------------------------------------------------ Map

    @Override
    public V get(Object key) {
        K k = key(key);
        return inRange(k) ? decodeValue(read(keys.encode(k))) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        K k = key(key);
        return inRange(k) && read(keys.encode(k)) != null;
    }

    @Override
    public boolean containsValue(Object value) {
        Objects.requireNonNull(value, "value must not be null");
        for (V v : values()) {
            if (value.equals(v) || value instanceof byte[] a && v instanceof byte[] b && Arrays.equals(a, b)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public V put(K key, V value) {
        byte[] k = encodeInRange(key);
        byte[] v = encodeValue(value);
        byte[][] old = new byte[1][];
        update(k, o -> {
            old[0] = o;
            return v;
        });
        return decodeValue(old[0]);
    }

    @Override
    public V remove(Object key) {
        K k = key(key);
        if (!inRange(k)) {
            return null;
        }
        byte[][] old = new byte[1][];
        update(keys.encode(k), o -> {
            old[0] = o;
            return null;
        });
        return decodeValue(old[0]);
    }

    /** Puts every entry in one atomic batch (several, each atomic, beyond {@link WriteBatch#MAX_BYTES}). */
    @Override
    public void putAll(Map<? extends K, ? extends V> m) {
        WriteBatch batch = new WriteBatch();
        for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) {
            byte[] k = encodeInRange(e.getKey());
            byte[] v = encodeValue(e.getValue());
            if (batch.byteSize() + k.length + v.length + WriteBatch.OP_OVERHEAD > WriteBatch.MAX_BYTES) {
                write(batch);
                batch.clear();
            }
            batch.put(k, v);
        }
        write(batch);
    }

    /** Deletes the keys in range, in batches; like any bulk operation here, not atomic. */
    @Override
    public void clear() {
        WriteBatch batch = new WriteBatch();
        try (Cursor c = cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                batch.delete(c.key());
                if (batch.size() == 1024) {
                    write(batch);
                    batch.clear();
                }
            }
        }
        write(batch);
    }

    /** Walks the range: O(n), as in {@link java.util.concurrent.ConcurrentSkipListMap}. */
    @Override
    public int size() {
        long n = 0;
        try (Cursor c = cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                n++;
            }
        }
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    @Override
    public boolean isEmpty() {
        try (Cursor c = cursor()) {
            c.seekToFirst();
            return !c.isValid();
        }
    }

    // ------------------------------------------------------------------ ConcurrentMap

    @Override
    public V putIfAbsent(K key, V value) {
        byte[] k = encodeInRange(key);
        byte[] v = encodeValue(value);
        byte[][] old = new byte[1][];
        update(k, o -> {
            old[0] = o;
            return o == null ? v : o;
        });
        return decodeValue(old[0]);
    }

    @Override
    public boolean remove(Object key, Object value) {
        K k = key(key);
        if (value == null || !inRange(k)) {
            return false;
        }
        byte[] expected;
        try {
            @SuppressWarnings("unchecked") V v = (V) value;
            expected = values.encode(v);
        } catch (ClassCastException e) {
            return false;
        }
        boolean[] done = new boolean[1];
        update(keys.encode(k), o -> {
            done[0] = o != null && Arrays.equals(o, expected);
            return done[0] ? null : o;
        });
        return done[0];
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        Objects.requireNonNull(oldValue, "value must not be null");
        byte[] v = encodeValue(newValue);
        Objects.requireNonNull(key, "key must not be null");
        if (!inRange(key)) {
            return false;
        }
        byte[] expected = values.encode(oldValue);
        boolean[] done = new boolean[1];
        update(keys.encode(key), o -> {
            done[0] = o != null && Arrays.equals(o, expected);
            return done[0] ? v : o;
        });
        return done[0];
    }

    @Override
    public V replace(K key, V value) {
        byte[] v = encodeValue(value);
        Objects.requireNonNull(key, "key must not be null");
        if (!inRange(key)) {
            return null;
        }
        byte[][] old = new byte[1][];
        update(keys.encode(key), o -> {
            old[0] = o;
            return o == null ? null : v;
        });
        return decodeValue(old[0]);
    }

    /** Applies {@code fn} exactly once, while other writers wait (see {@link RemixDB#compute}). */
    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
        Objects.requireNonNull(fn, "function must not be null");
        byte[] k = encodeInRange(key);
        return decodeValue(update(k, o -> {
            V old = decodeValue(o);
            V next = fn.apply(key, old);
            if (next == null) {
                return null;
            }
            return next == old ? o : values.encode(next);
        }));
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> fn) {
        Objects.requireNonNull(fn, "function must not be null");
        byte[] k = encodeInRange(key);
        return decodeValue(update(k, o -> {
            if (o != null) {
                return o;
            }
            V next = fn.apply(key);
            return next == null ? null : values.encode(next);
        }));
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
        Objects.requireNonNull(fn, "function must not be null");
        Objects.requireNonNull(key, "key must not be null");
        if (!inRange(key)) {
            return null;
        }
        return decodeValue(update(keys.encode(key), o -> {
            if (o == null) {
                return null;
            }
            V old = values.decode(o);
            V next = fn.apply(key, old);
            if (next == null) {
                return null;
            }
            return next == old ? o : values.encode(next);
        }));
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> fn) {
        Objects.requireNonNull(fn, "function must not be null");
        byte[] v = encodeValue(value);
        byte[] k = encodeInRange(key);
        return decodeValue(update(k, o -> {
            if (o == null) {
                return v;
            }
            V old = values.decode(o);
            V next = fn.apply(old, value);
            if (next == null) {
                return null;
            }
            return next == old ? o : values.encode(next);
        }));
    }

    // ------------------------------------------------------------------ navigation

    /** An entry read from the store; {@code setValue} writes through (as a TreeMap iterator's does). */
    final class Entry extends AbstractMap.SimpleEntry<K, V> {
        Entry(K key, V value) {
            super(key, value);
        }

        @Override
        public V setValue(V value) {
            put(getKey(), value);
            return super.setValue(value);
        }
    }

    /** The entry at the cursor, or null when it is not positioned. */
    private Map.Entry<K, V> entryAt(Cursor c) {
        return c.isValid() ? new SimpleImmutableEntry<>(keys.decode(c.key()), values.decode(c.value())) : null;
    }

    /** Entry readers in ascending terms; a descending view swaps them. */
    private Map.Entry<K, V> first(boolean ascending) {
        try (Cursor c = cursor()) {
            if (ascending) {
                c.seekToFirst();
            } else {
                c.seekToLast();
            }
            return entryAt(c);
        }
    }

    /** The smallest entry {@code >= key} ({@code > key} unless {@code inclusive}). */
    private Map.Entry<K, V> above(K key, boolean inclusive) {
        byte[] k = keys.encode(Objects.requireNonNull(key, "key must not be null"));
        try (Cursor c = cursor()) {
            c.seek(inclusive ? k : successor(k));
            return entryAt(c);
        }
    }

    /** The largest entry {@code <= key} ({@code < key} unless {@code inclusive}). */
    private Map.Entry<K, V> below(K key, boolean inclusive) {
        byte[] k = keys.encode(Objects.requireNonNull(key, "key must not be null"));
        try (Cursor c = cursor()) {
            c.seekForPrev(k);
            if (!inclusive && c.isValid() && Arrays.equals(c.key(), k)) {
                c.prev();
            }
            return entryAt(c);
        }
    }

    private static <T> T keyOrNull(Map.Entry<T, ?> e) {
        return e == null ? null : e.getKey();
    }

    private static <T> T keyOrThrow(Map.Entry<T, ?> e) {
        if (e == null) {
            throw new NoSuchElementException("map is empty");
        }
        return e.getKey();
    }

    @Override
    public Map.Entry<K, V> firstEntry() {
        return first(!descending);
    }

    @Override
    public Map.Entry<K, V> lastEntry() {
        return first(descending);
    }

    @Override
    public Map.Entry<K, V> ceilingEntry(K key) {
        return descending ? below(key, true) : above(key, true);
    }

    @Override
    public Map.Entry<K, V> higherEntry(K key) {
        return descending ? below(key, false) : above(key, false);
    }

    @Override
    public Map.Entry<K, V> floorEntry(K key) {
        return descending ? above(key, true) : below(key, true);
    }

    @Override
    public Map.Entry<K, V> lowerEntry(K key) {
        return descending ? above(key, false) : below(key, false);
    }

    @Override
    public K firstKey() {
        return keyOrThrow(firstEntry());
    }

    @Override
    public K lastKey() {
        return keyOrThrow(lastEntry());
    }

    @Override
    public K ceilingKey(K key) {
        return keyOrNull(ceilingEntry(key));
    }

    @Override
    public K higherKey(K key) {
        return keyOrNull(higherEntry(key));
    }

    @Override
    public K floorKey(K key) {
        return keyOrNull(floorEntry(key));
    }

    @Override
    public K lowerKey(K key) {
        return keyOrNull(lowerEntry(key));
    }

    @Override
    public Map.Entry<K, V> pollFirstEntry() {
        return poll(true);
    }

    @Override
    public Map.Entry<K, V> pollLastEntry() {
        return poll(false);
    }

    /** Removes the first (or last) entry if nobody changed it meanwhile; otherwise tries again. */
    private Map.Entry<K, V> poll(boolean first) {
        for (;;) {
            byte[] k;
            byte[] v;
            try (Cursor c = cursor()) {
                if (first != descending) {
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
            update(k, o -> {
                done[0] = o != null && Arrays.equals(o, v);
                return done[0] ? null : o;
            });
            if (done[0]) {
                return new SimpleImmutableEntry<>(keys.decode(k), values.decode(v));
            }
        }
    }

    // ------------------------------------------------------------------ views

    @Override
    public Comparator<? super K> comparator() {
        return descending ? Collections.reverseOrder(order) : order;
    }

    @Override
    public ConcurrentNavigableMap<K, V> descendingMap() {
        return new MapView<>(db, keys, values, lo, loInclusive, hi, hiInclusive, !descending);
    }

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        Objects.requireNonNull(fromKey, "fromKey must not be null");
        Objects.requireNonNull(toKey, "toKey must not be null");
        return descending ? narrow(toKey, toInclusive, fromKey, fromInclusive, true, true)
                : narrow(fromKey, fromInclusive, toKey, toInclusive, true, true);
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        Objects.requireNonNull(toKey, "toKey must not be null");
        return descending ? narrow(toKey, inclusive, null, false, true, false)
                : narrow(null, false, toKey, inclusive, false, true);
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        Objects.requireNonNull(fromKey, "fromKey must not be null");
        return descending ? narrow(null, false, fromKey, inclusive, false, true)
                : narrow(fromKey, inclusive, null, false, true, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, K toKey) {
        return subMap(fromKey, true, toKey, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey) {
        return headMap(toKey, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey) {
        return tailMap(fromKey, true);
    }

    /**
     * The view limited to the given ascending bounds ({@code hasFrom}/{@code hasTo}: which bounds are
     * given), in this view's direction. As in ConcurrentSkipListMap: from must not be above to, and a
     * bound outside this view's range is refused.
     */
    private MapView<K, V> narrow(K from, boolean fromInclusive, K to, boolean toInclusive, boolean hasFrom, boolean hasTo) {
        if (hasFrom && hasTo && order.compare(from, to) > 0) {
            throw new IllegalArgumentException("inconsistent range: " + from + " > " + to);
        }
        K newLo = lo;
        boolean newLoInclusive = loInclusive;
        if (hasFrom) {
            if (lo != null) {
                int c = order.compare(from, lo);
                if (c < 0 || (c == 0 && !loInclusive && fromInclusive)) {
                    throw new IllegalArgumentException("key out of range of this map view: " + from);
                }
            }
            newLo = from;
            newLoInclusive = fromInclusive;
        }
        K newHi = hi;
        boolean newHiInclusive = hiInclusive;
        if (hasTo) {
            if (hi != null) {
                int c = order.compare(to, hi);
                if (c > 0 || (c == 0 && !hiInclusive && toInclusive)) {
                    throw new IllegalArgumentException("key out of range of this map view: " + to);
                }
            }
            newHi = to;
            newHiInclusive = toInclusive;
        }
        return new MapView<>(db, keys, values, newLo, newLoInclusive, newHi, newHiInclusive, descending);
    }

    @Override
    public NavigableSet<K> keySet() {
        return new MapKeySet<>(this);
    }

    @Override
    public NavigableSet<K> navigableKeySet() {
        return new MapKeySet<>(this);
    }

    @Override
    public NavigableSet<K> descendingKeySet() {
        return new MapKeySet<>((MapView<K, V>) descendingMap());
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<K, V>> iterator() {
                return new MapIterator<>(MapView.this, (k, v) -> new Entry(keys.decode(k), values.decode(v)));
            }

            @Override
            public int size() {
                return MapView.this.size();
            }

            @Override
            public boolean isEmpty() {
                return MapView.this.isEmpty();
            }

            @Override
            public boolean contains(Object o) {
                if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
                    return false;
                }
                try {
                    K k = key(e.getKey());
                    @SuppressWarnings("unchecked") V v = (V) e.getValue();
                    return inRange(k) && Arrays.equals(read(keys.encode(k)), values.encode(v));
                } catch (ClassCastException ex) {
                    return false;
                }
            }

            @Override
            public boolean remove(Object o) {
                return o instanceof Map.Entry<?, ?> e && e.getKey() != null
                        && MapView.this.remove(e.getKey(), e.getValue());
            }

            @Override
            public void clear() {
                MapView.this.clear();
            }
        };
    }

    @Override
    public Collection<V> values() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<V> iterator() {
                return new MapIterator<>(MapView.this, (k, v) -> values.decode(v));
            }

            @Override
            public int size() {
                return MapView.this.size();
            }

            @Override
            public boolean isEmpty() {
                return MapView.this.isEmpty();
            }

            @Override
            public void clear() {
                MapView.this.clear();
            }
        };
    }
}
