package dev.remixdb.remix;

import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.RemixModel.Kv;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Seeded random datasets whose keys stress what a REMIX is sensitive to: duplicates across runs,
 * the empty key, every byte value (0x00 and 0xFF sort at the ends), 100-byte shared prefixes (long
 * anchors), keys that differ around 8-byte word boundaries (word-wise comparison), tombstones,
 * empty runs, and values from 0 bytes to larger than a 4 KiB block.
 */
final class RandomRuns {
    /** 100 bytes that many keys share, so that anchors and comparisons go deep. */
    static final byte[] SHARED_PREFIX = sharedPrefix();
    private static final byte[] ALPHABET = {0x00, 0x01, 0x02, 0x61, 0x62, 0x7F, (byte) 0x80, (byte) 0xFE, (byte) 0xFF};

    private final Random rnd;
    private double tombstoneRate = 0.2;
    private double jumboRate = 0.01;

    RandomRuns(long seed) {
        this.rnd = new Random(seed);
    }

    Random random() {
        return rnd;
    }

    /** Fraction of entries written as tombstones. Default: 0.2. */
    RandomRuns tombstones(double rate) {
        this.tombstoneRate = rate;
        return this;
    }

    /** Fraction of values larger than a 4 KiB block. Default: 0.01. */
    RandomRuns jumbo(double rate) {
        this.jumboRate = rate;
        return this;
    }

    /**
     * About {@code size} distinct keys (at least 300) of every shape listed in the class comment,
     * sorted.
     */
    List<byte[]> mixedKeys(int size) {
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        keys.add(new byte[0]);
        for (int b = 0; b < 256; b++) {
            keys.add(new byte[] {(byte) b});
        }
        keys.addAll(prefixedKeys(30));
        for (int len : new int[] {7, 8, 9, 15, 16, 17}) {
            for (int last : new int[] {0x00, 0x01, 0x80, 0xFF}) {
                byte[] k = new byte[len];
                k[len - 1] = (byte) last;
                keys.add(k);
            }
        }
        while (keys.size() < size) {
            keys.add(randomKey(1 + rnd.nextInt(10)));
        }
        return new ArrayList<>(keys);
    }

    /** {@code n} distinct keys that all start with {@link #SHARED_PREFIX} (one is the prefix itself). */
    List<byte[]> prefixedKeys(int n) {
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        keys.add(SHARED_PREFIX.clone());
        while (keys.size() < n) {
            byte[] suffix = randomKey(1 + rnd.nextInt(4));
            byte[] k = Arrays.copyOf(SHARED_PREFIX, SHARED_PREFIX.length + suffix.length);
            System.arraycopy(suffix, 0, k, SHARED_PREFIX.length, suffix.length);
            keys.add(k);
        }
        return new ArrayList<>(keys);
    }

    /**
     * {@code n} distinct keys made of one of three 8-byte words followed by 0-6 more bytes, so that
     * many keys and anchors agree on a whole 8-byte word and differ only after it (the words
     * themselves, and 7-byte prefixes of them, are included).
     */
    List<byte[]> wordGroupedKeys(int n) {
        byte[] fills = {0x00, 0x61, (byte) 0xFF};
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        for (byte b : fills) {
            byte[] word = new byte[8];
            Arrays.fill(word, b);
            keys.add(word);
            keys.add(Arrays.copyOf(word, 7));
        }
        while (keys.size() < n) {
            byte[] word = new byte[8];
            Arrays.fill(word, fills[rnd.nextInt(fills.length)]);
            byte[] suffix = randomKey(1 + rnd.nextInt(6));
            byte[] k = Arrays.copyOf(word, 8 + suffix.length);
            System.arraycopy(suffix, 0, k, 8, suffix.length);
            keys.add(k);
        }
        return new ArrayList<>(keys);
    }

    /** A key of {@code length} bytes drawn from a small alphabet, so that random keys collide. */
    byte[] randomKey(int length) {
        byte[] k = new byte[length];
        for (int i = 0; i < length; i++) {
            k[i] = ALPHABET[rnd.nextInt(ALPHABET.length)];
        }
        return k;
    }

    /** A value: empty (10%), larger than a 4 KiB block ({@link #jumbo}), otherwise 1-40 bytes. */
    byte[] value() {
        double p = rnd.nextDouble();
        int size = p < 0.1 ? 0 : p < 0.1 + jumboRate ? 4097 + rnd.nextInt(4000) : 1 + rnd.nextInt(40);
        byte[] v = new byte[size];
        rnd.nextBytes(v);
        return v;
    }

    /** An entry for {@code key}: a tombstone at {@link #tombstones the tombstone rate}, else a value. */
    Kv entry(byte[] key) {
        return rnd.nextDouble() < tombstoneRate ? Kv.delete(key) : Kv.put(key, value());
    }

    /** A sorted run of {@code size} distinct keys drawn from {@code universe}. */
    List<Kv> run(List<byte[]> universe, int size) {
        List<byte[]> picked = new ArrayList<>(universe);
        Collections.shuffle(picked, rnd);
        picked = new ArrayList<>(picked.subList(0, Math.min(size, picked.size())));
        picked.sort(Arrays::compareUnsigned);
        List<Kv> run = new ArrayList<>();
        for (byte[] k : picked) {
            run.add(entry(k));
        }
        return run;
    }

    /** {@code runCount} runs of 0 to {@code maxKeys} keys each, drawn from {@code universe}. */
    Dataset runs(List<byte[]> universe, int runCount, int maxKeys) {
        List<List<Kv>> runs = new ArrayList<>();
        for (int r = 0; r < runCount; r++) {
            runs.add(run(universe, rnd.nextInt(maxKeys + 1)));
        }
        return new Dataset(runs);
    }

    private static byte[] sharedPrefix() {
        byte[] p = new byte[100];
        Arrays.fill(p, (byte) 0x5A);
        return p;
    }
}
