package dev.remixdb.bench.dbbench;

import java.util.List;

/**
 * One store under test, as the phases use it. The two implementations ({@link RemixStore},
 * {@link RocksStore}) make the same calls in the same order on the same bytes; everything a phase
 * measures goes through this interface, so neither side gets a shortcut the other lacks.
 *
 * <p>Writes are thread-safe. Reads go through a {@link Reader}, one per reading thread.
 */
public interface Store extends AutoCloseable {

    /** {@code remixdb} or {@code rocksdb}: the name in results. */
    String name();

    /** Sets a key (WAL on, no sync per write). */
    void put(byte[] key, byte[] value) throws Exception;

    /** Removes a key. */
    void delete(byte[] key) throws Exception;

    /** Sets {@code keys[i]} to {@code values[i]} for i < n in one atomic write batch. */
    void putBatch(byte[][] keys, byte[][] values, int n) throws Exception;

    /**
     * Writes {@code keys[i] = values[i]} for i < n as an import does: no WAL (the source can be
     * replayed), visible at the latest when {@link #waitIdle()} returns.
     */
    void importBatch(byte[][] keys, byte[][] values, int n) throws Exception;

    /** A reader for the calling thread; close it when the phase ends. */
    Reader reader(boolean reuseCursor) throws Exception;

    /**
     * Flushes the memtable and returns when no background work (flush, compaction) is running or
     * pending, so the next phase starts from a quiet store, and every written byte has been counted.
     */
    void waitIdle() throws Exception;

    /** Native memory the store reports using (memtables, cache, index metadata); -1 when unknown. */
    long offHeapBytes() throws Exception;

    /** The store's own counters for the results. */
    PhaseResult.StoreCounters counters() throws Exception;

    @Override
    void close() throws java.io.IOException;

    /** One thread's read access. */
    interface Reader extends AutoCloseable {
        /** The value of {@code key}, or null. */
        byte[] get(byte[] key) throws Exception;

        /**
         * Positions at the first key {@code >= key} and hands up to {@code n} entries, in ascending
         * order, to {@code sink}; or, with {@code reverse}, at the last key {@code <= key} and
         * entries in descending order. Returns how many it handed.
         */
        int scan(byte[] key, int n, boolean reverse, Sink sink) throws Exception;

        /** The values of {@code keys} in their order (null where absent), as one batched call. */
        List<byte[]> multiGet(List<byte[]> keys) throws Exception;

        /**
         * The value of {@code key}, asynchronously where the store can (RemixDB); a store without
         * asynchronous reads (RocksDB's Java API) reads it blocking and returns a completed future.
         */
        default java.util.concurrent.CompletableFuture<byte[]> getAsync(byte[] key) throws Exception {
            return java.util.concurrent.CompletableFuture.completedFuture(get(key));
        }

        @Override
        void close();
    }

    /** Receives the copied key and value of each scanned entry. */
    @FunctionalInterface
    interface Sink {
        void accept(byte[] key, byte[] value);

        /** Receives an entry as views valid during the call (RemixDB with --scan-views); by default copies them. */
        default void acceptView(java.lang.foreign.MemorySegment key, java.lang.foreign.MemorySegment value) {
            accept(key.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), value.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    /** One option as it is set, and what it would be by default, for the report. */
    record Setting(String name, String value, String defaultValue) {
        /** Whether the benchmark changed it. */
        public boolean changed() {
            return !value.equals(defaultValue);
        }

        @Override
        public String toString() {
            return name + " = " + value + (changed() ? " (default " + defaultValue + ")" : " (= default)");
        }
    }

    /** The stores' names, in the order they run. */
    List<String> NAMES = List.of("remixdb", "rocksdb");
}
