package dev.remixdb.reliability.fault;

import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.VerifyReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static dev.remixdb.reliability.fault.FaultInjectionTest.assertInjected;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The disk fills up while a memtable switch writes out the old WAL's buffered records: the write
 * tears the old WAL's last record, after the switch created the next WAL. The store must refuse
 * writes from then on, and once the disk has room again it must pass verify and reopen with every
 * synced write (the torn record is a crash's torn tail, not damage: no later WAL holds a record).
 * Found by {@link FaultInjectionTest}'s random ENOSPC runs, where it happened once in many.
 */
class FullDiskAtMemtableSwitchTest {
    private static final int SYNCED = 300;
    private static final int UNSYNCED = 200;

    @TempDir
    Path tmp;

    private static byte[] key(int i) {
        return String.format("key-%05d", i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        return ("value-" + i + "-" + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void tornOldWalAtASwitchStillVerifiesAndReopens() throws Exception {
        Path real = tmp.resolve("db");
        FaultyFileSystem fs = new FaultyFileSystem();
        // Large memtable: no switch but the one asked for. A long WAL flush delay: the unsynced writes
        // stay buffered until the switch writes them out.
        Options options = Options.builder().memtableBytes(4 << 20).walFlushMillis(10_000).build();
        RemixDB db = RemixDB.open(fs.wrap(real), options);
        try {
            for (int i = 0; i < SYNCED; i++) {
                db.put(key(i), value(i));
            }
            db.sync();
            for (int i = SYNCED; i < SYNCED + UNSYNCED; i++) {
                db.put(key(i), value(i));
            }
            // Room for the new WAL's 24-byte header and part of the old WAL's buffered records.
            fs.spaceLimit(24 + 700);
            IOException e = assertThrows(IOException.class, db::compactMemtable);
            assertInjected(e, "the switch's WAL write");
            assertTrue(fs.injected().stream().anyMatch(s -> s.contains(".wal")),
                    "the failed write was a WAL's: " + fs.injected());
            assertThrows(IOException.class, () -> db.put(key(0), value(1)), "writes are refused after the failure");
            assertArrayEquals(value(SYNCED - 1), db.get(key(SYNCED - 1)), "reads go on");
        } finally {
            try {
                db.close();
            } catch (IOException | RuntimeException e) {
                // The close cannot sync what the full disk refused; the synced writes are on disk.
            }
        }
        fs.heal();

        VerifyReport report = RemixDB.verify(real);
        assertTrue(report.ok(), "verify after the full disk: " + report);
        try (RemixDB again = RemixDB.open(real, options)) {
            for (int i = 0; i < SYNCED; i++) {
                assertArrayEquals(value(i), again.get(key(i)), "synced key " + i);
            }
            boolean gap = false;
            for (int i = SYNCED; i < SYNCED + UNSYNCED; i++) {
                byte[] v = again.get(key(i));
                if (v == null) {
                    gap = true;
                } else if (gap) {
                    fail("key " + i + " survived but an earlier unsynced key did not: not a prefix");
                } else {
                    assertArrayEquals(value(i), v, "unsynced key " + i);
                }
            }
            again.put(key(0), value(7));
            again.sync();
            assertArrayEquals(value(7), again.get(key(0)), "the reopened store takes writes");
        }
        assertTrue(RemixDB.verify(real).ok(), "verify after the reopened store wrote");
    }
}
