package dev.remixdb.reliability.fault;

import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.reliability.fault.FaultyFileSystem.Kind;
import dev.remixdb.reliability.fault.FaultyFileSystem.Op;
import dev.remixdb.wal.ReplayResult;
import dev.remixdb.wal.WalOp;
import dev.remixdb.wal.WalReader;
import dev.remixdb.wal.WalWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A close ends a WAL with a mark written after its records are durable (and a sync, with one saying
 * how far it reached); the mark only guards them,
 * so a disk that fails its write must not fail the close, nor (for a retired WAL, closed in the
 * background) the store, nor leave a torn mark that reads as an older WAL cut short. The first two
 * tests fail on the build that first wrote the mark (found by a review).
 */
class ClosingMarkFaultTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void closeAfterEverythingIsSyncedDoesNotFailOnAFullDisk() throws Exception {
        Path real = tmp.resolve("db");
        FaultyFileSystem fs = new FaultyFileSystem();
        RemixDB db = RemixDB.open(fs.wrap(real), Options.builder().build());
        db.put(b("k"), b("v"));
        db.sync();
        fs.failOn(Op.WRITE, Kind.WAL, 0, true);
        assertDoesNotThrow(db::close, "close of a store whose writes are all durable");
        fs.heal();
        try (RemixDB again = RemixDB.open(real)) {
            assertArrayEquals(b("v"), again.get(b("k")));
        }
    }

    @Test
    void aFailedClosingMarkOfARetiredWalDoesNotFailTheStore() throws Exception {
        Path real = tmp.resolve("db");
        FaultyFileSystem fs = new FaultyFileSystem();
        // Each write in the file at once, none synced: the retired WAL's close syncs and marks it.
        try (RemixDB db = RemixDB.open(fs.wrap(real), Options.builder().walFlushMillis(0).build())) {
            db.put(b("k"), b("v"));
            // From here the 1st WAL write is the new WAL's header at the switch, the 2nd the retired
            // WAL's closing mark.
            fs.failOn(Op.WRITE, Kind.WAL, 1, false);
            db.compactMemtable();
            assertDoesNotThrow(() -> {
                db.put(b("k2"), b("v2"));
                db.sync();
            }, "a synced put after a switch whose old WAL was durable");
        }
        try (RemixDB again = RemixDB.open(real)) {
            assertArrayEquals(b("v"), again.get(b("k")));
            assertArrayEquals(b("v2"), again.get(b("k2")));
        }
    }

    /**
     * The record a sync writes once it returned, saying how far it reached, is a mark too: a disk
     * that fails its write (full, say) fails neither that write nor later ones, nor the close; the
     * records are durable. The mark's bytes are cut off again.
     */
    @Test
    void aFailedSyncRecordDoesNotFailTheStore() throws Exception {
        Path real = tmp.resolve("db");
        FaultyFileSystem fs = new FaultyFileSystem();
        try (RemixDB db = RemixDB.open(fs.wrap(real), Options.builder().syncWrites(true).build())) {
            db.put(b("k"), b("v"));
            // The 1st WAL write from here is k2's record, the 2nd the record saying its sync returned.
            fs.failOn(Op.WRITE, Kind.WAL, 1, false);
            assertDoesNotThrow(() -> db.put(b("k2"), b("v2")), "a synced put whose sync's record failed");
            fs.heal();
            assertDoesNotThrow(() -> db.put(b("k3"), b("v3")), "a synced put after it");
        }
        try (RemixDB again = RemixDB.open(real)) {
            assertArrayEquals(b("v"), again.get(b("k")));
            assertArrayEquals(b("v2"), again.get(b("k2")));
            assertArrayEquals(b("v3"), again.get(b("k3")));
        }
    }

    /** A disk that fills in the middle of the mark: what of it was written is cut off again. */
    @Test
    void aPartlyWrittenMarkIsCutOff() throws Exception {
        FaultyFileSystem fs = new FaultyFileSystem();
        Path dir = tmp.resolve("wal");
        Files.createDirectories(dir);
        Path wal = fs.wrap(dir).resolve("000001.wal");
        long records;
        try (WalWriter w = WalWriter.create(wal, 1)) {
            w.add(1, List.of(WalOp.put(b("a"), b("1")), WalOp.put(b("b"), b("2"))));
            w.sync();
            records = w.bytesWritten();
            fs.spaceLimit(10);  // the mark is 39 bytes
        }
        fs.heal();
        Path real = dir.resolve("000001.wal");
        assertEquals(records, Files.size(real), "the partial mark is cut off");
        ReplayResult r = WalReader.replay(real, 1, false, (seq, type, key, ko, kl, value, vo, vl) -> { });
        assertEquals(2, r.ops());
        assertFalse(r.torn());
    }
}
