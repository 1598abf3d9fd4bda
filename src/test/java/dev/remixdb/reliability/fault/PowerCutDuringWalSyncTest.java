package dev.remixdb.reliability.fault;

import dev.remixdb.CorruptionException;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.VerifyReport;
import dev.remixdb.reliability.fault.FaultyFileSystem.Kind;
import dev.remixdb.reliability.fault.FaultyFileSystem.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.remixdb.reliability.fault.FaultInjectionTest.assertInjected;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The power-cut cases of the WAL's background sync. After a memtable switch the old WAL is synced
 * in the background while writes go to the new one; a power cut in that window can leave the new
 * WAL's bytes on disk and not all of the old one's (the file system writes back in its own order).
 * Recovery must then keep the writes up to the tear and drop the later ones, which no sync ever
 * covered, instead of refusing to open; while a tear in a WAL that was synced before later records
 * were written stays damage. And writes a killed process left in the page cache must be made
 * durable by the next open before writes after it can be synced.
 */
class PowerCutDuringWalSyncTest {
    private static final byte[] VALUE = new byte[1000];

    @TempDir
    Path tmp;

    /** The image a power cut leaves with the new WAL's bytes written back and the old one's last record not. */
    @Test
    void aWalTornWhileItsSyncWasUnderWayLosesOnlyTheWritesAfterTheTear() throws Exception {
        Path image = tmp.resolve("image");
        // The old WAL's sync, and the compaction that would make it obsolete, take seconds.
        Image cut = imageAfterASwitch(image, 5_000, 5_000, PowerCutDuringWalSyncTest::putAfterKeys);
        List<byte[]> before = cut.before();
        Path torn = cut.torn();

        VerifyReport report = RemixDB.verify(image);
        assertTrue(report.ok(), report.toString());
        assertTrue(report.toString().contains("power cut"), report.toString());
        try (RemixDB again = RemixDB.open(image)) {
            int kept = 0;
            while (kept < before.size() && again.get(before.get(kept)) != null) {
                assertArrayEquals(VALUE, again.get(before.get(kept)));
                kept++;
            }
            assertTrue(kept < before.size(), "the torn record's writes are lost");
            for (int i = kept; i < before.size(); i++) {
                assertNull(again.get(before.get(i)), "write " + i + " after the tear at write " + kept + " survived");
            }
            for (byte[] k : keys("after-", 20)) {
                assertNull(again.get(k), "a write in the WAL after the torn one survived");
            }
            again.put("next".getBytes(StandardCharsets.UTF_8), VALUE);
        }
        assertTrue(Files.exists(torn));
        try (RemixDB again = RemixDB.open(image)) {
            assertArrayEquals(VALUE, again.get("next".getBytes(StandardCharsets.UTF_8)));
        }
        assertTrue(RemixDB.verify(image).ok());
    }

    /**
     * Once the old WAL's sync finished, records written to the new WAL say so: a tear in the old one
     * is then damage (later writes would follow lost ones), reported by open and by verify.
     */
    @Test
    void aWalTornAfterItWasSyncedIsDamage() throws Exception {
        Path image = tmp.resolve("image");
        Path torn = imageAfterASwitch(image, 200, 10_000, (db, real) -> {
            db.put("early".getBytes(StandardCharsets.UTF_8), VALUE);
            db.sync();  // waits for the old WAL's sync
            byte[] late = "late".getBytes(StandardCharsets.UTF_8);
            db.put(late, VALUE);
            awaitInFile(real, late);
        }).torn();

        CorruptionException e = assertThrows(CorruptionException.class, () -> RemixDB.open(image).close());
        assertEquals(torn, e.file());
        assertTrue(e.getMessage().contains("after the older WALs were synced"), e.getMessage());
        VerifyReport report = RemixDB.verify(image);
        assertTrue(!report.ok() && report.problems().getFirst().file().equals(torn), report.toString());
    }

    /**
     * A write whose record was early (opened while the old WAL synced) but that a sync then made
     * durable is not "never synced": the sync settles it with a mark record, so a tear of the old WAL
     * found afterwards is damage, refused, instead of a reason to drop that write without a word.
     */
    @Test
    void anEarlyRecordThatASyncCoveredIsNotDroppedAtATear() throws Exception {
        Path image = tmp.resolve("image");
        Path torn = imageAfterASwitch(image, 300, 10_000, (db, real) -> {
            db.put("early".getBytes(StandardCharsets.UTF_8), VALUE);  // in an early record
            db.sync();  // acknowledged: waited for the old WAL, then synced this one
        }).torn();
        CorruptionException e = assertThrows(CorruptionException.class, () -> RemixDB.open(image).close());
        assertEquals(torn, e.file());
        assertTrue(!RemixDB.verify(image).ok());
    }

    /**
     * The open that drops the WALs after a torn one deletes them durably before it cuts the torn
     * one: a crash between the two (here, the first WAL write of the open fails, and the power goes)
     * must not leave a clean WAL followed by records past its end, which no open accepts.
     */
    @Test
    void aCrashDuringTheOpenThatDropsWalsLeavesAStoreThatOpens() throws Exception {
        Path image = tmp.resolve("image");
        List<byte[]> before = imageAfterASwitch(image, 5_000, 5_000, PowerCutDuringWalSyncTest::putAfterKeys).before();
        // The open changes WAL files several times (the later WALs deleted, the torn one cut, a new
        // one created): a crash after each, here a failed write of a WAL and then a power cut.
        boolean completed = false;
        for (int skip = 0; !completed; skip++) {
            assertTrue(skip < 20, "the open never completed");
            Path copy = tmp.resolve("crash-" + skip);
            copyFiles(image, copy);
            FaultyFileSystem again = new FaultyFileSystem();
            again.watchPowerCuts(copy);
            try {
                again.failOn(Op.WRITE, Kind.WAL, skip, true);
                try {
                    RemixDB.open(again.wrap(copy)).close();
                    completed = true;
                } catch (IOException expected) {
                    assertInjected(expected, "open with WAL write " + skip + " failing");
                }
                again.cutPower();
                List<String> undone = again.restorePower();
                try (RemixDB reopened = RemixDB.open(copy)) {
                    assertArrayEquals(VALUE, reopened.get(before.getFirst()), "crash at WAL write " + skip + ", " + undone);
                    for (byte[] k : keys("after-", 20)) {
                        assertNull(reopened.get(k), "crash at WAL write " + skip + ", " + undone);
                    }
                }
            } finally {
                again.discardImage();
            }
        }
    }

