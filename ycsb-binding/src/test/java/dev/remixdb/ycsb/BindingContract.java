package dev.remixdb.ycsb;

import static dev.remixdb.ycsb.FieldCodecTest.assertSameFields;
import static dev.remixdb.ycsb.FieldCodecTest.bytes;
import static dev.remixdb.ycsb.FieldCodecTest.iterators;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;

/**
 * What every binding of this module must do, run against each of them ({@link RemixDBClientTest},
 * {@link RocksDBClientTest}), so the benchmark compares stores with the same semantics.
 */
abstract class BindingContract {
    @TempDir
    Path dir;
    DB db;

    /** A client of a fresh store in {@code dir}, not yet initialised. */
    abstract DB client(Path dir);

    /** References held on the store in {@code dir}. */
    abstract int users(Path dir);

    @BeforeEach
    void open() throws Exception {
        db = client(dir);
        db.init();
    }

    @AfterEach
    void close() throws Exception {
        db.cleanup();
        assertEquals(0, users(dir), "the store is closed after the last cleanup");
    }

    static DB withProperty(DB db, String name, String value) {
        Properties p = new Properties();
        p.setProperty(name, value);
        db.setProperties(p);
        return db;
    }

    static Map<String, byte[]> record(String... kv) {
        Map<String, byte[]> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return m;
    }

    Status insert(DB client, String table, String key, Map<String, byte[]> fields) {
        return client.insert(table, key, iterators(fields));
    }

    Map<String, byte[]> read(String table, String key, Set<String> fields) {
        Map<String, ByteIterator> out = new HashMap<>();
        assertEquals(Status.OK, db.read(table, key, fields, out), "read " + table + "/" + key);
        return bytes(out);
    }

    List<String> scanValuesOf(String table, String start, int n, String field) {
        Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
        assertEquals(Status.OK, db.scan(table, start, n, field == null ? null : Set.of(field), rows));
        List<String> out = new ArrayList<>();
        for (HashMap<String, ByteIterator> row : rows) {
            out.add(row.containsKey("k") ? row.get("k").toString() : "fields " + new java.util.TreeSet<>(row.keySet()));
        }
        return out;
    }

    @Test
    void insertThenReadReturnsEveryFieldByteForByte() {
        Map<String, byte[]> r = record("field0", "v0", "field1", "", "field2", "\u0000\u00ff");
        r.put("bin", new byte[] {0, -1, -128, 127});
        assertEquals(Status.OK, insert(db, "usertable", "user1", r));
        assertSameFields(r, read("usertable", "user1", null));
        assertEquals(Status.OK, insert(db, "usertable", "empty", Map.of()));
        assertEquals(Map.of(), read("usertable", "empty", null));
    }

    @Test
    void readsOnlyTheRequestedFields() {
        insert(db, "t", "k", record("a", "1", "b", "2", "c", "3"));
        assertSameFields(record("a", "1", "c", "3"), read("t", "k", Set.of("a", "c", "nope")));
    }

    @Test
    void missingRecordsAreNotFound() {
        Map<String, ByteIterator> out = new HashMap<>();
        assertEquals(Status.NOT_FOUND, db.read("t", "absent", null, out));
        assertTrue(out.isEmpty());
        assertEquals(Status.NOT_FOUND, db.update("t", "absent", iterators(record("a", "1"))));
        assertEquals(Status.NOT_FOUND, db.read("t", "absent", null, out), "a failed update creates nothing");
        assertEquals(Status.NOT_FOUND, db.delete("t", "absent"));
        insert(db, "t", "k", record("a", "1"));
        assertEquals(Status.NOT_FOUND, db.read("other", "k", null, out), "tables are separate");
    }

    @Test
    void updateReplacesGivenFieldsAndKeepsTheRest() {
        insert(db, "t", "k", record("a", "1", "b", "2", "c", "3"));
        assertEquals(Status.OK, db.update("t", "k", iterators(record("b", "20", "d", "4"))));
        assertSameFields(record("a", "1", "b", "20", "c", "3", "d", "4"), read("t", "k", null));
    }

    @Test
    void insertReplacesAWholeRecord() {
        insert(db, "t", "k", record("a", "1", "b", "2"));
        insert(db, "t", "k", record("c", "3"));
        assertSameFields(record("c", "3"), read("t", "k", null));
    }

    @Test
    void deleteRemovesTheRecordOnce() {
        insert(db, "t", "k", record("a", "1"));
        assertEquals(Status.OK, db.delete("t", "k"));
        assertEquals(Status.NOT_FOUND, db.read("t", "k", null, new HashMap<>()));
        assertEquals(Status.NOT_FOUND, db.delete("t", "k"));
    }

