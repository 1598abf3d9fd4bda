package dev.remixdb.memtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Both ordered indexes against the model on every key shape a store meets: the empty key, 64 KiB
 * keys, keys that differ only after a long shared prefix, keys of every byte value and with
 * embedded and trailing zero bytes, and one key with so many versions that they span several tree
 * leaves. Enough entries (20,000) for a tree of three levels; added in random order, with
 * seqs out of order, then checked by full scans both ways, seeks at and around every key, and
 * finds, at several snapshots.
 */
class MemtableIndexTest {

    @ParameterizedTest
    @EnumSource(Memtable.IndexKind.class)
    void everyKeyShapeMatchesTheModel(Memtable.IndexKind kind) {
        SplittableRandom rnd = new SplittableRandom(4242);
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[0]);
        for (int i = 0; i < 4; i++) {
            byte[] big = new byte[64 << 10];
            Arrays.fill(big, (byte) 0x7A);
            big[big.length - 1] = (byte) i;
            keys.add(big);
        }
        byte[] shared = "a/long/prefix/shared/by/many/keys/of/one/tenant/".getBytes();
        for (int i = 0; i < 1000; i++) {
            byte[] k = Arrays.copyOf(shared, shared.length + 1 + rnd.nextInt(12));
            for (int j = shared.length; j < k.length; j++) {
                k[j] = (byte) rnd.nextInt(256);
            }
            keys.add(k);
        }
        byte[] alphabet = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFE, (byte) 0xFF};
        for (int i = 0; i < 1500; i++) {
            byte[] k = new byte[rnd.nextInt(10)];
            for (int j = 0; j < k.length; j++) {
                k[j] = alphabet[rnd.nextInt(alphabet.length)];
            }
            keys.add(k);
        }
        byte[] hot = "the-hot-key".getBytes();
        try (Memtable m = new Memtable(1 << 20, kind)) {
            MemtableModel model = new MemtableModel();
            long[] seqs = shuffledSeqs(20_000, rnd);
            int next = 0;
            for (int i = 0; i < 700; i++) {
                add(m, model, hot, seqs[next++], rnd);
            }
            while (next < seqs.length) {
                add(m, model, keys.get(rnd.nextInt(keys.size())), seqs[next++], rnd);
            }
            assertEquals(seqs.length, m.entryCount());
            List<byte[]> probes = MemtableModel.probes(model.keys());
            for (long snapshot : new long[] {Long.MAX_VALUE, 8_000}) {
                new CursorChecker(m, model, snapshot).checkAll(probes);
            }
            checkPrefixes(m);
        }
    }

    /**
     * The root and the leftmost and rightmost nodes of each level have an open fence, so their skip
     * comes from the keys they hold. Here 20,000 keys first share a 15-byte prefix (as hex-formatted
     * numbers do), giving those nodes a large skip; then keys that break it arrive at both ends and in
     * between: shorter keys that are prefixes of the shared bytes, the empty key, keys that differ
     * in the first byte and in the last shared byte, in ascending and descending runs. Searches must
     * send each of them before or after the node's keys, and inserts must lower the skip.
     */
    @ParameterizedTest
    @EnumSource(Memtable.IndexKind.class)
    void keysBreakingASharedPrefixLandInOrder(Memtable.IndexKind kind) {
        SplittableRandom rnd = new SplittableRandom(77);
        List<byte[]> late = new ArrayList<>();
        late.add(new byte[0]);
        for (int n = 1; n <= 16; n++) {
            late.add("000000000000000".substring(0, Math.min(n, 15)).getBytes());
        }
        for (int i = 0; i < 300; i++) {
            late.add(String.format("00000000000000%02x", i % 256).getBytes());
            late.add(String.format("1%015x", i).getBytes());
            late.add(String.format("/%015x", i).getBytes());
            late.add(new byte[] {(byte) 0xFF, (byte) i});
        }
        try (Memtable m = new Memtable(1 << 20, kind)) {
            MemtableModel model = new MemtableModel();
            long seq = 1;
            for (int i = 0; i < 20_000; i++) {
                add(m, model, String.format("%016x", rnd.nextInt(1 << 20)).getBytes(), seq++, rnd);
            }
            List<byte[]> probes = MemtableModel.probes(model.keys());
            new CursorChecker(m, model, Long.MAX_VALUE).checkAll(probes);
            for (int i = 0; i < late.size(); i++) {
                add(m, model, late.get(i), seq++, rnd);
            }
            for (int i = late.size() - 1; i >= 0; i--) {
                add(m, model, late.get(i), seq++, rnd);
            }
            for (int i = 0; i < 2_000; i++) {
                add(m, model, String.format("%016x", rnd.nextInt(1 << 20)).getBytes(), seq++, rnd);
            }
            probes = MemtableModel.probes(model.keys());
            for (long snapshot : new long[] {Long.MAX_VALUE, 20_000, 20_500}) {
                new CursorChecker(m, model, snapshot).checkAll(probes);
            }
            checkPrefixes(m);
        }
    }

    /**
     * Inserts that follow each other into one leaf take a shortcut past the root (the tree's
     * repeat-leaf search). Here every pattern that exercises it and its way out: ascending keys
     * (always the rightmost leaf, split after split), descending keys (the leftmost), new versions of
     * keys just written, two interleaved ascending streams, ascending runs that restart lower, keys
     * that stop sharing the leaf's prefix, and random keys between, which must fall back to the
     * search from the root. Out-of-order seqs are mixed in (re-inserted older versions).
     */
    @ParameterizedTest
    @EnumSource(Memtable.IndexKind.class)
    void orderedAndClusteredInsertsMatchTheModel(Memtable.IndexKind kind) {
        SplittableRandom rnd = new SplittableRandom(99);
        try (Memtable m = new Memtable(1 << 20, kind)) {
            MemtableModel model = new MemtableModel();
            long seq = 1_000_000;
            for (int i = 0; i < 6_000; i++) {
                add(m, model, String.format("user%012d", i).getBytes(), seq++, rnd);
                if (i % 7 == 0) {  // a newer version of the key just written: lands before the older one
                    add(m, model, String.format("user%012d", i).getBytes(), seq++, rnd);
                }
                if (i % 13 == 0) {  // an older version of it, as a re-insert after an aborted compaction
                    add(m, model, String.format("user%012d", i).getBytes(), 1 + i, rnd);
                }
            }
            for (int i = 6_000; i > 0; i--) {
                add(m, model, String.format("aaaa%012d", i).getBytes(), seq++, rnd);
            }
            for (int i = 0; i < 4_000; i++) {
                add(m, model, String.format("s1/%010d", i).getBytes(), seq++, rnd);
                add(m, model, String.format("s2/%010d", i).getBytes(), seq++, rnd);
            }
            for (int run = 0; run < 20; run++) {
                int start = rnd.nextInt(50_000);
                for (int i = 0; i < 150; i++) {
                    add(m, model, String.format("user%012d", start + 3 * i + 1).getBytes(), seq++, rnd);
                }
                for (int i = 0; i < 20; i++) {
                    add(m, model, String.format("%016x", rnd.nextLong()).getBytes(), seq++, rnd);
                }
            }
            for (int i = 0; i < 300; i++) {  // past the shared prefix at the right edge, then before it
                add(m, model, ("user" + "9".repeat(12) + "/" + i).getBytes(), seq++, rnd);
                add(m, model, ("use" + (char) ('a' + i % 20) + i).getBytes(), seq++, rnd);
            }
            List<byte[]> probes = MemtableModel.probes(model.keys());
            for (long snapshot : new long[] {Long.MAX_VALUE, seq - 300}) {
                new CursorChecker(m, model, snapshot).checkAll(probes);
            }
            checkPrefixes(m);
        }
    }

    /**
     * Ascending inserts fill the leaves: the leaf that takes them splits off only its last entry
     * when full, where a split in half would leave every leaf behind half empty. Random inserts
     * still split in half (leaves about 70% full).
     */
    @Test
    void ascendingInsertsFillTheLeaves() {
        int n = 64 * 500;
        try (Memtable asc = new Memtable(1 << 20, Memtable.IndexKind.TREE);
             Memtable random = new Memtable(1 << 20, Memtable.IndexKind.TREE)) {
            MemtableModel model = new MemtableModel();
            SplittableRandom rnd = new SplittableRandom(5);
            for (int i = 0; i < n; i++) {
                add(asc, model, String.format("user%012d", i).getBytes(), 1 + i, rnd);
                random.add(1 + i, String.format("user%012d", rnd.nextInt(1 << 30)).getBytes(), new byte[] {1});
            }
            int ascLeaves = ((LeafTree) asc.orderedIndex()).leafCount();
            int randomLeaves = ((LeafTree) random.orderedIndex()).leafCount();
            assertTrue(ascLeaves <= n / 63 + 1, ascLeaves + " leaves for " + n + " ascending keys");
            assertTrue(randomLeaves > n / 56, randomLeaves + " leaves for " + n + " random keys");
            new CursorChecker(asc, model, Long.MAX_VALUE).checkAll(MemtableModel.probes(model.keys()));
        }
    }

    /** The tree's searches skip groups of slots by their last prefix: the prefixes must ascend. */
    private static void checkPrefixes(Memtable m) {
        if (m.orderedIndex() instanceof LeafTree tree) {
            tree.checkPrefixes();
        }
    }

    private static void add(Memtable m, MemtableModel model, byte[] key, long seq, SplittableRandom rnd) {
        boolean tombstone = rnd.nextInt(8) == 0;
        model.add(seq, key, tombstone ? null : value(seq));
        if (tombstone) {
            m.delete(seq, key);
        } else {
            m.add(seq, key, value(seq));
        }
    }

    private static long[] shuffledSeqs(int n, SplittableRandom rnd) {
        long[] s = new long[n];
        for (int i = 0; i < n; i++) {
            s[i] = i + 1;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            long t = s[i];
            s[i] = s[j];
            s[j] = t;
        }
        return s;
    }

    private static byte[] value(long seq) {
        byte[] v = new byte[(int) (seq % 40)];
        Arrays.fill(v, (byte) seq);
        return v;
    }
}
