package dev.remixdb.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.ClosedException;
import dev.remixdb.RemixDB;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

class RemixDBClientTest extends BindingContract {
    @Override
    DB client(Path dir) {
        return withProperty(new RemixDBClient(), RemixDBSettings.DIR, dir.toString());
    }

    @Override
    int users(Path dir) {
        return RemixDBClient.users(dir);
    }

    private RemixDB store() {
        return ((RemixDBClient) db).store();
    }

    @Test
    void missingDirPropertyFailsInitWithItsName() {
        DB c = new RemixDBClient();
        c.setProperties(new Properties());
        DBException e = assertThrows(DBException.class, c::init);
        assertTrue(e.getMessage().contains("remixdb.dir is required"), e.getMessage());
        assertEquals(Status.ERROR, c.read("t", "k", null, new HashMap<>()), "no store, no exception either");
    }

    @Test
    void unknownPropertyFailsInit() {
        DB c = withProperty(new RemixDBClient(), "remixdb.dir", dir.resolve("other").toString());
        c.getProperties().setProperty("remixdb.memtable", "1m");
        DBException e = assertThrows(DBException.class, c::init);
        assertTrue(e.getMessage().contains("remixdb.memtable"), e.getMessage());
        assertEquals(0, users(dir.resolve("other")));
    }

    @Test
    void statsArePrintedAtOpenAndByTheLastCleanupWhenAsked() throws Exception {
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        Path other = dir.resolve("stats");
        DB first = withProperty(new RemixDBClient(), RemixDBSettings.DIR, other.toString());
        first.getProperties().setProperty(RemixDBSettings.PRINT_STATS, "true");
        DB second = withProperty(new RemixDBClient(), RemixDBSettings.DIR, other.toString());
        second.getProperties().setProperty(RemixDBSettings.PRINT_STATS, "true");
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            first.init();
            second.init();
            insert(first, "t", "k", record("a", "1"));
            first.cleanup();
            String afterFirst = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(afterFirst.contains("RemixDB stats at open:"), afterFirst);
            assertFalse(afterFirst.contains("RemixDB stats at close:"), "the store is still in use: " + afterFirst);
            second.cleanup();
        } finally {
            System.setErr(err);
        }
        String out = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(1, out.split("RemixDB stats at open:", -1).length - 1, out);
        assertEquals(1, out.split("RemixDB stats at close:", -1).length - 1, out);
        assertTrue(out.contains("partitions"), out);
        assertEquals(0, users(other));
    }

    @Test
    void storesTheRecordUnderTablePrefixedKeyInTheDocumentedFormat() {
        insert(db, "usertable", "user7", record("field0", "abc"));
        byte[] stored = store().get("usertable\0user7".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals("[1, 6, 102, 105, 101, 108, 100, 48, 3, 97, 98, 99]", java.util.Arrays.toString(stored));
    }

    @Test
    void keysOverTheStoreLimitAreBadRequests() {
        String big = "x".repeat(70_000);
        assertEquals(Status.BAD_REQUEST, db.insert("t", big, FieldCodecTest.iterators(record("a", "1"))));
        assertEquals(Status.BAD_REQUEST, db.read("t", big, null, new HashMap<>()));
    }

    @Test
    void aValueThatIsNotARecordIsAnError() throws Exception {
        store().put("t\0k".getBytes(java.nio.charset.StandardCharsets.US_ASCII), new byte[] {9, 9});
        Map<String, ByteIterator> out = new HashMap<>();
        assertEquals(Status.ERROR, db.read("t", "k", null, out));
        assertEquals(Status.ERROR, db.update("t", "k", FieldCodecTest.iterators(record("a", "1"))));
        assertEquals(Status.ERROR, db.scan("t", "", 10, null, new java.util.Vector<>()));
        assertEquals(2, store().get("t\0k".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).length,
                "the failed update changed nothing");
    }

    @Test
    void lastCleanupClosesTheStoreAndReleasesItsDirectory() throws Exception {
        RemixDB store = store();
        DB second = client(dir);
        second.init();
        db.cleanup();
        assertEquals(1, users(dir));
        store.get(new byte[] {1}); // still open for the second client
        second.cleanup();
        assertThrows(ClosedException.class, () -> store.get(new byte[] {1}));
        // The directory lock is gone: the store opens again in this same JVM.
        try (RemixDB again = RemixDB.open(dir)) {
            assertEquals(null, again.get(new byte[] {1}));
        }
        db = client(dir);
        db.init();
    }
}
