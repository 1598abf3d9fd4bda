package dev.remixdb.bench.dbbench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * RocksDB (rocksdbjni) behind {@link Store}, configured as the issue says: 64 MiB write buffers, 3 of
 * them, 64 MiB target file size, no compression, a 10-bit Bloom filter and a 1 GiB LRU block cache
 * ({@code --rocks-write-buffer-mb}, {@code --cache-mb}); WAL on, no sync per write (one with {@code --sync}). Everything else
 * is RocksDB's default.
 */
final class RocksStore implements Store {
    private final Options options;
    private final LRUCache cache;
    private final BloomFilter bloom;
    private final WriteOptions write;
    /** For imports: the WAL off, as RocksDB's bulk loads (and Kafka's restores) write. */
    private final WriteOptions noWal = new WriteOptions().setDisableWAL(true);
    private final RocksDB db;

    private RocksStore(Options options, LRUCache cache, BloomFilter bloom, WriteOptions write, RocksDB db) {
        this.options = options;
        this.cache = cache;
        this.bloom = bloom;
        this.write = write;
        this.db = db;
    }

    static RocksStore open(Path dir, DbOptions o) throws Exception {
        RocksDB.loadLibrary();
        Files.createDirectories(dir);
        LRUCache cache = new LRUCache(o.cacheMb() << 20);
        BloomFilter bloom = new BloomFilter(10);
        Options options = options(o, cache, bloom);
        WriteOptions write = new WriteOptions().setSync(o.sync()).setDisableWAL(false);
        try {
            return new RocksStore(options, cache, bloom, write, RocksDB.open(options, dir.toString()));
        } catch (RocksDBException e) {
            write.close();
            options.close();
            bloom.close();
            cache.close();
            throw new IllegalStateException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
        }
    }

    private static Options options(DbOptions o, LRUCache cache, BloomFilter bloom) {
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setFilterPolicy(bloom)
                .setBlockCache(cache);
        return new Options()
                .setCreateIfMissing(true)
                .setWriteBufferSize(o.rocksWriteBufferMb() << 20)
                .setMaxWriteBufferNumber(3)
                .setTargetFileSizeBase(64L << 20)
                .setCompressionType(CompressionType.NO_COMPRESSION)
                .setUseDirectReads(o.directIo())
                .setTableFormatConfig(table);
    }

    /**
     * Every option the benchmark sets, with RocksDB's default next to it (read from a fresh
     * {@code Options}, so it stays right across RocksDB versions). Loads the native library.
     */
    static List<Setting> settings(DbOptions o) {
        RocksDB.loadLibrary();
        List<Setting> out = new ArrayList<>();
        try (LRUCache cache = new LRUCache(o.cacheMb() << 20);
             BloomFilter bloom = new BloomFilter(10);
             Options set = options(o, cache, bloom);
             Options def = new Options();
             WriteOptions w = new WriteOptions()) {
            out.add(new Setting("write_buffer_size", Units.mib(set.writeBufferSize()), Units.mib(def.writeBufferSize())));
            out.add(new Setting("max_write_buffer_number", String.valueOf(set.maxWriteBufferNumber()),
                    String.valueOf(def.maxWriteBufferNumber())));
            out.add(new Setting("target_file_size_base", Units.mib(set.targetFileSizeBase()),
                    Units.mib(def.targetFileSizeBase())));
            out.add(new Setting("compression", String.valueOf(set.compressionType()),
                    String.valueOf(def.compressionType())));
            out.add(new Setting("table_factory.filter_policy", "bloomfilter:10", "none"));
            out.add(new Setting("table_factory.block_cache", "LRUCache " + Units.mib(o.cacheMb() << 20),
                    "LRUCache 32 MiB"));
            out.add(new Setting("max_background_jobs", String.valueOf(set.maxBackgroundJobs()),
                    String.valueOf(def.maxBackgroundJobs())));
            out.add(new Setting("max_bytes_for_level_base", Units.mib(set.maxBytesForLevelBase()),
                    Units.mib(def.maxBytesForLevelBase())));
            out.add(new Setting("use_direct_reads", String.valueOf(set.useDirectReads()),
                    String.valueOf(def.useDirectReads())));
            out.add(new Setting("write_options.sync", String.valueOf(o.sync()), String.valueOf(w.sync())));
            out.add(new Setting("write_options.disableWAL", String.valueOf(w.disableWAL()), "false"));
        }
        return out;
    }

    @Override
    public String name() {
        return "rocksdb";
    }

