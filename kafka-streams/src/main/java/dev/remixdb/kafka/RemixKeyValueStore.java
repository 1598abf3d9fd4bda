package dev.remixdb.kafka;

import dev.remixdb.ClosedException;
import dev.remixdb.Cursor;
import dev.remixdb.RemixDB;
import dev.remixdb.WriteBatch;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.TaskCorruptedException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A persistent Kafka Streams {@link KeyValueStore} of bytes on a {@link RemixDB} in
 * {@code stateDir()/<name>}. Make it with {@link RemixStores}.
 *
 * <p>Keys are ordered as unsigned bytes, like {@link Bytes#compareTo}. Ranges include both bounds,
 * a null bound is open, and a range whose {@code from} is above its {@code to} is empty (with a
 * warning), as Kafka specifies. Iterators read a snapshot taken when they are opened, and the store
 * closes any left open when it closes.
 *
 * <p>Offsets: the store manages its own ({@link #managesOffsets()}): {@link #commit(Map)} writes the
 * changelog offsets and the IQv2 position as one batch after the data and syncs the WAL, so the
 * offsets that survive a crash never run ahead of the data that survives it (see
 * {@link StoreMetadata}). Under exactly-once, a store that was not closed cleanly may hold writes of
 * an aborted transaction; it then refuses to open with {@link TaskCorruptedException}, and Kafka
 * wipes it and restores it from the changelog, as it does for its own stores.
 *
 * <p>Thread-safe: the stream thread writes while interactive queries read.
 */
public class RemixKeyValueStore implements KeyValueStore<Bytes, byte[]> {
    private static final Logger LOG = LoggerFactory.getLogger(RemixKeyValueStore.class);
    /**
     * The warning of a range with from above to: Kafka's own stores' sentence, word for word, so that
     * alerts and tooling that match it see ours too.
     */
    static final String INVALID_RANGE = "Returning empty iterator for fetch with invalid key range: from > to."
            + " This may be due to range arguments set in the wrong order, or serdes that don't preserve ordering"
            + " when lexicographically comparing the serialized bytes. Note that the built-in numerical serdes do"
            + " not follow this for negative numbers";

    private final String name;
    private final String metricsScope;
    /**
     * The IQv2 position; also the lock writes and the restore callback take while they move it.
     * Replaced only by {@link #init}, before anything else can use the store.
     */
    private volatile Position position = Position.emptyPosition();
    private final Set<StoreIterator> openIterators = ConcurrentHashMap.newKeySet();
    /** Null unless open: every operation reads it once, so a close in between fails it cleanly. */
    private volatile RemixDB db;
    private StateStoreContext context;
    private boolean consistencyEnabled;
    /** Whether anything was written since the last commit (a commit without news skips its fsync). */
    private volatile boolean dirty;
    /**
     * Whether the newest writes are a restore's (unlogged) with no processing write since: commits
     * then stay unlogged too (see {@link #commit(Map)}). Written by the stream thread only.
     */
    private volatile boolean restoring;
    /**
     * Restored batches written ({@link RemixDB#writeDeferred}, unseen until published), and how many
     * of them a finished publish covers: a read that finds the second behind the first publishes
     * first ({@link #readable}). A count, not a flag: a reader skips the publish only once one that
     * covers every batch written before the read has finished, whoever ran it.
     */
    private final AtomicLong restoredBatches = new AtomicLong();
    private final AtomicLong publishedBatches = new AtomicLong();
    private Map<TopicPartition, Long> lastCommitted;

    /** A store named {@code name} whose gauges carry the tag {@code <metricsScope>-state-id}. */
    public RemixKeyValueStore(String name, String metricsScope) {
        this.name = Objects.requireNonNull(name, "name");
        this.metricsScope = Objects.requireNonNull(metricsScope, "metricsScope");
    }

    @Override
    public String name() {
        return name;
    }

    /** Whether values are in Kafka's timestamped format (see {@link RemixTimestampedKeyValueStore}). */
    boolean timestampedValues() {
        return false;
    }

    @Override
    public synchronized void init(StateStoreContext context, StateStore root) {
        if (db != null) {
            throw new IllegalStateException("store " + name + " is already open");
        }
        Map<String, Object> configs = context.appConfigs();
        Path dir = context.stateDir().toPath().resolve(name);
        RemixDB opened;
        try {
            Files.createDirectories(dir);
            opened = RemixDB.open(dir, StoreOptions.forStore(name, configs));
        } catch (IOException e) {
            throw new ProcessorStateException("cannot open store " + name + " in " + dir, e);
        }
        try {
            boolean eos = StreamsConfig.EXACTLY_ONCE_V2.equals(configs.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
            // A global store (task -1_-1) is written outside transactions, from its source topic, and
            // Kafka's global thread has no way to recover from TaskCorruptedException: it could never
            // start. It holds no aborted writes; a restore from its offset rewrites what came after.
            boolean global = context.taskId().subtopology() < 0;
            if (eos && !global && StoreMetadata.leftOpen(opened)) {
                throw new TaskCorruptedException(Set.of(context.taskId()), new ProcessorStateException(
                        "store " + name + " in " + dir + " was not closed cleanly; under exactly-once it may hold"
                                + " uncommitted writes, so it must be restored from the changelog"));
            }
            StoreFormat.check(opened, timestampedValues(), name, dir);
            StoreMetadata.markOpen(opened);
            // Everything a previous init of this object left behind is dropped: Kafka re-initialises
            // the same store object after wiping a corrupted task's state.
            Position loaded = Position.emptyPosition();
            loaded.merge(StoreMetadata.position(opened, name));
            this.position = loaded;
            this.lastCommitted = null;
            this.dirty = false;
            this.restoring = false;
            this.publishedBatches.set(restoredBatches.get());
        } catch (IOException | RuntimeException e) {
            closeQuietly(opened, e);
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new ProcessorStateException("cannot open store " + name + " in " + dir, e);
        }
        this.context = context;
        this.consistencyEnabled = StreamsConfig.InternalConfig.getBoolean(
                configs, StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, false);
        this.db = opened;
        try {
            StoreMetrics.register(context, metricsScope, name, opened, RemixKeyValueStore::estimateEntries);
            context.register(root, new RestoreCallback(this));
        } catch (RuntimeException e) {
            // E.g. a store of this name registered twice: leave nothing open behind.
            try {
                close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ writes

    /** Sets {@code key} to {@code value}; a null value deletes the key. */
    @Override
    public void put(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        RemixDB d = open();
        if (value == null && StoreKeys.tooLong(key)) {
            deleteAbsent();
            return;
        }
        StoreKeys.checkStorable(name, key.get(), value);
        synchronized (position) {
            try {
                if (value == null) {
                    d.delete(StoreKeys.data(key));
                } else {
                    d.put(StoreKeys.data(key), value);
                }
            } catch (IOException | ClosedException e) {
                throw failure("put", e);
            }
            wrote();
        }
    }

    /** Sets {@code key} to {@code value} unless it is present; returns the present value or null. */
    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        Objects.requireNonNull(key, "key cannot be null");
        if (value == null) {
            // Kafka's stores write nothing for a null value here: there is nothing to put.
            return get(key);
        }
        RemixDB d = open();
        StoreKeys.checkStorable(name, key.get(), value);
        synchronized (position) {
            byte[] current;
            try {
                current = d.putIfAbsent(StoreKeys.data(key), value);
            } catch (IOException | ClosedException e) {
                throw failure("putIfAbsent", e);
            }
            if (current == null) {
                wrote();
            }
            return current;
        }
    }

    /** Writes every entry as one atomic batch (null values delete). */
    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        WriteBatch batch = new WriteBatch();
        for (KeyValue<Bytes, byte[]> e : entries) {
            Objects.requireNonNull(e.key, "key cannot be null");
            if (e.value == null && StoreKeys.tooLong(e.key)) {
                continue;  // a key that cannot be stored is absent: nothing to delete
            }
            StoreKeys.checkStorable(name, e.key.get(), e.value);
            if (e.value == null) {
                batch.delete(StoreKeys.data(e.key));
            } else {
                batch.put(StoreKeys.data(e.key), e.value);
            }
        }
        RemixDB d = open();
        synchronized (position) {
            try {
                d.write(batch);
            } catch (IOException | ClosedException e) {
                throw failure("putAll", e);
            }
            wrote();
        }
    }

    /** Deletes {@code key}; returns its old value, or null when it was absent. */
    @Override
    public byte[] delete(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        RemixDB d = readable("delete");
        if (StoreKeys.tooLong(key)) {
            deleteAbsent();
            return null;
        }
        synchronized (position) {
            byte[] stored = StoreKeys.data(key);
            try {
                // The stream thread is the only writer, so nothing can change the key in between.
                byte[] old = d.get(stored);
                if (old != null) {
                    d.delete(stored);
                }
                wrote();
                return old;
            } catch (IOException | ClosedException e) {
                throw failure("delete", e);
            }
        }
    }

    /**
     * A delete of a key too long to be stored: it cannot be present, so nothing is written, but the
     * position moves as for any delete of an absent key.
     */
    private void deleteAbsent() {
        synchronized (position) {
            wrote();
        }
    }

    /** Under the position lock, after a write: the position moves to the record being processed. */
    private void wrote() {
        dirty = true;
        restoring = false;
        Optional<RecordMetadata> meta = context.recordMetadata();
        if (meta.isPresent() && meta.get().topic() != null) {
            position.withComponent(meta.get().topic(), meta.get().partition(), meta.get().offset());
        }
    }

    /**
     * Applies a batch from the changelog (restore); see {@link RestoreCallback}. Unlogged: the
     * changelog is the log, and the commits that record the restored offsets meanwhile are unlogged
     * too (see {@link #commit}), so they reach the tables with the data before them. Deferred:
     * RemixDB sorts a memtable's worth of restored records before indexing them, and reads here
     * publish them first ({@link #readable}); a commit's write does so by itself.
     */
    void restore(WriteBatch batch) {
        if (batch.isEmpty()) {
            return;
        }
        try {
            open().writeDeferred(batch);
        } catch (IOException | ClosedException e) {
            throw failure("restore", e);
        }
        dirty = true;
        restoring = true;
        restoredBatches.incrementAndGet();
    }

    /** The position the restore callback merges changelog headers into; lock it while changing it. */
    Position position() {
        return position;
    }

    boolean consistencyEnabled() {
        return consistencyEnabled;
    }

    // ------------------------------------------------------------------ reads

    @Override
    public byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        try {
            RemixDB d = readable("get");
            // A key too long to be stored is absent (RemixDB itself refuses to look one up).
            return StoreKeys.tooLong(key) ? null : d.get(StoreKeys.data(key));
        } catch (ClosedException e) {
            throw failure("get", e);
        }
    }

    /** Keys in [{@code from}, {@code to}], ascending; a null bound is open. */
    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return range(from, to, true);
    }

    /** Keys in [{@code from}, {@code to}], descending; a null bound is open. */
    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return range(from, to, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return range(null, null, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return range(null, null, false);
    }

    /** Keys that start with the serialized {@code prefix}, ascending. */
    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        byte[] bytes = prefixKeySerializer.serialize(null, prefix);
        return iterator(StoreKeys.data(bytes), StoreKeys.prefixEnd(bytes), true);
    }

    private KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to, boolean forward) {
        if (from != null && to != null && from.compareTo(to) > 0) {
            open();
            LOG.warn(INVALID_RANGE);
            return iterator(StoreKeys.DATA_START, StoreKeys.DATA_START, forward);
        }
        return iterator(StoreKeys.lowerInclusive(from), StoreKeys.upperExclusiveOfInclusive(to), forward);
    }

    private KeyValueIterator<Bytes, byte[]> iterator(byte[] lower, byte[] upper, boolean forward) {
        RemixDB d = readable("range");
        StoreIterator it;
        try {
            it = new StoreIterator(name, d.cursor(lower, upper), forward, openIterators::remove);
        } catch (ClosedException e) {
            throw failure("range", e);
        }
        openIterators.add(it);
        if (db == null) {
            // close() ran meanwhile and may have missed this iterator.
            it.close();
        }
        return it;
    }

    /**
     * An upper bound of the keys: RemixDB counts the entries of its memtables and tables, so
     * overwritten versions and tombstones not yet compacted away count too (RocksDB's estimate has
     * the same flavour).
     */
    @Override
    public long approximateNumEntries() {
        try {
            return estimateEntries(readable("approximateNumEntries"));
        } catch (ClosedException e) {
            throw failure("approximateNumEntries", e);
        }
    }

    /**
     * RemixDB's estimate of its live keys (Stats.estimatedLiveKeys: overwrites in a memtable count
     * once, versions in several memtables or table runs once each until compaction merges them,
     * deletes take keys off) less the store's own metadata keys, so that an empty store reports 0,
     * as Kafka's do. Each commit rewrites those keys; in a memtable that costs the estimate nothing.
     */
    private static long estimateEntries(RemixDB d) {
        long meta = 0;
        try (Cursor c = d.cursor(StoreKeys.META_START, StoreKeys.DATA_START)) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                meta++;
            }
        }
        return Math.max(0, d.stats().estimatedLiveKeys() - meta);
    }

    // ------------------------------------------------------------------ IQv2

    /** {@code KeyQuery} and {@code RangeQuery}, with position bounds, as Kafka's own stores answer them. */
    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return StoreQueryUtils.handleBasicQueries(query, positionBound, config, this, position, context);
    }

    @Override
    public Position getPosition() {
        return position;
    }

    // ------------------------------------------------------------------ commit, offsets, close

    @Override
    @SuppressWarnings("deprecation")
    public boolean managesOffsets() {
        return true;
    }

    /**
     * Writes {@code changelogOffsets} (empty: forget all; a null value: forget that partition) and
     * the position as one batch after the data, then syncs the WAL: when this returns, the data and
     * the offsets are durable, and a crash at any point leaves offsets no newer than the data. A
     * commit with no writes and the same offsets as the last one does nothing.
     *
     * <p>While the store is restoring (its newest writes came from the changelog, with no processing
     * write since), the batch is written without the WAL and nothing is synced, like the restored
     * data: a crash then keeps offsets no newer than the data too, but may lose both back to an
     * earlier commit, and Kafka restores from there (as with its RocksDB store, whose commits do not
     * flush). The first processing write, a flush or close makes them durable.
     */
    @Override
    public synchronized void commit(Map<TopicPartition, Long> changelogOffsets) {
        RemixDB d = db;
        if (d == null) {
            return;
        }
        if (!dirty && changelogOffsets.equals(lastCommitted)) {
            return;
        }
        try {
            WriteBatch batch = new WriteBatch();
            StoreMetadata.addOffsets(d, batch, changelogOffsets);
            synchronized (position) {
                dirty = false;
                StoreMetadata.addPosition(batch, position);
            }
            if (restoring) {
                // Kafka checkpoints a restoring store every commit interval (100 ms under
                // exactly-once). The offsets go in unlogged like the data before them: memtables
                // reach the tables whole and oldest first, so a crash loses them together with
                // that data or keeps both, and the checkpoint costs no flush. As for RocksDB's
                // store, they become durable with the next flush (at the latest the first
                // processing write, a sync or close, which persist unlogged writes first).
                d.writeUnlogged(batch);
            } else {
                d.write(batch);
                d.sync();
            }
            // Copied by hand: Map.copyOf refuses the null values the contract allows.
            lastCommitted = new java.util.HashMap<>(changelogOffsets);
        } catch (IOException | ClosedException e) {
            dirty = true;
            throw failure("commit", e);
        }
    }

    /** Makes every write so far durable (Kafka 4 calls {@link #commit(Map)} instead). */
    @Override
    @Deprecated
    public void flush() {
        try {
            open().sync();
        } catch (IOException | ClosedException e) {
            throw failure("flush", e);
        }
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        try {
            return StoreMetadata.committedOffset(open(), partition);
        } catch (ClosedException e) {
            throw failure("committedOffset", e);
        }
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return db != null;
    }

    /**
     * Closes open iterators, marks the store cleanly closed and closes the RemixDB (which syncs its
     * WAL). Uncommitted offsets are not written: the next start restores from the last commit.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        RemixDB d = db;
        if (d == null) {
            return;
        }
        db = null;
        RuntimeException failure = null;
        List<StoreIterator> leftOpen = List.copyOf(openIterators);
        if (!leftOpen.isEmpty()) {
            // As Kafka's RocksDB store says: an iterator not closed is a leak in the application.
            LOG.warn("Closing {} open iterators for store {}", leftOpen.size(), name);
        }
        for (StoreIterator it : leftOpen) {
            try {
                it.close();
            } catch (RuntimeException e) {
                failure = add(failure, e);
            }
        }
        try {
            StoreMetrics.remove(context, name);
        } catch (RuntimeException e) {
            failure = add(failure, e);
        }
        try {
            StoreMetadata.markClosed(d);
        } catch (IOException | RuntimeException e) {
            failure = add(failure, e instanceof RuntimeException r ? r : new ProcessorStateException(e));
        }
        try {
            d.close();
        } catch (IOException | RuntimeException e) {
            failure = add(failure, new ProcessorStateException("error closing store " + name, e));
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Number of iterators not yet closed (for tests and the curious). */
    int openIteratorCount() {
        return openIterators.size();
    }

    /**
     * The open store with every restored write visible, for a read. After a restore the first read
     * takes a turn in RemixDB's write queue to publish what the restore wrote; so do reads of a
     * store queried while it restores (stale-store interactive queries), each of them.
     */
    private RemixDB readable(String operation) {
        RemixDB d = open();
        long restored = restoredBatches.get();
        if (publishedBatches.get() < restored) {
            try {
                d.publishDeferred();
            } catch (IOException | ClosedException e) {
                throw failure(operation, e);
            }
            // Raised only after the publish returned: any other exception leaves it behind, and the
            // next read tries again.
            publishedBatches.accumulateAndGet(restored, Math::max);
        }
        return d;
    }

    private RemixDB open() {
        RemixDB d = db;
        if (d == null) {
            throw new InvalidStateStoreException("Store " + name + " is currently closed");
        }
        return d;
    }

    private RuntimeException failure(String operation, Exception e) {
        if (e instanceof ClosedException) {
            return new InvalidStateStoreException("Store " + name + " was closed during " + operation, e);
        }
        return new ProcessorStateException("error in " + operation + " of store " + name, e);
    }

    private static RuntimeException add(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    private static void closeQuietly(RemixDB db, Exception cause) {
        try {
            db.close();
        } catch (IOException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        return "RemixKeyValueStore[" + name + (db == null ? ", closed]" : "]");
    }
}
