package dev.remixdb;

import dev.remixdb.engine.Engine;
import dev.remixdb.wal.WalOp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An embedded, persistent, ordered key-value store on the REMIX index (FAST'21): byte-array keys
 * in unsigned lexicographic order, byte-array values.
 *
 * <p>Writes go to a write-ahead log and an off-heap memtable; full memtables are compacted in the
 * background into key-range partitions of table files, each indexed by one REMIX. A write is
 * durable once {@link #sync()} returns after it, or when it was made with
 * {@link Options#syncWrites()}; such a write survives a crash of the process or the machine.
 *
 * <p>Thread-safe: any number of threads may read, write and iterate at once. Bad input (null, a
 * key over {@value Options#MAX_KEY_BYTES} bytes, a value over {@link Options#MAX_VALUE_BYTES}
 * bytes) raises {@link IllegalArgumentException} and changes nothing. Use after {@link #close()}
 * raises {@link ClosedException}. Corrupt files raise
 * {@link dev.remixdb.remix.CorruptionException} naming the file and offset; wrong data is never
 * returned.
 */
public final class RemixDB implements AutoCloseable {
    private final Engine engine;

    private RemixDB(Engine engine) {
        this.engine = engine;
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
        return new RemixDB(Engine.open(dir, options));
    }

    /** Sets {@code key} to {@code value}. */
    public void put(byte[] key, byte[] value) throws IOException {
        checkKey(key);
        checkValue(value);
        try {
            engine.write(List.of(new WalOp(false, key.clone(), value.clone())), false);
        } catch (IllegalStateException | UncheckedIOException e) {
            throw closedOr(e);
        }
    }

    /** Removes {@code key} (nothing happens when it is absent). */
    public void delete(byte[] key) throws IOException {
        checkKey(key);
        try {
            engine.write(List.of(new WalOp(true, key.clone(), null)), false);
        } catch (IllegalStateException | UncheckedIOException e) {
            throw closedOr(e);
        }
    }

    /** The value of {@code key}, or null when it is absent. */
    public byte[] get(byte[] key) {
        checkKey(key);
        engine.checkOpen();
        try {
            return engine.get(key);
        } catch (IllegalStateException | UncheckedIOException e) {
            throw closedOr(e);
        }
    }

    /** Makes every write acknowledged so far durable. */
    public void sync() throws IOException {
        try {
            engine.sync();
        } catch (IllegalStateException | UncheckedIOException e) {
            throw closedOr(e);
        }
    }

    /** A cursor over a consistent snapshot taken now; close it when done. */
    public Cursor cursor() {
        try {
            return engine.cursor();
        } catch (IllegalStateException | UncheckedIOException e) {
            throw closedOr(e);
        }
    }

    /** Counters and sizes; see {@link Stats}. */
    public Stats stats() {
        engine.checkOpen();
        try {
            return engine.stats();
        } catch (IllegalStateException | UncheckedIOException e) {
            throw closedOr(e);
        }
    }

    /**
     * Freezes the memtable and waits until compaction has written it into table files (for tests and
     * benchmarks that need the data on disk in tables, not only in the WAL).
     */
    public void compactMemtable() throws IOException, InterruptedException {
        engine.flush();
        if (!engine.awaitCompaction(1, TimeUnit.HOURS)) {
            throw new IOException("compaction did not finish within an hour");
        }
    }

    /** Waits for background work, syncs the WAL, and releases every file and off-heap segment. */
    @Override
    public void close() throws IOException {
        engine.close();
    }

    /**
     * A call that raced {@link #close()} fails on whatever close() released first (the WAL writer,
     * the block cache, the block reader); such a call never took effect, and the one thing the caller
     * needs to know is that the store is closed: {@link ClosedException}, with that failure as its
     * cause. Before close, {@code e} is returned as it is.
     */
    private RuntimeException closedOr(RuntimeException e) {
        if (e instanceof ClosedException) {
            return e;
        }
        try {
            engine.checkOpen();
        } catch (ClosedException closed) {
            closed.initCause(e);
            return closed;
        }
        return e;
    }

    private static void checkKey(byte[] key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        if (key.length > Options.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key of " + key.length + " bytes is over the limit of "
                    + Options.MAX_KEY_BYTES);
        }
    }

    private static void checkValue(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value must not be null");
        }
        if (value.length > Options.MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the limit of "
                    + Options.MAX_VALUE_BYTES);
        }
    }

    @Override
    public String toString() {
        return engine.toString();
    }
}
