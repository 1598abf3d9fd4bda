package dev.remixdb;

import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Objects;

/**
 * The key range and direction of a {@link MapView}. The range is kept twice: as keys with inclusive
 * flags, compared with the codec's comparator (a byte array bound is copied), and as the byte bounds of
 * the cursors that scan it ([lower, upper), an exclusive key bound becoming the key's successor in
 * byte order, the key followed by a zero byte). Immutable.
 */
final class MapRange<K> {
    private final Comparator<? super K> order;
    private final K lo;
    private final boolean loInclusive;
    private final K hi;
    private final boolean hiInclusive;
    private final boolean descending;
    /** Cursor bounds: inclusive lower, exclusive upper, null when open. */
    final byte[] lowerBytes;
    final byte[] upperBytes;
    private final KeyCodec<K> keys;

    private MapRange(KeyCodec<K> keys, K lo, boolean loInclusive, K hi, boolean hiInclusive, boolean descending) {
        this.keys = keys;
        this.order = keys.comparator();
        this.lo = own(lo);
        this.loInclusive = loInclusive;
        this.hi = own(hi);
        this.hiInclusive = hiInclusive;
        this.descending = descending;
        // From the copies: the checks and the cursor bounds then come from the same bytes.
        this.lowerBytes = lo == null ? null : loInclusive ? keys.encode(this.lo) : successor(keys.encode(this.lo));
        this.upperBytes = hi == null ? null : hiInclusive ? successor(keys.encode(this.hi)) : keys.encode(this.hi);
    }

    /**
     * A bound the range can keep: a byte array is copied, as the caller may reuse it (arrays passed
     * in are never kept), and the range checks and the cursor bounds must stay the same range.
     */
    @SuppressWarnings("unchecked")
    private static <K> K own(K bound) {
        return bound instanceof byte[] b ? (K) b.clone() : bound;
    }

    /** Every key, ascending. */
    static <K> MapRange<K> all(KeyCodec<K> keys) {
        return new MapRange<>(keys, null, false, null, false, false);
    }

    /** The smallest byte string greater than {@code key}. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    boolean isDescending() {
        return descending;
    }

    /** The order of the view: the codec's, reversed when descending. */
    Comparator<? super K> comparator() {
        return descending ? Collections.reverseOrder(order) : order;
    }

    boolean inRange(K key) {
        return !tooLow(key) && !tooHigh(key);
    }

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

    /** The same range the other way round. */
    MapRange<K> reversed() {
        return new MapRange<>(keys, lo, loInclusive, hi, hiInclusive, !descending);
    }

    /** {@link java.util.NavigableMap#subMap(Object, boolean, Object, boolean)} in this view's direction. */
    MapRange<K> sub(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        Objects.requireNonNull(fromKey, "fromKey must not be null");
        Objects.requireNonNull(toKey, "toKey must not be null");
        return descending ? narrow(toKey, toInclusive, fromKey, fromInclusive, true, true)
                : narrow(fromKey, fromInclusive, toKey, toInclusive, true, true);
    }

    /** {@link java.util.NavigableMap#headMap(Object, boolean)} in this view's direction. */
    MapRange<K> head(K toKey, boolean inclusive) {
        Objects.requireNonNull(toKey, "toKey must not be null");
        return descending ? narrow(toKey, inclusive, null, false, true, false)
                : narrow(null, false, toKey, inclusive, false, true);
    }

    /** {@link java.util.NavigableMap#tailMap(Object, boolean)} in this view's direction. */
    MapRange<K> tail(K fromKey, boolean inclusive) {
        Objects.requireNonNull(fromKey, "fromKey must not be null");
        return descending ? narrow(null, false, fromKey, inclusive, false, true)
                : narrow(fromKey, inclusive, null, false, true, false);
    }

    /**
     * The range limited to the given ascending bounds ({@code hasFrom}/{@code hasTo}: which bounds are
     * given), in this range's direction. From must not be above to, and a bound outside this range is
     * refused, as {@link java.util.NavigableMap#subMap} specifies and TreeMap does (stricter than
     * ConcurrentSkipListMap, which checks each new bound against one end only, so that its
     * {@code headMap(k).tailMap(k, true)} is an empty view where this one throws).
     */
    private MapRange<K> narrow(K from, boolean fromInclusive, K to, boolean toInclusive, boolean hasFrom, boolean hasTo) {
        if (hasFrom && hasTo && order.compare(from, to) > 0) {
            throw new IllegalArgumentException("inconsistent range: " + from + " > " + to);
        }
        K newLo = lo;
        boolean newLoInclusive = loInclusive;
        if (hasFrom) {
            checkBound(from, fromInclusive);
            newLo = from;
            newLoInclusive = fromInclusive;
        }
        K newHi = hi;
        boolean newHiInclusive = hiInclusive;
        if (hasTo) {
            checkBound(to, toInclusive);
            newHi = to;
            newHiInclusive = toInclusive;
        }
        return new MapRange<>(keys, newLo, newLoInclusive, newHi, newHiInclusive, descending);
    }

    /**
     * Refuses a new bound outside this range, against both ends: an inclusive bound must be a key
     * of the range, an exclusive one may also be one of its exclusive ends (TreeMap's rule). So a
     * head map's tail map cannot start above the head map's end, as a one-sided check would allow.
     */
    private void checkBound(K key, boolean inclusive) {
        boolean ok = inclusive ? inRange(key)
                : (lo == null || order.compare(key, lo) >= 0) && (hi == null || order.compare(key, hi) <= 0);
        if (!ok) {
            throw new IllegalArgumentException("key out of range of this map view: " + key);
        }
    }
}