    @Override
    public void put(byte[] key, byte[] value) throws RocksDBException {
        db.put(write, key, value);
    }

    @Override
    public void putBatch(byte[][] keys, byte[][] values, int n) throws RocksDBException {
        write(write, keys, values, n);
    }

    private void write(WriteOptions options, byte[][] keys, byte[][] values, int n) throws RocksDBException {
        try (org.rocksdb.WriteBatch batch = new org.rocksdb.WriteBatch()) {
            for (int i = 0; i < n; i++) {
                batch.put(keys[i], values[i]);
            }
            db.write(options, batch);
        }
    }

    /** Write batches with the WAL disabled ({@link #noWal}). */
    @Override
    public void importBatch(byte[][] keys, byte[][] values, int n) throws RocksDBException {
        write(noWal, keys, values, n);
    }

    @Override
    public void delete(byte[] key) throws RocksDBException {
        db.delete(write, key);
    }

    @Override
    public Reader reader(boolean reuseIterator) {
        return new RocksReader(db, reuseIterator);
    }

    /**
     * Flushes the memtables (waiting for the flush), then polls until no compaction is pending or
     * running and no flush is running. Like db_bench's wait for compaction: it does not force a
     * full compaction (CompactRange), it lets RocksDB finish what its own policy scheduled.
     */
    @Override
    public void waitIdle() throws Exception {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush);
        }
        for (;;) {
            long pending = db.getLongProperty("rocksdb.compaction-pending");
            long compactions = db.getLongProperty("rocksdb.num-running-compactions");
            long flushes = db.getLongProperty("rocksdb.num-running-flushes");
            long immutables = db.getLongProperty("rocksdb.num-immutable-mem-table");
            if (pending == 0 && compactions == 0 && flushes == 0 && immutables == 0) {
                return;
            }
            Thread.sleep(20);
        }
    }

    /** Memtables + block cache + index and filter blocks held outside the cache, by RocksDB's properties. */
    @Override
    public long offHeapBytes() throws RocksDBException {
        return db.getLongProperty("rocksdb.cur-size-all-mem-tables")
                + db.getLongProperty("rocksdb.block-cache-usage")
                + db.getLongProperty("rocksdb.estimate-table-readers-mem");
    }

    @Override
    public PhaseResult.RocksCounters counters() throws RocksDBException {
        List<Long> files = new ArrayList<>();
        for (int level = 0; level < 7; level++) {
            // A string property: getLongProperty answers NotFound for it.
            files.add(Long.parseLong(db.getProperty("rocksdb.num-files-at-level" + level).trim()));
        }
        return new PhaseResult.RocksCounters(files, db.getLongProperty("rocksdb.live-sst-files-size"),
                db.getLongProperty("rocksdb.block-cache-usage"));
    }

    @Override
    public void close() {
        db.close();
        write.close();
        noWal.close();
        options.close();
        bloom.close();
        cache.close();
    }

    /** Reads with an iterator per scan (db_bench's default), or one kept for the phase. */
    private static final class RocksReader implements Reader {
        private final RocksDB db;
        private final ReadOptions read = new ReadOptions();
        private final boolean reuse;
        private RocksIterator kept;

        RocksReader(RocksDB db, boolean reuse) {
            this.db = db;
            this.reuse = reuse;
        }

        @Override
        public byte[] get(byte[] key) throws RocksDBException {
            return db.get(read, key);
        }

        @Override
        public List<byte[]> multiGet(List<byte[]> keys) throws RocksDBException {
            return db.multiGetAsList(read, keys);
        }

        @Override
        public int scan(byte[] key, int n, boolean reverse, Sink sink) throws RocksDBException {
            RocksIterator it = reuse ? kept() : db.newIterator(read);
            try {
                if (reverse) {
                    it.seekForPrev(key);
                } else {
                    it.seek(key);
                }
                int done = 0;
                while (done < n && it.isValid()) {
                    sink.accept(it.key(), it.value());
                    done++;
                    if (done < n) {
                        if (reverse) {
                            it.prev();
                        } else {
                            it.next();
                        }
                    }
                }
                it.status();
                return done;
            } finally {
                if (!reuse) {
                    it.close();
                }
            }
        }

        private RocksIterator kept() {
            if (kept == null) {
                kept = db.newIterator(read);
            }
            return kept;
        }

        @Override
        public void close() {
            if (kept != null) {
                kept.close();
                kept = null;
            }
            read.close();
        }
    }
}