    /**
     * A killed process leaves its last writes in the page cache; the store reopened after it must
     * make them durable before it acknowledges a sync of later writes, or a power cut then keeps
     * the later writes without the earlier ones (recovery found a sequence gap and refused).
     */
    @Test
    void writesAKilledProcessLeftInThePageCacheAreSyncedByTheNextOpen() throws Exception {
        Path real = tmp.resolve("db");
        Files.createDirectories(real);
        FaultyFileSystem fs = new FaultyFileSystem();
        fs.watchPowerCuts(real);
        try {
            List<byte[]> first = keys("first-", 100);
            RemixDB db = RemixDB.open(fs.wrap(real), Options.builder().build());
            db.sync();
            for (byte[] k : first) {
                db.put(k, VALUE);
            }
            awaitInFile(real, first.getLast());
            fs.cutPower();  // the process is killed: nothing more reaches the disk from it
            closeWithoutDisk(db);
            fs.resumeAfterKill();

            List<byte[]> second = keys("second-", 100);
            RemixDB again = RemixDB.open(fs.wrap(real), Options.builder().build());
            for (byte[] k : second) {
                again.put(k, VALUE);
            }
            again.sync();
            fs.cutPower();  // now the machine loses power
            closeWithoutDisk(again);
            List<String> undone = fs.restorePower();

            try (RemixDB last = RemixDB.open(fs.wrap(real))) {
                for (byte[] k : second) {
                    assertArrayEquals(VALUE, last.get(k), "a synced write was lost; the cut undid " + undone);
                }
                for (byte[] k : first) {
                    assertArrayEquals(VALUE, last.get(k), "a write before synced ones was lost; the cut undid " + undone);
                }
            }
        } finally {
            fs.discardImage();
        }
    }

    private static void closeWithoutDisk(RemixDB db) {
        try {
            db.close();
        } catch (IOException e) {
            assertInjected(e, "close without a disk");
        }
    }

    /** The keys put before the memtable switch, and the WAL whose last record was cut. */
    private record Image(List<byte[]> before, Path torn) {}

    /** What a test writes after the switch, before the image is taken. */
    @FunctionalInterface
    private interface AfterSwitch {
        void run(RemixDB db, Path real) throws Exception;
    }

    /**
     * Fills a store on the fault-injecting file system until a memtable switch, with every WAL fsync
     * taking {@code walSyncMillis} and every table fsync {@code tableSyncMillis} (so that the old WAL
     * stays, its compaction not installed), runs {@code afterSwitch}, copies the files into
     * {@code image} as a kill would leave them, and cuts the last record of the WAL before the newest.
     */
    private Image imageAfterASwitch(Path image, long walSyncMillis, long tableSyncMillis, AfterSwitch afterSwitch)
            throws Exception {
        Path real = tmp.resolve("db");
        FaultyFileSystem fs = new FaultyFileSystem();
        RemixDB db = RemixDB.open(fs.wrap(real), Options.builder().memtableBytes(64 * 1024).build());
        List<byte[]> before;
        try {
            fs.slowOn(Op.FSYNC, Kind.WAL, walSyncMillis);
            fs.slowOn(Op.FSYNC, Kind.TABLE, tableSyncMillis);
            before = WalFiles.fillUntilASwitch(db, real, VALUE);
            afterSwitch.run(db, real);
            copyFiles(real, image);
        } finally {
            fs.heal();
            db.close();
        }
        return new Image(before, cutLastRecordOfTheOlderWal(image));
    }

    /** Puts the keys "after-..." into the new WAL and waits until they are in its file. */
    private static void putAfterKeys(RemixDB db, Path real) throws Exception {
        List<byte[]> after = keys("after-", 20);
        for (byte[] k : after) {
            db.put(k, VALUE);
        }
        awaitInFile(real, after.getLast());
    }

    private static List<byte[]> keys(String prefix, int n) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(String.format("%s%06d", prefix, i).getBytes(StandardCharsets.UTF_8));
        }
        return keys;
    }

    /** What a kill -9 would leave: the files as the page cache holds them now. */
    private static void copyFiles(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path f : s.filter(Files::isRegularFile).toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }

    /** Cuts 5 bytes off the WAL before the newest: its last record is torn. Returns it. */
    private static Path cutLastRecordOfTheOlderWal(Path dir) throws IOException {
        List<Path> wals = WalFiles.wals(dir);
        assertTrue(wals.size() >= 2, "the old WAL is still there: " + wals);
        Path older = wals.get(wals.size() - 2);
        try (FileChannel c = FileChannel.open(older, StandardOpenOption.WRITE)) {
            c.truncate(c.size() - 5);
        }
        return older;
    }

    private static void awaitInFile(Path dir, byte[] what) throws Exception {
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (!WalFiles.inNewestWal(dir, what)) {
            assertTrue(System.nanoTime() < deadline, "the write never reached the WAL file");
            Thread.sleep(5);
        }
    }
}
