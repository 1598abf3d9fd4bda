package dev.remixdb.memtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * One writer adds versions with increasing seqs while readers check find() and cursors at the
 * latest published seq (and at older ones): a reader must see exactly the entries with seq at or
 * below its snapshot, all of which were published before it started, each one complete (values are
 * a function of key and seq, so a torn entry shows). For both ordered indexes, with short keys and
 * with keys behind a long shared prefix (the tree's nodes then compare bytes after the prefix);
 * 60,000 entries make a tree of three levels, so readers race leaf and inner-node splits.
 */
class MemtableConcurrencyTest {
    private static final int OPS = 60_000;
    private static final int KEYS = 1_000;
    private static final int READERS = 3;
    private static final int MAX_READER_ROUNDS = 5_000;

    /** What the writer adds: op i has seq i + 1. */
    private final int[] keyOf = new int[OPS];
    private final boolean[] tombstone = new boolean[OPS];
    /** Per key index, ascending seqs of its versions. */
    private final long[][] seqsOf = new long[KEYS][];
    private final byte[][] keys = new byte[KEYS][];
    /** Key indexes in key order. */
    private final Integer[] sorted = new Integer[KEYS];
    private final Map<ByteBuffer, Integer> indexOf = new HashMap<>();

    static Stream<Arguments> indexesAndKeys() {
        return Stream.of(Arguments.of(Memtable.IndexKind.TREE, ""), Arguments.of(Memtable.IndexKind.TREE, LONG_PREFIX),
                Arguments.of(Memtable.IndexKind.SKIP_LIST, ""));
    }

    private static final String LONG_PREFIX = "tenant-000042/orders/2026-11-23/";

    @ParameterizedTest
    @MethodSource("indexesAndKeys")
    void readersSeeExactlyTheirSnapshotWhileOneWriterAdds(Memtable.IndexKind kind, String prefix) throws Exception {
        generate(new SplittableRandom(2024), prefix);
        AtomicLong published = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch readersStarted = new CountDownLatch(READERS);
        CountDownLatch readersCheckedMidway = new CountDownLatch(READERS);
        try (Memtable m = new Memtable(256 << 10, kind)) {
            Thread writer = new Thread(() -> {
                try {
                    readersStarted.await(10, TimeUnit.SECONDS);
                    for (int i = 0; i < OPS; i++) {
                        if (tombstone[i]) {
                            m.delete(i + 1, keys[keyOf[i]]);
                        } else {
                            m.add(i + 1, keys[keyOf[i]], value(keyOf[i], i + 1));
                        }
                        published.set(i + 1);
                        if (i == OPS / 2) {
                            // Guarantees that every reader checks a half-built memtable, whatever the scheduling.
                            readersCheckedMidway.await(10, TimeUnit.SECONDS);
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            });
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < READERS; r++) {
                long seed = r;
                readers.add(new Thread(() -> {
                    try {
                        read(m, published, new SplittableRandom(seed), readersStarted, readersCheckedMidway);
                    } catch (Throwable t) {
                        failures.add(t);
                        readersStarted.countDown();
                        readersCheckedMidway.countDown();
                    }
                }));
            }
            readers.forEach(Thread::start);
            writer.start();
            writer.join();
            for (Thread t : readers) {
                t.join();
            }
            if (!failures.isEmpty()) {
                AssertionError e = new AssertionError("reader or writer failed");
                failures.forEach(e::addSuppressed);
                throw e;
            }
            assertEquals(OPS, m.entryCount());
            checkSnapshot(m, OPS, new SplittableRandom(1));
        }
    }

    private void read(Memtable m, AtomicLong published, SplittableRandom random,
                      CountDownLatch started, CountDownLatch midway) {
        started.countDown();
        boolean countedMidway = false;
        for (int round = 0; round < MAX_READER_ROUNDS; round++) {
            long snapshot = published.get();
            checkSnapshot(m, snapshot, random);
            checkSnapshot(m, random.nextLong(snapshot + 1), random);
            for (int i = 0; i < 50; i++) {
                checkNewest(m, published.get());
            }
            if (!countedMidway && snapshot > OPS / 2 - 1) {
                midway.countDown();
                countedMidway = true;
            }
            if (snapshot == OPS) {
                break;
            }
        }
        if (!countedMidway) {
            midway.countDown();
        }
    }

    /** find() for some keys, then a full forward scan or a seek with steps both ways. */
    private void checkSnapshot(Memtable m, long snapshot, SplittableRandom random) {
        for (int i = 0; i < 20; i++) {
            int k = random.nextInt(KEYS);
            long seq = visible(k, snapshot);
            long node = m.find(keys[k], snapshot);
            if (seq < 0) {
                assertEquals(-1, node, "key " + k + " at " + snapshot);
            } else {
                assertTrue(node >= 0, "key " + k + " at " + snapshot);
                assertEquals(seq, m.seq(node));
                assertEntry(m.isTombstone(node), m.valueSegment(node), k, seq);
            }
        }
        try (MemtableCursor c = m.cursor(snapshot)) {
            if (random.nextInt(4) == 0) {
                c.seekToFirst();
                for (int i = 0; i < KEYS; i++) {
                    checkCursorAt(c, sorted[i], snapshot);
                    if (visible(sorted[i], snapshot) >= 0) {
                        c.next();
                    }
                }
                assertFalse(c.isValid(), "scan at " + snapshot + " should end");
            } else {
                int start = random.nextInt(KEYS);
                c.seek(keys[sorted[start]]);
                int i = start;
                while (i < KEYS && visible(sorted[i], snapshot) < 0) {
                    i++;
                }
                if (i == KEYS) {
                    assertFalse(c.isValid());
                    return;
                }
                int steps = 0;
                for (; steps < 5 && c.isValid(); steps++) {
                    checkCursorAt(c, sorted[i], snapshot);
                    c.next();
                    do {
                        i++;
                    } while (i < KEYS && visible(sorted[i], snapshot) < 0);
                }
                c.seekForPrev(keys[sorted[Math.min(i, KEYS - 1)]]);
                if (i == KEYS) {
                    i--;
                }
                while (i >= 0 && visible(sorted[i], snapshot) < 0) {
                    i--;
                }
                for (int back = 0; back < steps + 2 && i >= 0; back++) {
                    checkCursorAt(c, sorted[i], snapshot);
                    c.prev();
                    do {
                        i--;
                    } while (i >= 0 && visible(sorted[i], snapshot) < 0);
                }
                if (i < 0) {
                    assertFalse(c.isValid());
                }
            }
        }
    }

    /**
     * Looks at the entries around the key being added right now, at the newest snapshot: whatever
     * is linked in must be whole (a known key, in order, with its value), and nothing older than
     * what was published may show.
     */
    private void checkNewest(Memtable m, long published) {
        int inFlight = (int) Math.min(published, OPS - 1);
        try (MemtableCursor c = m.cursor(Long.MAX_VALUE)) {
            c.seekForPrev(keys[keyOf[inFlight]]);
            if (!c.isValid()) {
                c.seekToFirst();
            }
            byte[] previous = null;
            for (int step = 0; step < 3 && c.isValid(); step++, c.next()) {
                byte[] key = c.key();
                Integer k = indexOf.get(ByteBuffer.wrap(key));
                assertTrue(k != null, () -> "unknown key " + MemtableModel.hex(key) + " near op " + inFlight);
                assertTrue(previous == null || Arrays.compareUnsigned(previous, key) < 0, "keys out of order");
                long seq = c.seq();
                assertTrue(seq >= 1 && seq <= OPS && keyOf[(int) seq - 1] == k, "seq " + seq + " is not a version of key " + k);
                assertTrue(seq >= visible(k, published), "key " + k + " shows seq " + seq + " older than published");
                assertEntry(c.isTombstone(), c.valueSegment().asSlice(c.valueOffset(), c.valueLength()), k, seq);
                previous = key;
            }
        }
    }

    /** Checks the cursor is at key index k if k is visible at the snapshot (and does nothing otherwise). */
    private void checkCursorAt(MemtableCursor c, int k, long snapshot) {
        long seq = visible(k, snapshot);
        if (seq < 0) {
            return;
        }
        assertTrue(c.isValid(), "key " + k + " missing at " + snapshot);
        assertEquals(-1, MemorySegment.ofArray(keys[k]).mismatch(c.keySegment().asSlice(c.keyOffset(), c.keyLength())),
                "key " + k + " at " + snapshot);
        assertEquals(seq, c.seq(), "key " + k + " at " + snapshot);
        assertEntry(c.isTombstone(), c.valueSegment().asSlice(c.valueOffset(), c.valueLength()), k, seq);
    }

    private void assertEntry(boolean isTombstone, MemorySegment value, int k, long seq) {
        int op = (int) seq - 1;
        assertEquals(tombstone[op], isTombstone, "tombstone flag of key " + k + " seq " + seq);
        byte[] expected = tombstone[op] ? new byte[0] : value(k, seq);
        assertEquals(-1, MemorySegment.ofArray(expected).mismatch(value), "value of key " + k + " seq " + seq);
    }

    /** The newest seq of key k at or below the snapshot, or -1. */
    private long visible(int k, long snapshot) {
        long[] seqs = seqsOf[k];
        int i = Arrays.binarySearch(seqs, snapshot);
        if (i >= 0) {
            return seqs[i];
        }
        int below = -i - 2;
        return below >= 0 ? seqs[below] : -1;
    }

    private static byte[] value(int k, long seq) {
        SplittableRandom r = new SplittableRandom(k * 1_000_003L + seq);
        byte[] v = new byte[r.nextInt(120)];
        r.nextBytes(v);
        return v;
    }

    private void generate(SplittableRandom random, String prefix) {
        List<List<Long>> versions = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            // Multiplying by an odd constant is a bijection on int: distinct keys, scattered in key order.
            keys[k] = (prefix + "key-" + Integer.toHexString(k * 0x9E3779B1) + "-".repeat(k % 7))
                    .getBytes(StandardCharsets.US_ASCII);
            indexOf.put(ByteBuffer.wrap(keys[k]), k);
            versions.add(new ArrayList<>());
            sorted[k] = k;
        }
        for (int i = 0; i < OPS; i++) {
            keyOf[i] = random.nextInt(KEYS);
            tombstone[i] = random.nextInt(10) == 0;
            versions.get(keyOf[i]).add(i + 1L);
        }
        for (int k = 0; k < KEYS; k++) {
            seqsOf[k] = versions.get(k).stream().mapToLong(Long::longValue).toArray();
        }
        Arrays.sort(sorted, (a, b) -> Arrays.compareUnsigned(keys[a], keys[b]));
    }
}
