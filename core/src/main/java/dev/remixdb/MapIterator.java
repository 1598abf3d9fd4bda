package dev.remixdb;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.BiFunction;

/**
 * A weakly consistent iterator over a {@link MapView}: it reads the store in chunks, each through a
 * short-lived cursor that resumes strictly after the last key read, in the view's direction. So it
 * returns keys in order and each at most once, sees every key present for its whole life, never
 * throws {@link java.util.ConcurrentModificationException}, and holds no cursor or snapshot
 * between calls: an iterator dropped half-way (the common case with maps) pins nothing.
 *
 * <p>Chunks grow from a few entries (most iterations stop early: {@code isEmpty}, {@code first})
 * to a few hundred.
 */
final class MapIterator<K, V, T> implements Iterator<T> {
    private static final int FIRST_CHUNK = 8;
    private static final int MAX_CHUNK = 512;

    private final MapView<K, V> map;
    private final BiFunction<byte[], byte[], T> make;
    private final List<byte[]> chunkKeys = new ArrayList<>();
    private final List<byte[]> chunkValues = new ArrayList<>();
    private int pos;
    private int chunk = FIRST_CHUNK;
    /** The last key read from the store, where the next chunk resumes; null before the first. */
    private byte[] resumeAfter;
    private boolean exhausted;
    /** The key of the element last returned, for {@link #remove()}; null when there is none. */
    private byte[] lastReturned;

    MapIterator(MapView<K, V> map, BiFunction<byte[], byte[], T> make) {
        this.map = map;
        this.make = make;
    }

    @Override
    public boolean hasNext() {
        // A chunk already read must not outlive the store either: the map's contract is that any
        // use after close throws.
        map.checkOpen();
        if (pos < chunkKeys.size()) {
            return true;
        }
        if (exhausted) {
            return false;
        }
        fill();
        return pos < chunkKeys.size();
    }

    private void fill() {
        chunkKeys.clear();
        chunkValues.clear();
        pos = 0;
        boolean forwards = !map.isDescending();
        try (Cursor c = map.cursor()) {
            if (resumeAfter == null) {
                if (forwards) {
                    c.seekToFirst();
                } else {
                    c.seekToLast();
                }
            } else if (forwards) {
                c.seek(MapRange.successor(resumeAfter));
            } else {
                c.seekForPrev(resumeAfter);
                if (c.isValid() && Arrays.equals(c.key(), resumeAfter)) {
                    c.prev();
                }
            }
            while (c.isValid() && chunkKeys.size() < chunk) {
                chunkKeys.add(c.key());
                chunkValues.add(c.value());
                if (forwards) {
                    c.next();
                } else {
                    c.prev();
                }
            }
            exhausted = !c.isValid();
        }
        if (!chunkKeys.isEmpty()) {
            resumeAfter = chunkKeys.getLast();
        }
        chunk = Math.min(MAX_CHUNK, chunk * 2);
    }

    @Override
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        byte[] k = chunkKeys.get(pos);
        byte[] v = chunkValues.get(pos);
        pos++;
        lastReturned = k;
        // The codec may keep the array it decodes (Codecs.BYTES does): hand it a copy.
        return make.apply(k.clone(), v);
    }

    /** Deletes the key last returned, whatever its value is now (as ConcurrentSkipListMap's iterators do). */
    @Override
    public void remove() {
        if (lastReturned == null) {
            throw new IllegalStateException("next() has not returned an element since the last remove()");
        }
        WriteBatch batch = new WriteBatch().delete(lastReturned);
        map.write(batch);
        lastReturned = null;
    }
}
