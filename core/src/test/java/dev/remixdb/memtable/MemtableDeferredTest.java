package dev.remixdb.memtable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link Memtable#addDeferred} and {@link Memtable#linkDeferred}: deferred entries are invisible
 * until linked, then read exactly as if added one by one with seqs in the order they came, whether
 * the link rebuilds the tree (an empty or small memtable) or inserts into it (a large one), with
 * plain adds before and after, and readers running through a link.
 */
class MemtableDeferredTest {
    private static final byte[] ALPHABET = {0x00, 0x01, 0x61, 0x7F, (byte) 0x80, (byte) 0xFF};

    /** One step: a plain add (fresh seq), or a group of deferred adds linked at the next seqs. */
    record Step(List<byte[]> keys, boolean deferred, boolean tombstones) {}

    @Property(tries = 120)
    void deferredGroupsMatchTheModel(@ForAll("steps") List<Step> steps, @ForAll boolean pointIndex,
                                     @ForAll boolean smallChunks) {
        try (Memtable m = new Memtable(smallChunks ? 4096 : Memtable.DEFAULT_CHUNK_SIZE)) {
            if (!pointIndex) {
                m.stopPointIndex();
            }
            MemtableModel model = new MemtableModel();
            List<Long> snapshots = new ArrayList<>();
            long seq = 1;
            int k = 0;
            for (Step step : steps) {
                if (!step.deferred()) {
                    for (byte[] key : step.keys()) {
                        add(m, model, key, seq++, step.tombstones() && k++ % 3 == 0, false);
                    }
                } else {
                    long first = seq;
                    for (byte[] key : step.keys()) {
                        add(m, model, key, seq++, step.tombstones() && k++ % 3 == 0, true);
                    }
                    // Not linked yet: the memtable reads as before the group.
                    new CursorChecker(m, model, first - 1).checkScans();
                    m.linkDeferred(first);
                    assertEquals(0, m.deferredCount());
                }
                snapshots.add(seq - 1);
                ((LeafTree) m.orderedIndex()).checkStructure();
            }
            List<byte[]> probes = MemtableModel.probes(model.keys());
            for (long snap : snapshots) {
                new CursorChecker(m, model, snap).checkScans();
            }
            new CursorChecker(m, model, snapshots.get(snapshots.size() / 2)).checkAll(probes);
            new CursorChecker(m, model, Long.MAX_VALUE).checkAll(probes);
            assertEquals(seq - 1, m.entryCount());
            assertEquals(seq - 1 == 0 ? -1 : seq - 1, m.maxSeq());
        }
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<byte[]> small = Arbitraries.integers().between(0, ALPHABET.length - 1).map(i -> ALPHABET[i]).list().ofMaxSize(4)
                .map(l -> {
                    byte[] key = new byte[l.size()];
                    for (int i = 0; i < key.length; i++) {
                        key[i] = l.get(i);
                    }
                    return key;
                });
        // Keys sharing a long prefix, differing after 8 or more bytes: ties in the sort's heads.
        Arbitrary<byte[]> shared = Arbitraries.integers().between(0, 5000).map(i -> ("tenant/0042/order-" + i % 97 + "/" + i).getBytes());
        Arbitrary<byte[]> keys = Arbitraries.oneOf(small, shared);
        Arbitrary<Step> step = Combinators.combine(keys.list().ofMinSize(1).ofMaxSize(300), Arbitraries.integers().between(0, 2),
                        Arbitraries.of(true, false))
                .as((ks, kind, t) -> new Step(ks, kind != 0, t));
        return step.list().ofMinSize(1).ofMaxSize(8);
    }

    /** Deep trees: 200,000 random keys linked into an empty memtable, then plain adds split its full nodes. */
    @Test
    void aLargeGroupBuildsATreeThatLaterAddsSplit() {
        SplittableRandom rnd = new SplittableRandom(77);
        try (Memtable m = new Memtable()) {
            MemtableModel model = new MemtableModel();
            long seq = 1;
            for (int i = 0; i < 200_000; i++) {
                add(m, model, randomKey(rnd), seq++, rnd.nextInt(10) == 0, true);
            }
            m.linkDeferred(1);
            LeafTree tree = (LeafTree) m.orderedIndex();
            tree.checkStructure();
            assertTrue(tree.leafCount() <= 200_000 / 64 + 1, tree.leafCount() + " leaves: a build fills them");
            long built = seq - 1;
            for (int i = 0; i < 30_000; i++) {
                add(m, model, randomKey(rnd), seq++, false, false);
            }
            tree.checkStructure();
            CursorChecker checker = new CursorChecker(m, model, Long.MAX_VALUE);
            checker.checkScans();
            new CursorChecker(m, model, built).checkScans();
            List<byte[]> sample = new ArrayList<>();
            List<byte[]> all = model.keys();
            for (int i = 0; i < all.size(); i += 997) {
                sample.add(all.get(i));
            }
            checker.checkAll(MemtableModel.probes(sample));
        }
    }

