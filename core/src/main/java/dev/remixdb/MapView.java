package dev.remixdb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * {@link RemixDB#asMap(KeyCodec, ValueCodec)}: a key range of the store, in either direction
 * ({@link MapRange}), seen through codecs. Reads go to the store on each call; writes are the
 * store's atomic operations ({@link RemixDB#compute}), so {@code put} can return the previous value
 * and {@code replace(k, old, new)} compares and sets. Sub-maps and descending maps are new views on
 * the same store.
 */
final class MapView<K, V> extends AbstractMap<K, V> implements ConcurrentNavigableMap<K, V> {
    private final RemixDB db;
    final KeyCodec<K> keys;
    final ValueCodec<V> values;
    private final MapRange<K> range;
    private final MapNavigation<K, V> navigation;

    private MapView(RemixDB db, KeyCodec<K> keys, ValueCodec<V> values, MapRange<K> range) {
        db.checkOpen();  // no new view of a closed store
        this.db = db;
        this.keys = keys;
        this.values = values;
        this.range = range;
        this.navigation = new MapNavigation<>(this);
    }

    static <K, V> MapView<K, V> of(RemixDB db, KeyCodec<K> keys, ValueCodec<V> values) {
        return new MapView<>(db, keys, values, MapRange.all(keys));
    }

    /**
     * Whether {@code key} is in this view's range; throws {@link ClosedException} once the store is
     * closed, so that a key out of range answers as the store would (every use after close throws).
     */
    boolean inRange(K key) {
        db.checkOpen();
        return range.inRange(key);
    }

    /** The key as {@code K}, checked for null; a key of another type fails in the codec or comparator. */
    @SuppressWarnings("unchecked")
    K key(Object key) {
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

    byte[] read(byte[] key) {
        return db.get(key);
    }

    /** {@link RemixDB#compute}, with I/O errors unchecked as a {@link Map} must. */
    byte[] update(byte[] key, java.util.function.UnaryOperator<byte[]> fn) {
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
        return db.cursor(range.lowerBytes, range.upperBytes);
    }

    boolean isDescending() {
        return range.isDescending();
    }

    // ------------------------------------------------------------------ Map

    /**
     * The encoded key for a call that only finds, or null when no key like it can be stored (over
     * {@link Options#MAX_KEY_BYTES}): such a key is absent, as a map that cannot hold it answers.
     */
    private byte[] encodeToFind(K key) {
        byte[] k = keys.encode(key);
        return k.length > Options.MAX_KEY_BYTES ? null : k;
    }

    /** {@link #encodeToFind}, or null for a key out of this view's range (absent from it too). */
    byte[] encodeInRangeToFind(K key) {
        return inRange(key) ? encodeToFind(key) : null;
    }

    @Override
    public V get(Object key) {
        K k = key(key);
        byte[] b = encodeInRangeToFind(k);
        return b == null ? null : decodeValue(read(b));
    }

    @Override
    public boolean containsKey(Object key) {
        K k = key(key);
        byte[] b = encodeInRangeToFind(k);
        return b != null && read(b) != null;
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
        byte[] b = encodeInRangeToFind(k);
        if (b == null) {
            return null;
        }
        byte[][] old = new byte[1][];
        update(b, o -> {
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

    /**
     * Deletes the keys in range with one {@link RemixDB#deleteRange} (atomic, and one operation
     * however many keys the range holds).
     */
    @Override
    public void clear() {
        db.checkOpen();
        byte[] lo = range.lowerBytes;
        byte[] hi = range.upperBytes;
        // A range delete takes only bounds a key could have. A longer bound (the successor of a key
        // of the greatest length, or a long typed key) holds the same keys as the next key that can
        // exist after its first Options.MAX_KEY_BYTES bytes; none exists after all-0xFF bytes.
        if (lo != null && lo.length > Options.MAX_KEY_BYTES) {
            lo = nextStorableAfterPrefix(lo);
            if (lo == null) {
                return;  // no key can be this high
            }
        }
        if (hi != null && hi.length > Options.MAX_KEY_BYTES) {
            hi = nextStorableAfterPrefix(hi);  // null: every key is below it
        }
        if (hi != null && hi.length == 0) {
            return;  // no key is below the empty key
        }
        if (lo != null && hi != null && java.util.Arrays.compareUnsigned(lo, hi) >= 0) {
            return;  // an empty range
        }
        try {
            db.deleteRange(lo, hi);
        } catch (IOException e) {
            throw new UncheckedIOException("clear through map view of " + db + " failed", e);
        }
    }

    /**
     * The smallest key of at most {@link Options#MAX_KEY_BYTES} bytes above the first that many bytes
     * of {@code bound}, or null when there is none (they are all 0xFF). For a bound longer than any
     * key, the keys below it are those below this one, and the keys at or above it those at or above.
     */
    static byte[] nextStorableAfterPrefix(byte[] bound) {
        int i = Options.MAX_KEY_BYTES - 1;
        while (i >= 0 && bound[i] == (byte) 0xFF) {
            i--;
        }
        if (i < 0) {
            return null;
        }
        byte[] next = Arrays.copyOf(bound, i + 1);
        next[i]++;
        return next;
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
        byte[] b = encodeToFind(k);
        if (b == null) {
            return false;
        }
        boolean[] done = new boolean[1];
        update(b, o -> {
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
            throw new IllegalArgumentException("key out of range of this map view: " + key);
        }
        byte[] expected = values.encode(oldValue);
        byte[] b = encodeToFind(key);
        if (b == null) {
            return false;
        }
        boolean[] done = new boolean[1];
        update(b, o -> {
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
            throw new IllegalArgumentException("key out of range of this map view: " + key);
        }
        byte[] b = encodeToFind(key);
        if (b == null) {
            return null;
        }
        byte[][] old = new byte[1][];
        update(b, o -> {
            old[0] = o;
            return o == null ? null : v;
        });
        return decodeValue(old[0]);
    }

    /** Applies {@code fn} exactly once, while other writers wait (see {@link RemixDB#compute}). */
    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
        Objects.requireNonNull(fn, "function must not be null");
        Objects.requireNonNull(key, "key must not be null");
        if (!inRange(key)) {
            // Absent from this view: as Map.compute, a null result leaves the map as it is.
            if (fn.apply(key, null) == null) {
                return null;
            }
            throw new IllegalArgumentException("key out of range of this map view: " + key);
        }
        byte[] k = encodeToFind(key);
        if (k == null) {
            // Too long to store, so absent: a null result leaves the map as it is, a value is refused.
            if (fn.apply(key, null) == null) {
                return null;
            }
            k = keys.encode(key);  // the store's check names the limit
        }
        return decodeValue(update(k, o -> {
            V old = decodeValue(o);
            V next = fn.apply(key, old);
            if (next == null) {
                return null;
            }
            return encodeUnlessSame(next, o);
        }));
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> fn) {
        Objects.requireNonNull(fn, "function must not be null");
        Objects.requireNonNull(key, "key must not be null");
        if (!inRange(key)) {
            if (fn.apply(key) == null) {
                return null;
            }
            throw new IllegalArgumentException("key out of range of this map view: " + key);
        }
        byte[] k = encodeToFind(key);
        if (k == null) {
            if (fn.apply(key) == null) {
                return null;
            }
            k = keys.encode(key);  // refused by the store's check, which names the limit
        }
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
        byte[] b = encodeInRangeToFind(key);
        if (b == null) {
            return null;
        }
        return decodeValue(update(b, o -> {
            if (o == null) {
                return null;
            }
            V old = values.decode(o);
            V next = fn.apply(key, old);
            if (next == null) {
                return null;
            }
            return encodeUnlessSame(next, o);
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
            return encodeUnlessSame(next, o);
        }));
    }

    /**
     * The encoded {@code next}, or {@code current} itself when the encoding is the same, so that the
     * store writes nothing: compared by content, since a function may change the value it was given
     * and return it (a list it added to), which is a change to store.
     */
    private byte[] encodeUnlessSame(V next, byte[] current) {
        byte[] encoded = values.encode(next);
        return Arrays.equals(encoded, current) ? current : encoded;
    }

    /**
     * Replaces each value in range by {@code fn(key, value)}, each key once, as its own atomic
     * {@link #computeIfPresent} (the default's compare-and-set loop never ends for a function that
     * changes the value it is given in place). A null result throws {@link NullPointerException}
     * and leaves that key as it was.
     */
    @Override
    public void replaceAll(BiFunction<? super K, ? super V, ? extends V> fn) {
        Objects.requireNonNull(fn, "function must not be null");
        for (K key : keySet()) {
            computeIfPresent(key, (k, v) -> Objects.requireNonNull(fn.apply(k, v), "replaceAll's function returned null"));
        }
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
        return navigation.first(!isDescending());
    }

    @Override
    public Map.Entry<K, V> lastEntry() {
        return navigation.first(isDescending());
    }

    @Override
    public Map.Entry<K, V> ceilingEntry(K key) {
        return isDescending() ? navigation.below(key, true) : navigation.above(key, true);
    }

    @Override
    public Map.Entry<K, V> higherEntry(K key) {
        return isDescending() ? navigation.below(key, false) : navigation.above(key, false);
    }

    @Override
    public Map.Entry<K, V> floorEntry(K key) {
        return isDescending() ? navigation.above(key, true) : navigation.below(key, true);
    }

    @Override
    public Map.Entry<K, V> lowerEntry(K key) {
        return isDescending() ? navigation.above(key, false) : navigation.below(key, false);
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
        return navigation.poll(true);
    }

    @Override
    public Map.Entry<K, V> pollLastEntry() {
        return navigation.poll(false);
    }

    // ------------------------------------------------------------------ views

    @Override
    public Comparator<? super K> comparator() {
        return range.comparator();
    }

    @Override
    public ConcurrentNavigableMap<K, V> descendingMap() {
        return new MapView<>(db, keys, values, range.reversed());
    }

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        return new MapView<>(db, keys, values, range.sub(fromKey, fromInclusive, toKey, toInclusive));
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        return new MapView<>(db, keys, values, range.head(toKey, inclusive));
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        return new MapView<>(db, keys, values, range.tail(fromKey, inclusive));
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
        return new MapEntrySet<>(this);
    }

    @Override
    public Collection<V> values() {
        return new MapValues<>(this);
    }
}
