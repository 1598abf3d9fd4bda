package dev.remixdb;

import dev.remixdb.util.Closeables;
import dev.remixdb.util.Limits;
import dev.remixdb.wal.WalOp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

/**
 * An embedded, persistent, ordered key-value store on the REMIX index (FAST'21): byte-array keys
 * in unsigned lexicographic order, byte-array values.
 *
 * <p>Writes go to a write-ahead log and an off-heap memtable; full memtables are compacted in the
 * background into key-range partitions of table files, each indexed by one REMIX. A write is
 * durable once {@link #sync()} returns after it, or when it was made with
 * {@link Options#syncWrites()}; such a write survives a crash of the process or the machine. A
 * write not synced reaches the WAL file within {@link Options#walFlushMillis()} (1 ms by default)
 * and from then on survives a crash of the process, not of the machine. Whatever a crash loses is
 * always the newest writes: the store reopens in its state after some write, never with a later
 * write and without an earlier one, and never with part of a {@link WriteBatch}.
 *
 * <p>Thread-safe: any number of threads may read, write and iterate at once. Bad input (null, a
 * key over {@value Options#MAX_KEY_BYTES} bytes, a value over {@link Options#MAX_VALUE_BYTES}
 * bytes) raises {@link IllegalArgumentException} and changes nothing. Only positions may be longer
 * than a key: a cursor's bounds and seek targets are compared as any byte strings. Use after {@link #close()}
 raises {@link ClosedException}, also in a call that raced {@link #close()} and lost. Corrupt
 * files raise {@link CorruptionException} naming the file and offset; wrong data is never returned.
 */
public final class RemixDB implements AutoCloseable {
    private final Store store;
    private final StatsBean statsBean;

    private RemixDB(Store store, Path dir, boolean jmx) {
        this.store = store;
        this.statsBean = new StatsBean(this, dir.toAbsolutePath().toString());
        if (jmx) {
            statsBean.register();
        }
    }

    /**
     * Checks every checksum of the closed store in {@code dir} and reports what is damaged, changing
     * nothing: the MANIFEST, every block of every table it lists (and the padding between blocks),
     * each REMIX against its tables, and every record of the live WALs. Reads every byte of the
     * store once. The command line equivalent is {@link Verify}.
     *
     * @throws java.nio.file.NoSuchFileException when {@code dir} is not a directory
     * @throws IOException when the store is open (here or in another process), or a file cannot be read
     */
    public static VerifyReport verify(Path dir) throws IOException {
        if (dir == null) {
            throw new IllegalArgumentException("dir must not be null");
        }
        return StoreVerifier.verify(dir);
    }

    /** Opens the store in {@code dir} with default options, creating it when it does not exist. */
    public static RemixDB open(Path dir) throws IOException {
        return open(dir, Options.defaults());
    }