    /** A large memtable takes a small group by inserting it; a small one is rebuilt around a large group. */
    @Test
    void groupsGoInByInsertOrRebuildAlike() {
        SplittableRandom rnd = new SplittableRandom(3);
        try (Memtable m = new Memtable(1 << 20)) {
            MemtableModel model = new MemtableModel();
            long seq = 1;
            int[][] plan = {{500, 0}, {0, 20_000}, {100, 0}, {0, 300}, {5_000, 0}, {0, 40_000}};
            List<Long> snapshots = new ArrayList<>();
            for (int[] p : plan) {
                for (int i = 0; i < p[0]; i++) {
                    add(m, model, randomKey(rnd), seq++, rnd.nextInt(7) == 0, false);
                }
                long first = seq;
                for (int i = 0; i < p[1]; i++) {
                    // Some keys repeat within the group: the later one wins.
                    byte[] key = i > 0 && rnd.nextInt(5) == 0 ? model.keys().get(rnd.nextInt(model.keys().size())) : randomKey(rnd);
                    add(m, model, key, seq++, rnd.nextInt(7) == 0, true);
                }
                if (p[1] > 0) {
                    m.linkDeferred(first);
                }
                snapshots.add(seq - 1);
                ((LeafTree) m.orderedIndex()).checkStructure();
            }
            for (long snap : snapshots) {
                new CursorChecker(m, model, snap).checkScans();
            }
            assertEquals(seq - 1, m.entryCount());
        }
    }

    @Test
    void deferredEntriesAreUnseenUntilLinkedAndNeedFreshSeqs() {
        try (Memtable m = new Memtable()) {
            m.add(5, "a".getBytes(), "old".getBytes());
            m.addDeferred("a".getBytes(), "new".getBytes());
            m.addDeferred("b".getBytes(), "b1".getBytes());
            m.deleteDeferred("b".getBytes());
            assertEquals(3, m.deferredCount());
            assertEquals(1, m.entryCount());
            assertArrayEquals("old".getBytes(), m.value(m.find("a".getBytes(), Long.MAX_VALUE)));
            assertEquals(-1, m.find("b".getBytes(), Long.MAX_VALUE));
            try (MemtableCursor c = m.cursor(Long.MAX_VALUE)) {
                c.seekToFirst();
                assertArrayEquals("a".getBytes(), c.key());
                c.next();
                assertFalse(c.isValid());
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.linkDeferred(5));
            assertTrue(e.getMessage().contains("above 5"), e.getMessage());
            assertEquals(3, m.deferredCount(), "a refused link changes nothing");
            m.linkDeferred(6);
            assertArrayEquals("new".getBytes(), m.value(m.find("a".getBytes(), Long.MAX_VALUE)));
            assertArrayEquals("old".getBytes(), m.value(m.find("a".getBytes(), 5)));
            long b = m.find("b".getBytes(), Long.MAX_VALUE);
            assertTrue(m.isTombstone(b), "the later delete of b wins");
            assertEquals(8, m.seq(b));
            assertArrayEquals("b1".getBytes(), m.value(m.find("b".getBytes(), 7)));
            assertEquals(8, m.maxSeq());
            m.linkDeferred(9);  // nothing deferred: nothing happens
            assertEquals(4, m.entryCount());
        }
        try (Memtable skipList = new Memtable(4096, Memtable.IndexKind.SKIP_LIST)) {
            assertThrows(UnsupportedOperationException.class, () -> skipList.addDeferred("a".getBytes(), new byte[0]));
            assertEquals(0, skipList.dataBytes());
        }
    }

    /**
     * Readers walk and search the memtable at their snapshots while the writer links groups into it
     * (rebuilds and inserts): each sees exactly the entries at or below its snapshot.
     */
    @Test
    void readersSeeTheirSnapshotsWhileGroupsAreLinked() throws Exception {
        SplittableRandom rnd = new SplittableRandom(11);
        try (Memtable m = new Memtable();
             ExecutorService pool = Executors.newFixedThreadPool(2)) {
            MemtableModel model = new MemtableModel();
            long seq = 1;
            for (int i = 0; i < 3_000; i++) {
                add(m, model, randomKey(rnd), seq++, false, false);
            }
            long base = seq - 1;
            MemtableModel frozen = copy(model, base);
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<Integer>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> {
                    int passes = 0;
                    CursorChecker checker = new CursorChecker(m, frozen, base);
                    while (!stop.get() || passes == 0) {
                        checker.checkScans();
                        passes++;
                    }
                    return passes;
                }));
            }
            for (int group = 0; group < 12; group++) {
                long first = seq;
                int n = 1_000 + rnd.nextInt(6_000);
                for (int i = 0; i < n; i++) {
                    add(m, model, randomKey(rnd), seq++, rnd.nextInt(9) == 0, true);
                }
                m.linkDeferred(first);
            }
            stop.set(true);
            for (Future<Integer> f : readers) {
                assertTrue(f.get() > 0);
            }
            ((LeafTree) m.orderedIndex()).checkStructure();
            new CursorChecker(m, model, Long.MAX_VALUE).checkScans();
        }
    }

    private static MemtableModel copy(MemtableModel model, long upTo) {
        MemtableModel c = new MemtableModel();
        for (MemtableModel.Entry e : model.view(upTo)) {
            c.add(e.seq(), e.key(), e.value());
        }
        return c;
    }

    private static byte[] randomKey(SplittableRandom rnd) {
        byte[] k = new byte[1 + rnd.nextInt(24)];
        rnd.nextBytes(k);
        return k;
    }

    private static void add(Memtable m, MemtableModel model, byte[] key, long seq, boolean tombstone, boolean deferred) {
        byte[] value = tombstone ? null : Arrays.copyOf(key, (int) (seq % 13));
        model.add(seq, key, value);
        if (deferred) {
            if (tombstone) {
                m.deleteDeferred(key);
            } else {
                m.addDeferred(key, value);
            }
        } else if (tombstone) {
            m.delete(seq, key);
        } else {
            m.add(seq, key, value);
        }
    }
}
