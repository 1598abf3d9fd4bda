package dev.remixdb.reliability.fault;

import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.VerifyReport;
import dev.remixdb.WriteBatch;
import dev.remixdb.compaction.RemixDbPolicy;
import dev.remixdb.reliability.Counts;
import dev.remixdb.reliability.PrefixCheck;
import dev.remixdb.reliability.Workload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static dev.remixdb.reliability.fault.FaultInjectionTest.assertInjected;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Power cuts, not just process kills: a kill leaves the page cache to the kernel, a power cut loses
 * everything not forced. The store runs on a {@link FaultyFileSystem} that keeps a
 * {@link DurableImage} of its directory; at a random moment (mid-write, mid-compaction, mid-MANIFEST
 * switch) the power goes, the store is abandoned (closed against a disk that refuses everything),
 * and the directory is rewritten as the cut left it: file data not forced, files created, renamed
 * or deleted without a directory fsync, all undone. The reopened store must hold every write that
 * a sync acknowledged and nothing that no write made ({@link PrefixCheck}), and pass
 * {@link RemixDB#verify}. Cycles continue on the same directory, each from what the last one left.
 * A third of the cycles end in a kill of the process instead: the disk keeps what was written, not
 * yet forced, so that a later power cut can still take it (writes a killed process left in the page
 * cache must not be outlived by synced writes of the next process).
 *
 * <p>{@code remixdb.powerloss.cycles} cycles (CI 12, soak profile more).
 */
class PowerLossTest {
    private static final int CYCLES = Integer.getInteger("remixdb.powerloss.cycles", 12);
    private static final int KEYS = 600;
    private static final Counts COUNTS = new Counts("power cuts");

    @TempDir
    Path tmp;

    @AfterAll
    static void report() {
        COUNTS.report();
    }

    private static Options options(Random rnd) {
        // Small memtables and tables: compactions, splits and MANIFEST switches every few hundred
        // writes, so that cuts land inside them. WAL flush delay 0 or the default.
        return Options.builder().memtableBytes(48 * 1024).tableBytes(16 * 1024).blockCacheBytes(256 * 1024)
                .walFlushMillis(rnd.nextBoolean() ? 0 : 1)
                .compactionPolicy(RemixDbPolicy.builder().maxTables(4).build()).build();
    }

    @Test
    void everySyncedWriteSurvivesAPowerCut() throws Exception {
        cycles(6, false);
    }

    /**
     * Power cuts that keep some of the pages written since the last fsync and not others, as a disk
     * writing back in any order may: the WAL can end in a hole with good records after it. Rare
     * syncs, so that many pages are unforced at the cut. The store must open (the hole is the torn,
     * never synced, tail of the log: what replays is still a prefix of the writes) and hold every
     * synced write. The store before the WAL's synced ops refused to open: damage followed by good
     * records.
     */
    @Test
    void everySyncedWriteSurvivesAPowerCutThatKeepsSomeUnforcedPages() throws Exception {
        cycles(150, true);
    }

    private void cycles(int syncEvery, boolean somePagesKept) throws Exception {
        long seed = Long.getLong("remixdb.powerloss.seed", System.nanoTime());
        Random rnd = new Random(seed);
        Path real = tmp.resolve("db");
        Files.createDirectories(real);
        FaultyFileSystem fs = new FaultyFileSystem();
        fs.watchPowerCuts(real);
        Workload w = new Workload(seed, KEYS, syncEvery);
        PrefixCheck model = new PrefixCheck(Map.of());
        long next = 0;
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                String where = "seed " + seed + " cycle " + cycle;
                long from = next;
                long acked = from - 1;
                long issued = from - 1;
                RemixDB db = RemixDB.open(fs.wrap(real), options(rnd));
                boolean kill = rnd.nextInt(3) == 0;
                where += kill ? " (kill)" : " (power cut)";
                timer.schedule(fs::cutPower, 20 + rnd.nextInt(400), TimeUnit.MILLISECONDS);
                try {
                    for (long i = from; i < from + 200_000; i++) {
                        Workload.Op op = w.op(i);
                        issued = i;
                        Workload.write(db, op);
                        if (op.sync()) {
                            db.sync();
                            acked = i;
                        }
                    }
                    throw new AssertionError(where + ": the power cut never came");
                } catch (IOException e) {
                    assertInjected(e, where + ": a write after the cut");
                } finally {
                    closeWithoutPower(db, where);
                }
                List<String> lost;
                if (kill) {
                    fs.resumeAfterKill();
                    lost = List.of();
                    COUNTS.add("kills", 1);
                } else {
                    lost = fs.restorePower(somePagesKept ? rnd : null);
                    COUNTS.add(somePagesKept ? "cuts keeping some unforced pages" : "cuts", 1);
                }
                COUNTS.add("files changed by a cut", lost.size());
                COUNTS.add("acknowledged ops", acked - from + 1);
                VerifyReport report = RemixDB.verify(real);
                assertTrue(report.ok(), where + ": verify after the cut " + lost + ": " + report);
                try (RemixDB again = RemixDB.open(fs.wrap(real), options(rnd))) {
                    Map<String, Long> state = PrefixCheck.read(again);
                    next = model.match(w, from, acked, issued - from + 2, state, where + " (cut undid " + lost + ")");
                }
                COUNTS.add("ops lost (not acknowledged)", issued + 1 - next);
            }
        } finally {
            timer.shutdownNow();
            fs.discardImage();
        }
    }

    private static byte[] key(long record) {
        return String.format("rec-%09d", record).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(long record) {
        return ByteBuffer.allocate(8 + (int) (record % 40)).putLong(record * 31 + 7).array();
    }

    private static final byte[] OFFSET = "offset".getBytes(StandardCharsets.UTF_8);

    /**
     * A restore (writes without the WAL, unlogged or deferred, as the Kafka store does) cut off by power: the recorded
     * offset, a logged write synced after the data, is never ahead of the data, and never behind
     * the last offset a sync acknowledged.
     */
    @Test
    void unloggedWritesKeepTheirOffsetBehindTheDataThroughAPowerCut() throws Exception {
        long seed = Long.getLong("remixdb.powerloss.seed", System.nanoTime());
        Random rnd = new Random(seed);
        Path real = tmp.resolve("restore");
        Files.createDirectories(real);
        FaultyFileSystem fs = new FaultyFileSystem();
        fs.watchPowerCuts(real);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        int batch = 100;
        long lastSynced = -1;
        try {
            for (int cycle = 0; cycle < Math.max(3, CYCLES / 2); cycle++) {
                String where = "seed " + seed + " cycle " + cycle;
                RemixDB db = RemixDB.open(fs.wrap(real), options(rnd));
                int offsetEvery = 1 + rnd.nextInt(5);
                timer.schedule(fs::cutPower, 20 + rnd.nextInt(300), TimeUnit.MILLISECONDS);
                try {
                    byte[] o = db.get(OFFSET);
                    for (long b = o == null ? 0 : ByteBuffer.wrap(o).getLong() + 1; ; b++) {
                        WriteBatch wb = new WriteBatch();
                        for (long r = b * batch; r < (b + 1) * batch; r++) {
                            wb.put(key(r), value(r));
                        }
                        // Deferred writes (sorted in when published) are as durable as unlogged ones.
                        if (rnd.nextBoolean()) {
                            db.writeDeferred(wb);
                        } else {
                            db.writeUnlogged(wb);
                        }
                        if (b % offsetEvery == 0) {
                            db.put(OFFSET, ByteBuffer.allocate(8).putLong(b).array());
                            db.sync();
                            lastSynced = b;
                        }
                    }
                } catch (IOException e) {
                    assertInjected(e, where + ": a write after the cut");
                } finally {
                    closeWithoutPower(db, where);
                }
                List<String> lost = fs.restorePower();
                COUNTS.add("restore cuts", 1);
                assertTrue(RemixDB.verify(real).ok(), where + ": verify after the cut " + lost);
                try (RemixDB again = RemixDB.open(fs.wrap(real), options(rnd))) {
                    byte[] o = again.get(OFFSET);
                    if (lastSynced >= 0) {
                        assertNotNull(o, where + ": the synced offset " + lastSynced + " was lost; the cut undid " + lost);
                    }
                    long offset = o == null ? -1 : ByteBuffer.wrap(o).getLong();
                    assertTrue(offset >= lastSynced, where + ": offset " + offset + " behind the synced " + lastSynced
                            + "; the cut undid " + lost);
                    for (long r = 0; r < (offset + 1) * batch; r++) {
                        assertArrayEquals(value(r), again.get(key(r)), where + ": record " + r + " below the offset "
                                + offset + "; the cut undid " + lost);
                    }
                    lastSynced = offset;
                }
            }
        } finally {
            timer.shutdownNow();
            fs.discardImage();
        }
    }

    /** The image itself: unforced bytes, unsynced creations and renames are undone; forced ones stay. */
    @Test
    void theImageKeepsOnlyWhatWasForced() throws Exception {
        Path real = tmp.resolve("image");
        Files.createDirectories(real);
        Files.writeString(real.resolve("old"), "old");
        FaultyFileSystem fs = new FaultyFileSystem();
        fs.watchPowerCuts(real);
        Path dir = fs.wrap(real);
        try (var ch = java.nio.channels.FileChannel.open(dir.resolve("a"), java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap("forced".getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
            ch.write(ByteBuffer.wrap("-not".getBytes(StandardCharsets.UTF_8)));
        }
        try (var ch = java.nio.channels.FileChannel.open(dir, java.nio.file.StandardOpenOption.READ)) {
            ch.force(true);  // "a" is a durable entry now
        }
        try (var ch = java.nio.channels.FileChannel.open(dir.resolve("b"), java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap("b".getBytes(StandardCharsets.UTF_8)));
            ch.force(true);  // data forced, but its entry never is
        }
        Files.move(dir.resolve("old"), dir.resolve("renamed"));  // not followed by a directory fsync
        Files.delete(dir.resolve("a"));                          // neither is this
        fs.cutPower();
        assertTrue(assertThrowsInjected(() -> Files.writeString(dir.resolve("c"), "c")));
        fs.restorePower();
        Map<String, String> files = new HashMap<>();
        try (var s = Files.list(real)) {
            for (Path p : s.toList()) {
                files.put(p.getFileName().toString(), Files.readString(p));
            }
        }
        assertTrue(files.equals(Map.of("a", "forced", "old", "old")), "after the cut: " + files);
        fs.discardImage();
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private static boolean assertThrowsInjected(IoAction a) {
        try {
            a.run();
            return false;
        } catch (IOException e) {
            assertInjected(e, "a write without power");
            return true;
        }
    }

    /** Closes a store whose disk lost power: close may fail, but only with the injected error. */
    private static void closeWithoutPower(RemixDB db, String where) {
        try {
            db.close();
        } catch (IOException e) {
            assertInjected(e, where + ": close without power");
        }
    }
}
