package dev.remixdb.ycsb;

import dev.remixdb.RemixDB;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * RemixDB as a YCSB {@link DB}: {@code -db dev.remixdb.ycsb.RemixDBClient -p remixdb.dir=DIR}.
 *
 * <p>All client threads of a run share one store per directory, opened by the first
 * {@link #init()} and closed by the last {@link #cleanup()} ({@link SharedStores}). Tables are key
 * prefixes ({@link KeyLayout}); a record is one value ({@link FieldCodec}). Properties: see
 * {@link RemixDBSettings} and the module README.
 *
 * <p>Status codes: {@code OK}; {@code NOT_FOUND} when read, update or delete finds no record;
 * {@code BAD_REQUEST} for input the store refuses (null table or key, a table name with U+0000, a
 * key over 64 KiB, a record over 64 MiB, a negative scan length); {@code ERROR} for I/O failures,
 * a closed store or a stored value that is not a record. No exception leaves an operation.
 */
public class RemixDBClient extends DB {
    private static final SharedStores<RemixDB> STORES = new SharedStores<>();
    /** Errors printed in full; after that only counted, so a failing run does not flood the log. */
    private static final int LOGGED_ERRORS = 10;
    private static final AtomicInteger ERRORS = new AtomicInteger();

    private final KeyLayout keys = new KeyLayout();
    private final FieldNames names = new FieldNames();
    /** The settings this client opened its store with; null before init. */
    private RemixDBSettings settings;
    private RemixDB db;

    @Override
    public void init() throws DBException {
        if (db != null) {
            throw new DBException("RemixDBClient.init called twice");
        }
        RemixDBSettings s;
        try {
            s = RemixDBSettings.from(getProperties());
        } catch (IllegalArgumentException e) {
            throw new DBException("RemixDB binding: " + e.getMessage(), e);
        }
        try {
            db = STORES.acquire(s.dir(), d -> {
                System.err.println(s.describe());
                RemixDB opened = RemixDB.open(d, s.options());
                if (s.printStats()) {
                    System.err.println("RemixDB stats at open:\n" + opened.stats());
                }
                return opened;
            });
            settings = s;
        } catch (Exception e) {
            throw new DBException("RemixDB binding: cannot open the store in " + s.dir() + ": " + e, e);
        }
    }

    @Override
    public void cleanup() throws DBException {
        if (db == null) {
            return; // init failed or cleanup already ran: this client holds no reference
        }
        db = null;
        try {
            STORES.release(settings.dir(), store -> {
                if (settings.printStats()) {
                    System.err.println("RemixDB stats at close:\n" + store.stats());
                }
            });
        } catch (Exception e) {
            throw new DBException("RemixDB binding: closing the store in " + settings.dir() + " failed: " + e, e);
        }
    }

    /** References held on the store in {@code dir} by clients of this JVM (for tests). */
    static int users(Path dir) {
        return STORES.users(dir);
    }

    /** This client's store, null outside init..cleanup (for tests). */
    RemixDB store() {
        return db;
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            byte[] record = db().get(keys.key(table, key));
            if (record == null) {
                return Status.NOT_FOUND;
            }
            FieldCodec.decode(record, fields, result, names);
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("read", table, key, e);
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        if (recordcount < 0) {
            return Status.BAD_REQUEST;
        }
        // Bounded by the table's range, so the scan stops at its end without comparing keys. One
        // lock for the scan instead of four per row; each record is copied once, out of its view,
        // since YCSB keeps the rows after the scan.
        try {
            db().scan(keys.key(table, startkey), keys.tableEnd(table), recordcount, (k, v) -> {
                HashMap<String, ByteIterator> row = new HashMap<>();
                FieldCodec.decode(v.toArray(ValueLayout.JAVA_BYTE), fields, row, names);
                result.add(row);
                return true;
            });
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("scan", table, startkey, e);
        }
    }

    /**
     * Replaces the given fields and keeps the others, atomically: the merge runs inside
     * {@link RemixDB#compute}, so two updates of different fields of one record both survive.
     */
    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            byte[] k = keys.key(table, key);
            Map<String, byte[]> updates = FieldCodec.toBytes(values);
            byte[] merged = db().compute(k, old -> old == null ? null : FieldCodec.merge(old, updates));
            return merged == null ? Status.NOT_FOUND : Status.OK;
        } catch (Exception e) {
            return failed("update", table, key, e);
        }
    }

    /** Writes the record, replacing any record of that key (YCSB inserts fresh keys). */
    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            db().put(keys.key(table, key), FieldCodec.encode(values));
            return Status.OK;
        } catch (Exception e) {
            return failed("insert", table, key, e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            boolean[] existed = new boolean[1];
            // compute rather than delete: one atomic step that also tells whether there was a record.
            db().compute(keys.key(table, key), old -> {
                existed[0] = old != null;
                return null;
            });
            return existed[0] ? Status.OK : Status.NOT_FOUND;
        } catch (Exception e) {
            return failed("delete", table, key, e);
        }
    }

    private RemixDB db() {
        RemixDB d = db;
        if (d == null) {
            throw new IllegalStateException("RemixDBClient used before init() or after cleanup()");
        }
        return d;
    }

    private static Status failed(String op, String table, String key, Exception e) {
        Status status = e instanceof IllegalArgumentException ? Status.BAD_REQUEST : Status.ERROR;
        int n = ERRORS.incrementAndGet();
        if (n <= LOGGED_ERRORS) {
            System.err.println("RemixDB binding: " + op + " " + table + "/" + key + " -> " + status.getName()
                    + ": " + e + (n == LOGGED_ERRORS ? " (further errors are not printed)" : ""));
        }
        return status;
    }
}