    @Test
    void scansStayInsideTheirTable() {
        // "user" is a prefix of the other names: a plain prefix scan of "user" would see them.
        for (String table : new String[] {"user", "usertable", "user2", "use"}) {
            for (int i = 0; i < 5; i++) {
                insert(db, table, "k" + i, record("k", table + ":" + i, "x", "y"));
            }
        }
        assertEquals(List.of("user:0", "user:1", "user:2", "user:3", "user:4"), scanValuesOf("user", "", 100, null));
        assertEquals(List.of("use:3", "use:4"), scanValuesOf("use", "k3", 100, null));
        assertEquals(List.of("usertable:2", "usertable:3"), scanValuesOf("usertable", "k1x", 2, null),
                "starts at the first key after a missing start key, stops at the count");
        assertEquals(List.of(), scanValuesOf("user2", "k5", 10, null));
        assertEquals(List.of(), scanValuesOf("nosuchtable", "", 10, null));
        assertEquals(List.of(), scanValuesOf("user", "", 0, null));
        assertEquals(List.of("fields [x]", "fields [x]"), scanValuesOf("user", "k0", 2, "x"), "field subsets in scans");
        assertEquals(Status.BAD_REQUEST, db.scan("user", "", -1, null, new Vector<>()));
    }

    @Test
    void badInputIsABadRequestNotAnException() {
        Map<String, ByteIterator> out = new HashMap<>();
        assertEquals(Status.BAD_REQUEST, db.read("t", null, null, out));
        assertEquals(Status.BAD_REQUEST, db.read(null, "k", null, out));
        assertEquals(Status.BAD_REQUEST, db.insert("bad\u0000table", "k", iterators(record("a", "1"))));
        assertEquals(Status.BAD_REQUEST, db.update("t", null, iterators(record("a", "1"))));
        assertEquals(Status.BAD_REQUEST, db.delete("t", null));
        assertEquals(Status.BAD_REQUEST, db.scan("bad\u0000table", "", 5, null, new Vector<>()));
        Map<String, ByteIterator> nullValue = new HashMap<>();
        nullValue.put("a", null);
        assertEquals(Status.BAD_REQUEST, db.insert("t", "k", nullValue));
    }

    /**
     * Four threads at once each add new fields to one record, one update per field. A get-then-put
     * update loses a field whenever another thread writes between its get and its put; an atomic
     * one keeps them all.
     */
    @Test
    void concurrentUpdatesOfDifferentFieldsAreAllKept() throws Exception {
        insert(db, "t", "k", record("start", "-"));
        int threads = 4;
        int rounds = 250;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        assertEquals(Status.OK, db.update("t", "k", iterators(record(id + "-" + i, "" + i))));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, byte[]> expected = record("start", "-");
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < rounds; i++) {
                expected.putAll(record(t + "-" + i, "" + i));
            }
        }
        assertSameFields(expected, read("t", "k", null));
    }

    /** YCSB's threads: each its own client; one store, open while any of them is. */
    @Test
    void clientThreadsShareOneStoreUntilTheLastCleanup() throws Exception {
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<DB> clients = new ArrayList<>();
        try {
            List<Future<DB>> opened = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                opened.add(pool.submit(() -> {
                    DB c = client(dir);
                    start.await();
                    c.init();
                    assertEquals(Status.OK, insert(c, "t", "from" + id, record("a", "" + id)));
                    return c;
                }));
            }
            for (Future<DB> f : opened) {
                clients.add(f.get());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads + 1, users(dir), "the test's own client plus four");
        for (int t = 0; t < threads; t++) {
            assertSameFields(record("a", "" + t), read("t", "from" + t, null));
        }
        for (DB c : clients) {
            c.cleanup();
            c.cleanup(); // a second cleanup of the same client releases nothing more
        }
        assertEquals(1, users(dir));
        assertSameFields(record("a", "3"), read("t", "from3", null));
    }

    @Test
    void aClosedStoreKeepsWhatWasWritten() throws Exception {
        insert(db, "t", "k", record("a", "1"));
        db.cleanup();
        assertEquals(0, users(dir));
        assertEquals(Status.ERROR, db.read("t", "k", null, new HashMap<>()), "use after cleanup");
        db = client(dir);
        db.init();
        assertSameFields(record("a", "1"), read("t", "k", null));
    }
}
