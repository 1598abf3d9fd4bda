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
 * A close ends a WAL with a mark written after its records are durable; the mark only guards them,
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
        try (RemixDB db = RemixDB.open(fs.wrap(real), Options.builder().syncWrites(true).build())) {
            db.put(b("k"), b("v"));
            // From here the 1st WAL write is the new WAL's header at the switch, the 2nd the retired
            // WAL's closing mark.
            fs.failOn(Op.WRITE, Kind.WAL, 1, false);
            db.compactMemtable();
            assertDoesNotThrow(() -> db.put(b("k2"), b("v2")), "a synced put after a switch whose old WAL was durable");
            assertDoesNotThrow(db::sync);
        }
        try (RemixDB again = RemixDB.open(real)) {
            assertArrayEquals(b("v"), again.get(b("k")));
            assertArrayEquals(b("v2"), again.get(b("k2")));
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
            fs.spaceLimit(10);  // the mark is 35 bytes
        }
        fs.heal();
        Path real = dir.resolve("000001.wal");
        assertEquals(records, Files.size(real), "the partial mark is cut off");
        ReplayResult r = WalReader.replay(real, 1, false, (seq, type, key, ko, kl, value, vo, vl) -> { });
        assertEquals(2, r.ops());
        assertFalse(r.torn());
    }
}
