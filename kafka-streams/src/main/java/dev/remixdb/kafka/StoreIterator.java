package dev.remixdb.kafka;

import dev.remixdb.ClosedException;
import dev.remixdb.Cursor;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;

import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * A {@link KeyValueIterator} over a RemixDB {@link Cursor} bounded to a user range. The cursor reads
 * the snapshot of the moment it was opened, so writes made while iterating (by the same processor,
 * or by the stream thread while an interactive query iterates) are not seen and cannot disturb it.
 *
 * <p>The store tracks every open iterator and closes those still open when it closes; an iterator
 * used after that raises {@link InvalidStateStoreException}, as the built-in stores do. One thread
 * at a time, like the cursor it wraps.
 */
final class StoreIterator implements KeyValueIterator<Bytes, byte[]> {
    private final String storeName;
    private final Cursor cursor;
    private final boolean forward;
    private final Consumer<StoreIterator> onClose;
    private volatile boolean closed;

    StoreIterator(String storeName, Cursor cursor, boolean forward, Consumer<StoreIterator> onClose) {
        this.storeName = storeName;
        this.cursor = cursor;
        this.forward = forward;
        this.onClose = onClose;
        if (forward) {
            cursor.seekToFirst();
        } else {
            cursor.seekToLast();
        }
    }

    @Override
    public boolean hasNext() {
        checkOpen();
        try {
            return cursor.isValid();
        } catch (ClosedException e) {
            throw closedUnderneath(e);
        }
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more entries in an iterator of store " + storeName);
        }
        try {
            KeyValue<Bytes, byte[]> entry = KeyValue.pair(StoreKeys.user(cursor.key()), cursor.value());
            if (forward) {
                cursor.next();
            } else {
                cursor.prev();
            }
            return entry;
        } catch (ClosedException e) {
            throw closedUnderneath(e);
        }
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more entries in an iterator of store " + storeName);
        }
        try {
            return StoreKeys.user(cursor.key());
        } catch (ClosedException e) {
            throw closedUnderneath(e);
        }
    }

    /**
     * The store closed this iterator's cursor while a call was under way (a rebalance closing the
     * store while an interactive query iterates): Kafka's query layers retry on
     * {@link InvalidStateStoreException} only, so that is what the caller gets, as from a closed iterator.
     */
    private InvalidStateStoreException closedUnderneath(ClosedException e) {
        return new InvalidStateStoreException("store " + storeName + " was closed while an iterator read it", e);
    }

    /** Releases the cursor's snapshot. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            cursor.close();
        } finally {
            onClose.accept(this);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new InvalidStateStoreException("an iterator of store " + storeName + " is closed");
        }
    }
}
