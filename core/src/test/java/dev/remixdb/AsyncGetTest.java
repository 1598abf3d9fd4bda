package dev.remixdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link RemixDB#getAsync}, {@link RemixDB#multiGetAsync} and {@link RemixDB#multiGet} against a
 * model and against {@link RemixDB#get}, on a store whose block cache holds four blocks, so that
 * almost every lookup misses and goes through the asynchronous fetch; on both I/O engines and with
 * direct I/O. Also: closed stores, cancelled futures, bad keys.
 */
class AsyncGetTest {
    @TempDir
    Path dir;

    private static Options options(IoEngine engine, boolean direct) {
        return Options.builder().memtableBytes(16 * 1024).tableBytes(8 * 1024).blockCacheBytes(16 * 1024)
                .compactionThreads(2).ioEngine(engine).directIo(direct).build();
    }

    private static void assumeEngine(IoEngine engine) {
        if (engine == IoEngine.IO_URING) {
            String why = dev.remixdb.io.IoUringBlockReader.unavailableReason();
            assumeTrue(why == null, () -> "io_uring not available here: " + why);
        }
    }

    private static byte[] key(int i) {
        return String.format("key%06d", i).getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0}, direct I/O {1}")
    @CsvSource({"IO_URING, false", "IO_URING, true", "FILE_CHANNEL, false"})
    void asyncLookupsMatchTheModelAndTheBlockingGet(IoEngine engine, boolean direct) throws Exception {
        assumeEngine(engine);
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        NavigableMap<byte[], byte[]> model = new TreeMap<>(Arrays::compareUnsigned);
        try (RemixDB db = RemixDB.open(dir, options(engine, direct))) {
            for (int round = 0; round < 6; round++) {
                for (int i = 0; i < 1500; i++) {
                    byte[] k = key(rnd.nextInt(3000));
                    if (rnd.nextInt(10) == 0) {
                        db.delete(k);
                        model.remove(k);
                    } else {
                        byte[] v = new byte[1 + rnd.nextInt(300)];
                        rnd.nextBytes(v);
                        db.put(k, v);
                        model.put(k, v);
                    }
                }
                if (round % 2 == 1) {
                    db.compactMemtable();
                }
                String where = "seed " + seed + " round " + round;
                List<byte[]> keys = new ArrayList<>();
                List<CompletableFuture<byte[]>> singles = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    byte[] k = key(rnd.nextInt(3200));
                    keys.add(k);
                    singles.add(db.getAsync(k));  // 200 in flight at once
                }
                List<byte[]> batch = db.multiGetAsync(keys).get(30, TimeUnit.SECONDS);
                List<byte[]> blocking = db.multiGet(keys);
                for (int i = 0; i < keys.size(); i++) {
                    byte[] expected = model.get(keys.get(i));
                    String what = where + " key " + new String(keys.get(i), StandardCharsets.UTF_8);
                    assertArrayEquals(expected, singles.get(i).get(30, TimeUnit.SECONDS), what + " getAsync");
                    assertArrayEquals(expected, batch.get(i), what + " multiGetAsync");
                    assertArrayEquals(expected, blocking.get(i), what + " multiGet");
                    assertArrayEquals(expected, db.get(keys.get(i)), what + " get");
                }
            }
        }
    }

    @Test
    void aLookupSeesTheStoreAsOfItsCall() throws Exception {
        try (RemixDB db = RemixDB.open(dir, options(IoEngine.AUTO, false))) {
            for (int i = 0; i < 3000; i++) {
                db.put(key(i), ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            db.compactMemtable();
            CompletableFuture<List<byte[]>> f = db.multiGetAsync(List.of(key(1), key(2999), key(5000)));
            db.put(key(1), "changed".getBytes(StandardCharsets.UTF_8));
            List<byte[]> got = f.get(30, TimeUnit.SECONDS);
            assertTrue(Arrays.equals("v1".getBytes(StandardCharsets.UTF_8), got.get(0))
                    || Arrays.equals("changed".getBytes(StandardCharsets.UTF_8), got.get(0)), "neither value");
            assertArrayEquals("v2999".getBytes(StandardCharsets.UTF_8), got.get(1));
            assertNull(got.get(2));
            assertThrows(UnsupportedOperationException.class, () -> got.set(0, null));
            assertArrayEquals("changed".getBytes(StandardCharsets.UTF_8), db.getAsync(key(1)).get());
        }
    }

    @Test
    void closedStoresCancelledFuturesAndBadKeys() throws Exception {
        RemixDB db = RemixDB.open(dir, options(IoEngine.AUTO, false));
        for (int i = 0; i < 3000; i++) {
            db.put(key(i), new byte[200]);
        }
        db.compactMemtable();
        List<CompletableFuture<byte[]>> futures = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            CompletableFuture<byte[]> f = db.getAsync(key(i * 6 % 3000));
            if (i % 2 == 0) {
                f.cancel(false);
            }
            futures.add(f);
        }
        assertThrows(IllegalArgumentException.class, () -> db.getAsync(null));
        assertThrows(IllegalArgumentException.class, () -> db.multiGet(null));
        assertThrows(IllegalArgumentException.class, () -> db.multiGetAsync(Arrays.asList(key(1), null)));
        // close() waits for the lookups under way, cancelled ones included: none may keep it waiting.
        assertTimeoutPreemptively(Duration.ofSeconds(60), db::close);
        for (int i = 1; i < futures.size(); i += 2) {
            // Each completes, normally, right after the reads it waited for (which close waited for).
            assertArrayEquals(new byte[200], futures.get(i).get(10, TimeUnit.SECONDS), "lookup " + i);
        }
        CompletionException e = assertThrows(CompletionException.class, () -> db.getAsync(key(1)).join());
        assertInstanceOf(ClosedException.class, e.getCause());
        assertThrows(ClosedException.class, () -> db.multiGet(List.of(key(1))));
    }
}
