package dev.remixdb;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Scans that read every run's next block ahead in one batch (forced on) see exactly what the model
 * holds, with a block cache of four slots so that blocks read ahead are often evicted before use
 * and reservations race the scan's own reads; on both I/O engines, and with direct I/O (every
 * block read is then widened to whole pages through a bounce buffer).
 */
class ScanReadAheadTest {
    @TempDir
    Path dir;

    @AfterEach
    void clear() {
        System.clearProperty("remixdb.scanReadAhead");
    }

    @ParameterizedTest(name = "{0}, direct I/O {1}")
    @CsvSource({"IO_URING, false", "IO_URING, true", "FILE_CHANNEL, false"})
    void scansWithReadAheadMatchTheModel(IoEngine engine, boolean direct) throws Exception {
        if (engine == IoEngine.IO_URING) {
            assumeTrue(dev.remixdb.io.IoUringBlockReader.unavailableReason() == null,
                    () -> "io_uring not available here: " + dev.remixdb.io.IoUringBlockReader.unavailableReason());
        }
        System.setProperty("remixdb.scanReadAhead", "always");
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        Options options = Options.builder().memtableBytes(16 * 1024).tableBytes(8 * 1024).blockCacheBytes(16 * 1024)
                .compactionThreads(2).ioEngine(engine).directIo(direct).build();
        long before;
        try (RemixDB db = RemixDB.open(dir, options)) {
            before = db.stats().readAheadBlocks();
            for (int round = 0; round < 8; round++) {
                for (int i = 0; i < 800; i++) {
                    CursorModelTest.write(db, model, rnd);
                }
                db.compactMemtable();
                String where = "seed " + seed + " round " + round;
                for (int w = 0; w < 40; w++) {
                    CursorModelTest.Bounds b = CursorModelTest.Bounds.random(rnd);
                    try (Cursor c = db.cursor(b.lower(), b.upper())) {
                        CursorModelTest.walk(c, b, model, rnd, where);
                    }
                }
            }
            Stats stats = db.stats();
            assertTrue(stats.readAheadBlocks() > before, "no block was read ahead: " + stats);
            assertTrue(stats.ioEngine().equals(engine == IoEngine.IO_URING ? "io_uring" : "filechannel"), stats.ioEngine());
        }
    }
}
