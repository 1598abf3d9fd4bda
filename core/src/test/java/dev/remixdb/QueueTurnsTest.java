package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Calls that take a turn in the write queue without writing ({@code compactMemtable}'s freeze, a
 * {@code sync} that first persists unlogged writes, a checkpoint's moment) among busy writers: each
 * must do its own work at its turn, never ride along in a writer's group (where, as an empty record,
 * it failed the group and stopped the store).
 */
class QueueTurnsTest {
    @TempDir
    Path dir;

    @Test
    void turnsAmongWritersDoTheirWork() throws Exception {
        Options options = Options.builder().memtableBytes(256 * 1024).tableBytes(32 * 1024).blockCacheBytes(1 << 20)
                .build();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong written = new AtomicLong();
        try (RemixDB db = RemixDB.open(dir.resolve("store"), options)) {
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int id = t;
                writers.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (long i = 0; !stop.get(); i++) {
                            byte[] k = ("t" + id + "-" + (i % 5000)).getBytes(StandardCharsets.UTF_8);
                            if (id == 2 && i % 3 == 0) {
                                WriteBatch wb = new WriteBatch();
                                wb.put(k, k);
                                db.writeUnlogged(wb);
                            } else {
                                db.put(k, k);
                            }
                            written.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (int round = 0; round < 20 && failure.get() == null; round++) {
                db.sync();
                db.compactMemtable();
                db.checkpoint(dir.resolve("cp-" + round));
            }
            stop.set(true);
            for (Thread t : writers) {
                t.join();
            }
            assertNull(failure.get());
            assertTrue(written.get() > 0);
            byte[] k = "t0-1".getBytes(StandardCharsets.UTF_8);
            assertArrayEquals(k, db.get(k));
        }
    }
}