    /** Opens the store in {@code dir}, creating it when it does not exist, and recovers its WAL. */
    public static RemixDB open(Path dir, Options options) throws IOException {
        if (dir == null || options == null) {
            throw new IllegalArgumentException("dir and options must not be null");
        }
        Store store;
        try {
            store = Store.open(dir, options.engineConfig());
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
        try {
            return new RemixDB(store, dir, options.jmx());
        } catch (RuntimeException e) {
            Closeables.closeAll(List.of(store), e);
            throw e;
        }
    }

    /**
     * Sets {@code key} to {@code value}. The arrays are read during the call and not kept: the
     * caller may reuse them as soon as it returns. They are copied once, into the memtable, and the
     * WAL is written from that copy; a caller that changes them from another thread during the call
     * stores some mix of their contents, the same in memory and in the log, and harms nothing else.
     */
    public void put(byte[] key, byte[] value) throws IOException {
        Limits.checkKey(key);
        Limits.checkValue(value);
        store.write(WalOp.put(key, value));
    }

    /** Removes {@code key} (nothing happens when it is absent); the key is read as {@link #put} reads it. */
    public void delete(byte[] key) throws IOException {
        Limits.checkKey(key);
        store.write(WalOp.delete(key));
    }

    /**
     * Removes every key in [{@code from}, {@code to}) (a null bound is open) with one operation,
     * however many keys the range holds: one WAL record, and reads, cursors and snapshots taken
     * afterwards no longer see the keys, at the cost of one range check per read while the delete
     * is in a memtable. When that memtable is compacted, every partition the range overlaps is
     * merged whole and the deleted versions are left out of the new files; snapshots taken before
     * keep seeing them. Writes after the call are not affected. An empty range ({@code from} equal
     * to {@code to}) writes nothing, as in RocksDB.
     *
     * @throws IllegalArgumentException when {@code from} is above {@code to}
     */
    public void deleteRange(byte[] from, byte[] to) throws IOException {
        WalOp op = WriteBatch.rangeDelete(from, to);
        if (op == null) {
            store.checkOpen();
            return;
        }
        store.write(op);
    }

    /**
     * Applies every operation of {@code batch} atomically: one WAL record, visible to readers all at
     * once, and after a crash all or none of it. An empty batch writes nothing.
     */
    public void write(WriteBatch batch) throws IOException {
        if (batch == null) {
            throw new IllegalArgumentException("batch must not be null");
        }
        store.write(batch.ops());
    }

    /**
     * Applies {@code batch} atomically like {@link #write(WriteBatch)}, but without the write-ahead
     * log: for restores and imports where the caller keeps its own log (a Kafka changelog) and can
     * replay what a crash loses. No WAL bytes and no fsync, so a bulk load runs at memtable speed.
     *
     * <p>Durability: such writes are durable once the memtable holding them is compacted into
     * tables. {@link #sync()} does that (and then syncs the WAL), and so does the next logged write
     * before it goes in: a logged write never follows an unlogged one that a crash could still
     * lose. So a crash loses, as always, only the newest writes (here: the unlogged ones and nothing
     * after them), and data the caller records as applied in a logged write after them (an offset)
     * never runs ahead of it.
     */
    public void writeUnlogged(WriteBatch batch) throws IOException {
        if (batch == null) {
            throw new IllegalArgumentException("batch must not be null");
        }
        store.writeUnlogged(batch.ops());
    }

    /**
     * The fastest way in for a restore or an import: writes {@code batch} without the write-ahead
     * log like {@link #writeUnlogged}, with the same durability, but reads do not see it until it is
     * published. Held back, a memtable's worth of such writes is sorted and linked into the memtable
     * in one pass, which for random keys costs a fraction of inserting them one by one.
     *
     * <p>Publishing makes every deferred write so far visible at once, in the order written (a later
     * write of a key wins). It happens at {@link #publishDeferred()}, at any other write, at
     * {@link #sync()}, {@link #compactMemtable()}, {@link #compactRange}, a checkpoint or
     * {@link #close()}, and when a memtable fills (then the deferred writes so far become visible).
     * Until then gets, cursors and snapshots do not see them; a snapshot taken before a publish
     * never sees what it publishes. Each batch
     * becomes visible whole, and batches in the order written, but a publish may fall between any
     * two of them: a sequence of batches is not atomic.
     *
     * @throws IllegalArgumentException when the batch holds a range delete (puts and deletes only)
     */
    public void writeDeferred(WriteBatch batch) throws IOException {
        if (batch == null) {
            throw new IllegalArgumentException("batch must not be null");
        }
        store.writeDeferred(batch.ops());
    }

    /** Makes every {@link #writeDeferred deferred write} so far visible to reads (a turn in the write queue). */
    public void publishDeferred() throws IOException {
        store.publishDeferred();
    }

    /**
     * Atomically replaces the value of {@code key} by {@code fn(current)}: {@code current} is null when
     * the key is absent, and a null result deletes it (or leaves it absent). The function runs exactly
     * once, inside the group commit that writes its result, on whichever writer's thread leads that
     * group: read-modify-writes of different keys from many threads go in the same groups and share
     * WAL writes, and those of one key each see the one before. The current value is read on the
     * calling thread before the write queues, so concurrent computes read in parallel; the group's
     * leader only checks in memory that nothing wrote the key since (and reads it again if something
     * did), so {@code current} is always the value as of the writes before this one. Keep the
     * function short (its group waits for it), and do not write to, sync or close this store from it
     * ({@link IllegalStateException}); it runs on another thread than the caller's, so it must not
     * wait for a lock the caller holds, and the caller's thread-locals are not its own. An
     * exception from the function (checked ones a lambda hides included), or a result over the value
     * limit, propagates as it is and changes nothing; the store and the other writes of the group
     * go on. The function gets its own copy of the current value and may change it: returning it
     * unchanged writes nothing, returning it changed writes it.
     *
     * @return the new value, or null when the key ends up absent
     */
    public byte[] compute(byte[] key, UnaryOperator<byte[]> fn) throws IOException {
        Limits.checkKey(key);
        if (fn == null) {
            throw new IllegalArgumentException("function must not be null");
        }
        byte[] k = key.clone();
        byte[][] result = new byte[1][];
        try {
            store.update(k, reader -> {
                byte[] old = reader.get(k);
                // A copy for the function, which may change it in place and return it.
                byte[] given = old == null ? null : old.clone();
                byte[] next = fn.apply(given);
                result[0] = next;
                if (next == null ? old == null : next == given && Arrays.equals(next, old)) {
                    // The function kept what it was given (or left the key absent): nothing to write.
                    return List.of();
                }
                if (next == null) {
                    return List.of(WalOp.delete(k));
                }
                Limits.checkValue(next);
                return List.of(WalOp.put(k, next.clone()));
            });
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
        return result[0];
    }

    /**
     * Atomically combines {@code value} with the current value of {@code key}: sets {@code value}
     * when the key is absent, else {@code fn(current, value)} (null deletes). Like
     * {@link ConcurrentMap#merge}; runs as {@link #compute}.
     *
     * @return the new value, or null when the key was deleted
     */
    public byte[] merge(byte[] key, byte[] value, BinaryOperator<byte[]> fn) throws IOException {
        Limits.checkValue(value);
        if (fn == null) {
            throw new IllegalArgumentException("function must not be null");
        }
        byte[] v = value.clone();
        return compute(key, old -> old == null ? v : fn.apply(old, v));
    }

    /**
     * Sets {@code key} to {@code value} unless it is present.
     *
     * @return the current value when present (nothing written), else null
     */
    public byte[] putIfAbsent(byte[] key, byte[] value) throws IOException {
        Limits.checkValue(value);
        byte[] v = value.clone();
        byte[][] existing = new byte[1][];
        compute(key, old -> {
            existing[0] = old;
            return old == null ? v : old;
        });
        return existing[0];
    }

    /**
     * Atomically sets {@code key} to {@code update} (null: deletes it) if its current value equals
     * {@code expected} byte for byte (null: the key is absent).
     *
     * @return whether the key held {@code expected} and was changed
     */
    public boolean compareAndSet(byte[] key, byte[] expected, byte[] update) throws IOException {
        if (update != null) {
            Limits.checkValue(update);
        }
        boolean[] matched = new boolean[1];
        compute(key, old -> {
            matched[0] = Arrays.equals(old, expected);
            return matched[0] ? update : old;
        });
        return matched[0];
    }

    /** The value of {@code key}, or null when it is absent. */
    public byte[] get(byte[] key) {
        Limits.checkKey(key);
        try {
            return store.get(key);
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    /**
     * The value of {@code key}, or null when it is absent, without blocking the calling thread on the
     * disk: a key found in memory (a memtable, a cached block) completes the future before it is
     * returned; otherwise the blocks it needs are read asynchronously (through io_uring, see
     * {@link IoEngine}) and the future completes on the store's I/O thread. Dependent stages attached
     * with non-async methods ({@code thenApply}, ...) may therefore run on that thread: keep them
     * short, or use the {@code ...Async} variants with an executor of your own, since every
     * asynchronous read of the store waits while one runs. Reads of this store are allowed there,
     * blocking ones and {@code getAsync(..).join()} included (on that thread they read without it);
     * {@link #close()} is not ({@link IllegalStateException}: it would wait for that thread). The
     * key is copied at the call: the caller may reuse its array at once.
     *
     * <p>As safe as {@link #get}: the read sees one moment of the store (as of the call); damaged
     * data fails the future with a {@link CorruptionException}; a store closed before the call gives
     * a future failed with a {@link ClosedException}, and {@link #close()} waits for the reads of
     * lookups under way (their futures complete, normally, right after); cancelling the future frees everything when the reads under way end.
     *
     * @throws IllegalArgumentException for a key {@link #get} would refuse (at once, not in the future)
     */
    public CompletableFuture<byte[]> getAsync(byte[] key) {
        Limits.checkKey(key);
        // A copy: the lookup reads the key again on the I/O thread after this returns.
        return store.multiGetAsync(new byte[][] {key.clone()}).thenApply(values -> values.getFirst());
    }

    /**
     * The values of {@code keys} (null where absent), in their order, as of one moment, without
     * blocking the calling thread on the disk: {@link #getAsync} for many keys at once, whose missing
     * blocks (each once, however many keys need it) are read together in one batch. The list is
     * unmodifiable.
     *
     * @throws IllegalArgumentException for a null list or a key {@link #get} would refuse
     */
    public CompletableFuture<List<byte[]>> multiGetAsync(List<byte[]> keys) {
        return store.multiGetAsync(checkedKeys(keys));
    }

    /**
     * The values of {@code keys} (null where absent), in their order, as of one moment: the blocking
     * form of {@link #multiGetAsync}, whose batched reads make it faster than one {@link #get} per
     * key when blocks must come from the disk. The list is unmodifiable.
     *
     * @throws IllegalArgumentException for a null list or a key {@link #get} would refuse
     * @throws ClosedException          when the store is closed
     */
    public List<byte[]> multiGet(List<byte[]> keys) {
        CompletableFuture<List<byte[]>> f = store.multiGetAsync(checkedKeys(keys));
        try {
            return f.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private static byte[][] checkedKeys(List<byte[]> keys) {
        if (keys == null) {
            throw new IllegalArgumentException("keys must not be null");
        }
        byte[][] out = keys.toArray(byte[][]::new);
        for (int i = 0; i < out.length; i++) {
            Limits.checkKey(out[i]);
            out[i] = out[i].clone();  // an asynchronous lookup reads its keys after the call returns
        }
        return out;
    }

    /**
     * Makes every write acknowledged so far durable: writes made with {@link #writeUnlogged} are
     * compacted into tables first, then the WAL is synced.
     */
    public void sync() throws IOException {
        store.sync();
    }

    /**
     * Makes an openable copy of this store in {@code dir} as of one moment, while reads and writes go
     * on: it holds every write acknowledged before the call and none acknowledged after it returns
     * (writes racing the call are in it or not, each whole). Writers wait only for that moment, a
     * turn in the write queue; writes made with {@link #writeUnlogged} are compacted into tables
     * first, as by {@link #sync()}.
     *
     * <p>Table and REMIX files never change once written, so they are hard-linked where the file
     * system allows (a checkpoint on the same file system costs little space until the store
     * compacts those files away) and copied otherwise; the live WALs are linked or copied, the active
     * one up to the moment. Every file is synced, and the checkpoint appears at {@code dir} only when
     * complete (it is built in a hidden sibling directory and renamed): after a crash there is either a
     * whole checkpoint at {@code dir} or none. Open it with {@link #open(Path)}; it recovers its WAL
     * like a store after a crash, and {@link #verify(Path)} passes on it.
     *
     * @param dir a directory that does not exist yet (its parent is created if needed), outside this
     *            store's directory
     * @throws java.nio.file.FileAlreadyExistsException when {@code dir} exists
     * @throws IllegalArgumentException when {@code dir} is null or inside this store's directory (or
     *                                  contains it)
     * @throws ClosedException when the store is closed
     */
    public CheckpointReport checkpoint(Path dir) throws IOException {
        return checkpoint(dir, true);
    }

    /** {@link #checkpoint(Path)}, copying every file when {@code allowLinks} is false (for tests). */
    CheckpointReport checkpoint(Path dir, boolean allowLinks) throws IOException {
        if (dir == null) {
            throw new IllegalArgumentException("checkpoint directory must not be null");
        }
        return store.checkpoint(dir, allowLinks);
    }

    /** A cursor over a consistent snapshot taken now; close it when done. */
    public Cursor cursor() {
        return cursor(null, null);
    }

    /**
     * A cursor over the keys in [{@code lower}, {@code upper}) of a consistent snapshot taken now; a
     * null bound is open. Close it when done.
     */
    public Cursor cursor(byte[] lower, byte[] upper) {
        return store.cursor(lower, upper);
    }

    /**
     * Hands the entries of [{@code from}, {@code to}) (a null bound is open), at most {@code limit}
     * of them, in key order, to {@code visitor} as read-only views of the store's memory, without
     * copies; the views are valid during the visitor's call only. Reads one consistent snapshot.
     * The fast way to walk a range: one cursor, one lock per scan rather than per call.
     *
     * @return the number of entries visited
     * @throws IllegalArgumentException when {@code limit} is negative or {@code visitor} null
     */
    public int scan(byte[] from, byte[] to, int limit, EntryVisitor visitor) {
        return StoreCursor.scan(limit, visitor, () -> cursor(from, to));
    }

    /** A consistent read-only view of the store as of now; close it when done. See {@link Snapshot}. */
    public Snapshot snapshot() {
        return store.snapshot();
    }

    /**
     * The store as a {@link ConcurrentNavigableMap} of byte arrays in unsigned lexicographic order.
     * See {@link #asMap(KeyCodec, ValueCodec)}; byte arrays compare by identity in {@code equals},
     * so look values up by key, and use {@link java.util.Arrays#equals} on what you get.
     */
    public ConcurrentNavigableMap<byte[], byte[]> asMap() {
        return asMap(Codecs.BYTES, Codecs.BYTES);
    }

    /**
     * The store as a typed {@link ConcurrentNavigableMap}: keys and values pass through the codecs,
     * and the map's order is the order of the encoded keys (which {@link KeyCodec} guarantees matches
     * {@link KeyCodec#comparator()}). Writes through the map are writes to the store; reads see the
     * store as of each call. Iterators are weakly consistent like those of
     * {@link java.util.concurrent.ConcurrentSkipListMap}: they never throw
     * {@link java.util.ConcurrentModificationException}, return each key at most once, in order,
     * and see every key present for their whole life. They hold no snapshot, so an abandoned iterator
     * pins nothing. {@code size()} walks the keys. Null keys and values are refused
     * ({@link NullPointerException}); so is any use once the store is closed ({@link ClosedException}).
     * I/O errors surface as {@link UncheckedIOException}. Keys longer than the store can hold are
     * absent to the calls that only find; writing one throws {@link IllegalArgumentException}.
     *
     * <p>{@code compute}, {@code merge}, {@code computeIfAbsent}, {@code computeIfPresent} and
     * {@code replaceAll} run their function exactly once per key, atomically, as {@link #compute}
     * does: on the thread leading the write group, which may not be the caller's. Unlike a
     * {@link java.util.concurrent.ConcurrentSkipListMap}'s, the function must therefore not wait for
     * a lock the calling thread holds (that waits forever, and every write of the store with it),
     * and does not see the caller's thread-locals. It may change the value it is given and return it.
     */
    public <K, V> ConcurrentNavigableMap<K, V> asMap(KeyCodec<K> keys, ValueCodec<V> values) {
        if (keys == null || values == null) {
            throw new IllegalArgumentException("codecs must not be null");
        }
        store.checkOpen();
        return MapView.of(this, keys, values);
    }

    /** Counters and sizes; see {@link Stats}. */
    public Stats stats() {
        return store.stats();
    }

    /** Throws {@link ClosedException} once the store is closed. */
    void checkOpen() {
        store.checkOpen();
    }

    /** The store's directory (for {@link Backups}' checks). */
    Path path() {
        return store.path();
    }

    /** The figures of {@link #stats()} as live getters, for monitoring; see {@link StatsMXBean}. */
    public StatsMXBean statsBean() {
        return statsBean;
    }

    /**
     * Freezes the memtable and waits until compaction has written all of it into table files (for
     * tests and benchmarks that need the data on disk in tables, not only in the WAL). Unlike an
     * ordinary compaction, this one keeps no small partition's data back in memory.
     */
    public void compactMemtable() throws IOException, InterruptedException {
        store.compactMemtable();
    }

    /**
     * Compacts [{@code from}, {@code to}) (a null bound is open) now: the memtable goes to tables
     * and every partition overlapping the range is merged into one sorted run, dropping overwritten
     * versions and deleted keys from its files. Blocks until the new files are installed. Background
     * compaction does this on its own schedule; call it when the space or the scan speed of a range
     * matters now (after a bulk delete, before a checkpoint or backup that should be small). Reads
     * and writes go on meanwhile; a snapshot open during it keeps the old files until it closes.
     *
     * @throws IllegalArgumentException when both bounds are given and {@code from} is above {@code to}
     * @throws ClosedException when the store is closed
     */
    public void compactRange(byte[] from, byte[] to) throws IOException, InterruptedException {
        if (from != null && to != null && Arrays.compareUnsigned(from, to) > 0) {
            throw new IllegalArgumentException("from is above to");
        }
        store.compactRange(from == null ? null : from.clone(), to == null ? null : to.clone());
    }

    /**
     * Waits for background work, syncs the WAL, and releases every file, off-heap segment and thread
     * of this store. Two daemon threads shared by all stores of the JVM stay once started
     * ({@code remixdb-snapshot-cleaner} and {@code remixdb-view-cleaner}, which release snapshots and
     * views that were dropped without being closed), and with the Vector API a third may run for up
     * to two minutes after the first store opened ({@code remixdb-vector-warmup}, compiling the
     * selector counter ahead of use); they hold nothing of a closed store.
     *
     * @throws IllegalStateException from inside a read-modify-write function of this store, or from
     *                               a stage of its asynchronous read run on its I/O thread
     */
    @Override
    public void close() throws IOException {
        // A close refused on the I/O thread must leave everything as it was, the MBean included.
        store.checkCloseAllowed();
        statsBean.unregister();
        store.close();
    }


    @Override
    public String toString() {
        return store.toString();
    }
}
