package dev.remixdb.ycsb;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The RocksDB peer of {@link RemixDBClient} for run-ycsb.sh: the same key layout ({@link KeyLayout}),
 * the same record format ({@link FieldCodec}) and the same status codes, over rocksdbjni, configured
 * like bench's {@code RocksStore}: 64 MiB write buffers (3), 64 MiB target files, no compression, a
 * 10-bit Bloom filter, an LRU block cache ({@code rocksdb.cache_size}, default 256 MiB as RemixDB's),
 * WAL on, no sync per write. It lives in the test sources so the binding's jar never carries RocksDB.
 *
 * <p>RocksDB has no atomic read-modify-write, so update and delete take one of 1024 striped locks
 * for their get-then-write: the same guarantee as RemixDB's {@code compute}, at a similar cost.
 */
public class RocksDBClient extends DB {
    static final String DIR = "rocksdb.dir";
    static final String CACHE_SIZE = "rocksdb.cache_size";
    static final String WRITE_BUFFER_SIZE = "rocksdb.write_buffer_size";
    static final String SYNC = "rocksdb.sync";

    private static final SharedStores<Handle> STORES = new SharedStores<>();

    private final KeyLayout keys = new KeyLayout();
    private final FieldNames names = new FieldNames();
    private Path dir;
    private Handle h;

    /** The store and every native object it needs, closed together. */
    static final class Handle implements AutoCloseable {
        final LRUCache cache;
        final BloomFilter bloom;
        final Options options;
        final WriteOptions write;
        final RocksDB db;
        final ReentrantLock[] locks = new ReentrantLock[1024];

        Handle(Path dir, Properties p) throws RocksDBException, java.io.IOException {
            RocksDB.loadLibrary();
            Files.createDirectories(dir);
            long cacheBytes = Sizes.parse(CACHE_SIZE, p.getProperty(CACHE_SIZE, "256m"));
            long writeBuffer = Sizes.parse(WRITE_BUFFER_SIZE, p.getProperty(WRITE_BUFFER_SIZE, "64m"));
            boolean sync = Boolean.parseBoolean(p.getProperty(SYNC, "false"));
            cache = new LRUCache(cacheBytes);
            bloom = new BloomFilter(10);
            options = new Options()
                    .setCreateIfMissing(true)
                    .setWriteBufferSize(writeBuffer)
                    .setMaxWriteBufferNumber(3)
                    .setTargetFileSizeBase(64L << 20)
                    .setCompressionType(CompressionType.NO_COMPRESSION)
                    .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(bloom).setBlockCache(cache));
            write = new WriteOptions().setSync(sync);
            for (int i = 0; i < locks.length; i++) {
                locks[i] = new ReentrantLock();
            }
            System.err.println("RocksDB " + RocksDB.rocksdbVersion() + " settings: " + DIR + "=" + dir
                    + "\n  " + CACHE_SIZE + "=" + Sizes.format(cacheBytes) + " (LRU)"
                    + "\n  " + WRITE_BUFFER_SIZE + "=" + Sizes.format(writeBuffer) + " x " + options.maxWriteBufferNumber()
                    + "\n  target_file_size_base=" + Sizes.format(options.targetFileSizeBase())
                    + "\n  compression=" + options.compressionType() + ", bloom 10 bits/key"
                    + "\n  max_background_jobs=" + options.maxBackgroundJobs()
                    + "\n  " + SYNC + "=" + sync + " (WAL on)");
            try {
                db = RocksDB.open(options, dir.toString());
            } catch (RocksDBException e) {
                write.close();
                options.close();
                bloom.close();
                cache.close();
                throw e;
            }
        }

        ReentrantLock lock(byte[] key) {
            return locks[(Arrays.hashCode(key) & 0x7fffffff) % locks.length];
        }

        @Override
        public void close() {
            db.close();
            write.close();
            options.close();
            bloom.close();
            cache.close();
        }
    }

    @Override
    public void init() throws DBException {
        String d = getProperties().getProperty(DIR);
        if (d == null || d.isBlank()) {
            throw new DBException(DIR + " is required");
        }
        try {
            h = STORES.acquire(Path.of(d), path -> new Handle(path, getProperties()));
            dir = Path.of(d);
        } catch (Exception e) {
            throw new DBException("cannot open RocksDB in " + d + ": " + e, e);
        }
    }

    @Override
    public void cleanup() throws DBException {
        if (h == null) {
            return;
        }
        h = null;
        try {
            STORES.release(dir);
        } catch (Exception e) {
            throw new DBException(e);
        }
    }

    static int users(Path dir) {
        return STORES.users(dir);
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            byte[] record = h.db.get(keys.key(table, key));
            if (record == null) {
                return Status.NOT_FOUND;
            }
            FieldCodec.decode(record, fields, result, names);
            return Status.OK;
        } catch (Exception e) {
            return failed(e);
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        if (recordcount < 0) {
            return Status.BAD_REQUEST;
        }
        try (RocksIterator it = h.db.newIterator()) {
            byte[] end = keys.tableEnd(table);
            it.seek(keys.key(table, startkey));
            for (int i = 0; i < recordcount && it.isValid(); i++, it.next()) {
                if (Arrays.compareUnsigned(it.key(), end) >= 0) {
                    break;
                }
                HashMap<String, ByteIterator> row = new HashMap<>();
                FieldCodec.decode(it.value(), fields, row, names);
                result.add(row);
            }
            it.status();
            return Status.OK;
        } catch (Exception e) {
            return failed(e);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            byte[] k = keys.key(table, key);
            Map<String, byte[]> updates = FieldCodec.toBytes(values);
            ReentrantLock lock = h.lock(k);
            lock.lock();
            try {
                byte[] old = h.db.get(k);
                if (old == null) {
                    return Status.NOT_FOUND;
                }
                h.db.put(h.write, k, FieldCodec.merge(old, updates));
                return Status.OK;
            } finally {
                lock.unlock();
            }
        } catch (Exception e) {
            return failed(e);
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            h.db.put(h.write, keys.key(table, key), FieldCodec.encode(values));
            return Status.OK;
        } catch (Exception e) {
            return failed(e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            byte[] k = keys.key(table, key);
            ReentrantLock lock = h.lock(k);
            lock.lock();
            try {
                if (h.db.get(k) == null) {
                    return Status.NOT_FOUND;
                }
                h.db.delete(h.write, k);
                return Status.OK;
            } finally {
                lock.unlock();
            }
        } catch (Exception e) {
            return failed(e);
        }
    }

    private static Status failed(Exception e) {
        System.err.println("RocksDB binding: " + e);
        return e instanceof IllegalArgumentException ? Status.BAD_REQUEST : Status.ERROR;
    }
}
