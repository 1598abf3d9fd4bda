package dev.remixdb.reliability;

import dev.remixdb.ClosedException;
import dev.remixdb.Cursor;
import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.Snapshot;
import dev.remixdb.WriteBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Bad input, end to end (issue 6): null, empty and oversized keys and values at the exact limits,
 * keys with every byte value, very long shared prefixes, a million keys behind one 60-byte prefix,
 * values of 0 B and 64 MiB, and every use of a closed store. What the store must do
 * ({@link RemixDB}'s class Javadoc): bad input raises {@link IllegalArgumentException} naming what is
 * wrong and changes nothing; use after close raises {@link ClosedException}; keys order as unsigned
 * bytes. Each accepted case is checked again after {@code compactMemtable()} and after a reopen,
 * where the data comes back from the WAL or from tables.
 *
 * <p>Random data comes from a seed printed in every failure message; rerun one with
 * {@code -Dremixdb.seed=<seed>}.
 */
class BadInputTest {
    private static final Counts COUNTS = new Counts("bad-input");
    private static final long SEED = Long.getLong("remixdb.seed", System.nanoTime());
    private static final int MAX_KEY = Options.MAX_KEY_BYTES;
    private static final int MAX_VALUE = Options.MAX_VALUE_BYTES;

    @TempDir
    Path tmp;

    @AfterAll
    static void report() {
        COUNTS.report();
    }

    private static Options small() {
        return Options.builder().memtableBytes(1 << 20).tableBytes(256 << 10).blockCacheBytes(8 << 20).build();
    }

    private static NavigableMap<byte[], byte[]> model() {
        return new TreeMap<>(Arrays::compareUnsigned);
    }

    // ------------------------------------------------------------------ null, empty, limits

    @Test
    void nullKeysAndValuesAreRefusedAndChangeNothing() throws Exception {
        Path dir = tmp.resolve("db");
        NavigableMap<byte[], byte[]> model = model();
        try (RemixDB db = RemixDB.open(dir, small())) {
            byte[] k = bytes("k");
            byte[] v = bytes("v");
            accept(model, db, k, v);
            refused("put(null, v)", () -> db.put(null, v), "key", "null");
            refused("put(k, null)", () -> db.put(k, null), "value", "null");
            refused("delete(null)", () -> db.delete(null), "key", "null");
            refused("get(null)", () -> db.get(null), "key", "null");
            refused("write(null)", () -> db.write(null), "batch", "null");
            refused("compute(null, fn)", () -> db.compute(null, old -> v), "key", "null");
            refused("compute(k, null)", () -> db.compute(k, null), "function", "null");
            refused("merge(k, null, fn)", () -> db.merge(k, null, (a, b) -> a), "value", "null");
            refused("putIfAbsent(k, null)", () -> db.putIfAbsent(k, null), "value", "null");
            refused("putIfAbsent(null, v)", () -> db.putIfAbsent(null, v), "key", "null");
            refused("asMap(null, codec)", () -> db.asMap(null, null), "codec", "null");
            try (Cursor c = db.cursor()) {
                refused("cursor.seek(null)", () -> c.seek(null), "key", "null");
                refused("cursor.seekForPrev(null)", () -> c.seekForPrev(null), "key", "null");
            }
            try (Snapshot s = db.snapshot()) {
                refused("snapshot.get(null)", () -> s.get(null), "key", "null");
            }
            WriteBatch batch = new WriteBatch().put(bytes("b1"), v);
            refused("batch.put(null, v)", () -> batch.put(null, v), "key", "null");
            refused("batch.put(k, null)", () -> batch.put(k, null), "value", "null");
            refused("batch.delete(null)", () -> batch.delete(null), "key", "null");
            assertEquals(1, batch.size(), "a refused add leaves the batch as it was");
            // The map view follows java.util.Map: null keys and values are a NullPointerException.
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            refusedNpe("map.put(null, v)", () -> map.put(null, v));
            refusedNpe("map.put(k, null)", () -> map.put(k, null));
            refusedNpe("map.get(null)", () -> map.get(null));
            refusedNpe("map.remove(null)", () -> map.remove(null));
            refusedNpe("map.putIfAbsent(null, v)", () -> map.putIfAbsent(null, v));
            refusedNpe("map.containsKey(null)", () -> map.containsKey(null));
            assertContent(db, model, "after null inputs");
            db.write(batch);
            model.put(bytes("b1"), v);
            assertContent(db, model, "after the batch whose bad adds were refused");
            accepted();
        }
        reopenAndCheck(dir, model, "null inputs");
    }

    @Test
    void emptyKeyAndEmptyValueAreOrdinaryData() throws Exception {
        Path dir = tmp.resolve("db");
        NavigableMap<byte[], byte[]> model = model();
        try (RemixDB db = RemixDB.open(dir, small())) {
            accept(model, db, new byte[0], bytes("value of the empty key"));
            accept(model, db, bytes("empty value"), new byte[0]);
            accept(model, db, new byte[] {0}, new byte[0]);
            byte[] got = db.get(bytes("empty value"));
            assertNotNull(got, "an empty value is present, not absent");
            assertEquals(0, got.length);
            try (Cursor c = db.cursor()) {
                c.seekToFirst();
                assertTrue(c.isValid());
                assertArrayEquals(new byte[0], c.key(), "the empty key sorts first");
            }
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            assertArrayEquals(new byte[0], map.firstKey());
            assertEquals(0, map.get(bytes("empty value")).length);
            assertContent(db, model, "empty key and value");
            db.compactMemtable();
            assertContent(db, model, "empty key and value, after compaction");
        }
        reopenAndCheck(dir, model, "empty key and value");
        try (RemixDB db = RemixDB.open(dir, small())) {
            db.delete(new byte[0]);
            model.remove(new byte[0]);
            assertNull(db.get(new byte[0]));
            accepted();
        }
        reopenAndCheck(dir, model, "empty key deleted");
    }

    @Test
    void keysAtTheLimitPassAndOneByteMoreIsRefusedEverywhere() throws Exception {
        Path dir = tmp.resolve("db");
        NavigableMap<byte[], byte[]> model = model();
        byte[] max = filled(MAX_KEY, (byte) 'k');
        byte[] over = filled(MAX_KEY + 1, (byte) 'k');
        byte[] v = bytes("v");
        String overLen = String.valueOf(MAX_KEY + 1);
        try (RemixDB db = RemixDB.open(dir, small())) {
            accept(model, db, bytes("a"), v);
            accept(model, db, max, bytes("max key"));
            refused("put(over, v)", () -> db.put(over, v), "key", overLen);
            refused("delete(over)", () -> db.delete(over), "key", overLen);
            refused("get(over)", () -> db.get(over), "key", overLen);
            refused("compute(over)", () -> db.compute(over, old -> v), "key", overLen);
            refused("putIfAbsent(over)", () -> db.putIfAbsent(over, v), "key", overLen);
            refused("merge(over)", () -> db.merge(over, v, (a, b) -> b), "key", overLen);
            refused("compareAndSet(over)", () -> db.compareAndSet(over, null, v), "key", overLen);
            WriteBatch batch = new WriteBatch().put(bytes("b"), v).delete(bytes("a"));
            long bytesBefore = batch.byteSize();
            refused("batch.put(over)", () -> batch.put(over, v), "key", overLen);
            refused("batch.delete(over)", () -> batch.delete(over), "key", overLen);
            assertEquals(2, batch.size(), "refused adds leave the batch as it was");
            assertEquals(bytesBefore, batch.byteSize());
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            refused("map.put(over)", () -> map.put(over, v), "key", overLen);
            refused("map.putIfAbsent(over)", () -> map.putIfAbsent(over, v), "key", overLen);
            assertContent(db, model, "after oversized keys");
            // The limit key through the batch and the map, too.
            byte[] max2 = max.clone();
            max2[MAX_KEY - 1] = 'j';
            db.write(batch.put(max2, bytes("max key in a batch")));
            model.put(bytes("b"), v);
            model.remove(bytes("a"));
            model.put(max2, bytes("max key in a batch"));
            byte[] max3 = max.clone();
            max3[0] = 'a';
            map.put(max3, bytes("max key through the map"));
            model.put(max3, bytes("max key through the map"));
            accepted();
            accepted();
            assertContent(db, model, "limit keys");
            db.compactMemtable();
            assertContent(db, model, "limit keys after compaction");
            db.delete(max);
            model.remove(max);
            accepted();
            assertContent(db, model, "limit key deleted");
        }
        reopenAndCheck(dir, model, "limit keys");
    }

    @Test
    void valuesAtTheLimitPassAndOneByteMoreIsRefusedEverywhere() throws Exception {
        Path dir = tmp.resolve("db");
        NavigableMap<byte[], byte[]> model = model();
        byte[] k = bytes("k");
        String overLen = String.valueOf(MAX_VALUE + 1);
        try (RemixDB db = RemixDB.open(dir, small())) {
            accept(model, db, k, bytes("small"));
            byte[] over = new byte[MAX_VALUE + 1];
            refused("put(k, over)", () -> db.put(k, over), "value", overLen);
            refused("put(new, over)", () -> db.put(bytes("new"), over), "value", overLen);
            refused("putIfAbsent(new, over)", () -> db.putIfAbsent(bytes("new"), over), "value", overLen);
            refused("merge(k, over)", () -> db.merge(k, over, (a, b) -> b), "value", overLen);
            refused("compareAndSet(k, small, over)", () -> db.compareAndSet(k, bytes("small"), over), "value",
                    overLen);
            refused("compute(k) -> over", () -> db.compute(k, old -> over), "value", overLen);
            refused("merge(k) -> over", () -> db.merge(k, bytes("x"), (a, b) -> over), "value", overLen);
            WriteBatch batch = new WriteBatch().put(bytes("b"), bytes("in batch"));
            refused("batch.put(k, over)", () -> batch.put(k, over), "value", overLen);
            assertEquals(1, batch.size());
            ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
            refused("map.put(k, over)", () -> map.put(k, over), "value", overLen);
            refused("map.replace(k, over)", () -> map.replace(k, over), "value", overLen);
            assertContent(db, model, "after oversized values");
            db.write(batch);
            model.put(bytes("b"), bytes("in batch"));
            accepted();
            assertContent(db, model, "after the batch");
        }
        reopenAndCheck(dir, model, "oversized values refused");
    }

    /** One 64 MiB value at a time: the expected bytes are regenerated from the seed, not kept. */
    @Test
    void zeroByteAndLimitSizeValuesComeBackExactly() throws Exception {
        Path dir = tmp.resolve("db");
        byte[] bigKey = bytes("big");
        byte[] emptyKey = bytes("empty");
        byte[] nextKey = bytes("c-after-big");
        try (RemixDB db = RemixDB.open(dir)) {
            db.put(emptyKey, new byte[0]);
            db.put(bigKey, pattern(MAX_VALUE, SEED));
            db.put(nextKey, bytes("after"));
            accepted();
            checkBig(db, bigKey, SEED, "memtable");
            assertArrayEquals(new byte[0], db.get(emptyKey));
        }
        try (RemixDB db = RemixDB.open(dir)) {
            checkBig(db, bigKey, SEED, "after reopen (WAL replay)");
            assertArrayEquals(new byte[0], db.get(emptyKey));
            db.compactMemtable();
            checkBig(db, bigKey, SEED, "after compaction");
            assertArrayEquals(new byte[0], db.get(emptyKey));
            assertArrayEquals(bytes("after"), db.get(nextKey));
            try (Cursor c = db.cursor()) {
                c.seek(bigKey);
                assertTrue(c.isValid());
                assertArrayEquals(bigKey, c.key());
                assertPattern(c.value(), SEED, "cursor value after compaction");
                c.next();
                assertArrayEquals(nextKey, c.key(), "the key after a 64 MiB value");
            }
        }
        long seed2 = SEED + 1;
        try (RemixDB db = RemixDB.open(dir)) {
            checkBig(db, bigKey, SEED, "after reopen (tables)");
            // Overwrite in a batch with another 64 MiB value, then compact again.
            db.write(new WriteBatch().put(bigKey, pattern(MAX_VALUE, seed2)).put(emptyKey, new byte[0]));
            accepted();
            checkBig(db, bigKey, seed2, "overwritten in a batch");
            db.compactMemtable();
            checkBig(db, bigKey, seed2, "overwritten, after compaction");
        }
        try (RemixDB db = RemixDB.open(dir)) {
            checkBig(db, bigKey, seed2, "overwritten, after reopen");
            assertArrayEquals(new byte[0], db.get(emptyKey));
            db.delete(bigKey);
            assertNull(db.get(bigKey));
        }
        try (RemixDB db = RemixDB.open(dir)) {
            assertNull(db.get(bigKey), "a deleted 64 MiB value stays deleted after reopen");
            assertArrayEquals(new byte[0], db.get(emptyKey));
        }
    }

    private static void checkBig(RemixDB db, byte[] key, long seed, String when) {
        byte[] got = db.get(key);
        assertNotNull(got, "64 MiB value missing " + when + " (seed " + SEED + ")");
        assertPattern(got, seed, when);
    }

    private static void assertPattern(byte[] got, long seed, String when) {
        byte[] want = pattern(MAX_VALUE, seed);
        assertEquals(want.length, got.length, "length of the 64 MiB value " + when);
        int at = Arrays.mismatch(want, got);
        assertEquals(-1, at, "64 MiB value differs at byte " + at + " " + when + " (seed " + SEED + ")");
    }

    // ------------------------------------------------------------------ byte values and order

    @Test
    void keysWithEveryByteValueOrderAsUnsignedBytes() throws Exception {
        SplittableRandom rnd = new SplittableRandom(SEED);
        NavigableMap<byte[], byte[]> model = model();
        List<byte[]> keys = new ArrayList<>();
        for (int b = 0; b < 256; b++) {
            keys.add(new byte[] {(byte) b});
        }
        for (int len : new int[] {2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 4096}) {
            keys.add(filled(len, (byte) 0x00));
            keys.add(filled(len, (byte) 0xFF));
            keys.add(filled(len, (byte) 0x7F));
            keys.add(filled(len, (byte) 0x80));
        }
        byte[] edges = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFE, (byte) 0xFF};
        for (byte a : edges) {
            for (byte b : edges) {
                keys.add(new byte[] {a, b});
                keys.add(new byte[] {a, b, a});
            }
        }
        for (int i = 0; i < 3000; i++) {
            byte[] key = new byte[rnd.nextInt(41)];
            for (int j = 0; j < key.length; j++) {
                key[j] = rnd.nextInt(3) == 0 ? edges[rnd.nextInt(edges.length)] : (byte) rnd.nextInt(256);
            }
            keys.add(key);
        }
        Path dir = tmp.resolve("db");
        try (RemixDB db = RemixDB.open(dir, small())) {
            for (byte[] key : keys) {
                byte[] value = valueFor(key);
                db.put(key, value);
                model.put(key, value);
                COUNTS.add("cases", 1);
                COUNTS.add("accepted", 1);
            }
            assertContent(db, model, "binary keys in the memtable");
            checkSeeks(db, model, rnd, "binary keys in the memtable");
            db.compactMemtable();
            assertContent(db, model, "binary keys after compaction");
            checkSeeks(db, model, rnd, "binary keys after compaction");
            // Delete a third (tombstones of odd keys go through the same order), then reopen.
            int i = 0;
            for (byte[] key : keys) {
                if (i++ % 3 == 0) {
                    db.delete(key);
                    model.remove(key);
                }
            }
            assertContent(db, model, "binary keys after deletes");
        }
        reopenAndCheck(dir, model, "binary keys");
        try (RemixDB db = RemixDB.open(dir, small())) {
            db.compactMemtable();
            assertContent(db, model, "binary keys, deletes compacted");
            checkSeeks(db, model, rnd, "binary keys, deletes compacted");
        }
    }

    /**
     * Keys of 64 KiB that differ only in their last byte, and prefixes of one another down to the
     * empty key: the REMIX anchors and the table blocks hold such keys whole.
     */
    @Test
    void veryLongSharedPrefixes() throws Exception {
        SplittableRandom rnd = new SplittableRandom(SEED);
        byte[] base = new byte[MAX_KEY];
        for (int i = 0; i < base.length; i++) {
            base[i] = switch (rnd.nextInt(4)) {
                case 0 -> 0;
                case 1 -> (byte) 0xFF;
                default -> (byte) rnd.nextInt(256);
            };
        }
        NavigableMap<byte[], byte[]> model = model();
        List<byte[]> keys = new ArrayList<>();
        for (int b = 0; b < 256; b++) {
            if (b % 5 == 0 || b == 1 || b == 0x7F || b == 0x80 || b == 0xFE || b == 0xFF) {
                byte[] key = base.clone();
                key[MAX_KEY - 1] = (byte) b;
                keys.add(key);
            }
        }
        for (int len : new int[] {0, 1, 2, 3, 100, 1000, 4095, 4096, 4097, 32767, 32768, 65533, 65534, 65535}) {
            keys.add(Arrays.copyOf(base, len));
            byte[] bumped = Arrays.copyOf(base, len + 1);
            bumped[len] = (byte) 0xFF;
            keys.add(bumped);
            byte[] zero = Arrays.copyOf(base, len + 1);
            zero[len] = 0;
            keys.add(zero);
        }
        keys.add(filled(MAX_KEY, (byte) 0xFF));
        keys.add(filled(MAX_KEY - 1, (byte) 0xFF));
        keys.add(filled(MAX_KEY, (byte) 0x00));
        keys.add(filled(MAX_KEY - 1, (byte) 0x00));
        Path dir = tmp.resolve("db");
        Options options = Options.builder().memtableBytes(4 << 20).tableBytes(1 << 20).build();
        try (RemixDB db = RemixDB.open(dir, options)) {
            for (byte[] key : keys) {
                byte[] value = valueFor(key);
                db.put(key, value);
                model.put(key, value);
                accepted();
            }
            assertContent(db, model, "long prefixes");
            checkSeeks(db, model, rnd, "long prefixes");
            db.compactMemtable();
            assertContent(db, model, "long prefixes after compaction");
            checkSeeks(db, model, rnd, "long prefixes after compaction");
        }
        reopenAndCheck(dir, model, "long prefixes");
    }

    /**
     * A million keys behind one 60-byte prefix (the key order is decided in the last 8 bytes), put
     * in a scrambled order in batches, compacted, reopened, then checked by sample and by a full
     * scan. The memtable is the default 64 MiB, so compaction also runs during the load.
     */
    @Test
    void aMillionKeysWithTheSame60BytePrefix() throws Exception {
        final int n = 1_000_000;
        byte[] prefix = new byte[60];
        new SplittableRandom(SEED).nextBytes(prefix);
        Path dir = tmp.resolve("db");
        Options options = Options.builder().memtableBytes(64 << 20).blockCacheBytes(32 << 20).build();
        long t0 = System.nanoTime();
        try (RemixDB db = RemixDB.open(dir, options)) {
            WriteBatch batch = new WriteBatch();
            for (int j = 0; j < n; j++) {
                int i = (int) ((j * 999_983L) % n); // 999983 is prime: a permutation of 0..n-1
                batch.put(millionKey(prefix, i), millionValue(i));
                if (batch.size() == 1000) {
                    db.write(batch);
                    batch.clear();
                }
            }
            db.write(batch);
            db.compactMemtable();
        }
        long t1 = System.nanoTime();
        try (RemixDB db = RemixDB.open(dir, options)) {
            SplittableRandom rnd = new SplittableRandom(SEED);
            for (int s = 0; s < 10_000; s++) {
                int i = rnd.nextInt(n);
                assertArrayEquals(millionValue(i), db.get(millionKey(prefix, i)), "key " + i + " (seed " + SEED + ")");
            }
            assertNull(db.get(prefix), "the bare prefix was never written");
            assertNull(db.get(millionKey(prefix, n)), "key n was never written");
            int count = 0;
            try (Cursor c = db.cursor()) {
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    byte[] key = c.key();
                    if (count < n && !Arrays.equals(millionKey(prefix, count), key)) {
                        fail("forward scan: position " + count + " holds " + Arrays.toString(key) + " (seed " + SEED + ")");
                    }
                    if (count % 997 == 0) {
                        assertArrayEquals(millionValue(count), c.value(), "scan value " + count);
                    }
                    count++;
                }
            }
            assertEquals(n, count, "keys in a forward scan");
            count = 0;
            try (Cursor c = db.cursor(millionKey(prefix, 1000), millionKey(prefix, 3000))) {
                for (c.seekToLast(); c.isValid(); c.prev()) {
                    assertArrayEquals(millionKey(prefix, 2999 - count), c.key(), "bounded backward scan");
                    count++;
                }
            }
            assertEquals(2000, count, "keys in a bounded backward scan");
        }
        long t2 = System.nanoTime();
        COUNTS.add("million.loadMillis", TimeUnit.NANOSECONDS.toMillis(t1 - t0));
        COUNTS.add("million.checkMillis", TimeUnit.NANOSECONDS.toMillis(t2 - t1));
        accepted();
    }

    private static byte[] millionKey(byte[] prefix, int i) {
        byte[] key = Arrays.copyOf(prefix, 68);
        long x = i;
        for (int b = 7; b >= 0; b--) {
            key[60 + b] = (byte) x;
            x >>>= 8;
        }
        return key;
    }

    private static byte[] millionValue(int i) {
        return ("v" + i).getBytes(StandardCharsets.US_ASCII);
    }

    // ------------------------------------------------------------------ use after close

    /**
     * Every public method of a closed store, of a cursor, a snapshot and a map view (and its
     * iterators) opened before the close, and writing a batch to a closed store: each throws
     * {@link ClosedException} (and never hangs). Closing any of them again is fine.
     */
    @Test
    void everyUseAfterCloseThrowsClosedException() throws Exception {
        Path dir = tmp.resolve("db");
        byte[] k = bytes("k");
        byte[] v = bytes("v");
        RemixDB db = RemixDB.open(dir, small());
        for (int i = 0; i < 100; i++) {
            db.put(bytes("key" + i), v);
        }
        Cursor cursor = db.cursor();
        cursor.seekToFirst();
        Cursor bounded = db.cursor(bytes("key1"), bytes("key5"));
        Snapshot snapshot = db.snapshot();
        Cursor snapshotCursor = snapshot.cursor();
        ConcurrentNavigableMap<byte[], byte[]> map = db.asMap();
        ConcurrentNavigableMap<String, String> typed = db.asMap(dev.remixdb.Codecs.STRING, dev.remixdb.Codecs.STRING);
        Iterator<byte[]> keysIt = map.keySet().iterator();
        WriteBatch batch = new WriteBatch().put(k, v);
        var bean = db.statsBean();
        db.close();

        closed("put", () -> db.put(k, v));
        closed("delete", () -> db.delete(k));
        closed("write(batch)", () -> db.write(batch));
        closed("write(empty batch)", () -> db.write(new WriteBatch()));
        closed("compute", () -> db.compute(k, old -> v));
        closed("merge", () -> db.merge(k, v, (a, b) -> b));
        closed("putIfAbsent", () -> db.putIfAbsent(k, v));
        closed("compareAndSet", () -> db.compareAndSet(k, null, v));
        closed("get", () -> db.get(k));
        closed("sync", db::sync);
        closed("cursor()", db::cursor);
        closed("cursor(lower, upper)", () -> db.cursor(k, null));
        closed("snapshot", db::snapshot);
        closed("asMap()", db::asMap);
        closed("asMap(codecs)", () -> db.asMap(dev.remixdb.Codecs.STRING, dev.remixdb.Codecs.STRING));
        closed("stats", db::stats);
        closed("statsBean.getKeys", bean::getKeys);
        closed("db.statsBean().getTables", () -> db.statsBean().getTables());
        closed("compactMemtable", db::compactMemtable);

        for (Cursor c : new Cursor[] {cursor, bounded, snapshotCursor}) {
            closed("cursor.seekToFirst", c::seekToFirst);
            closed("cursor.seekToLast", c::seekToLast);
            closed("cursor.seek", () -> c.seek(k));
            closed("cursor.seekForPrev", () -> c.seekForPrev(k));
            closed("cursor.isValid", c::isValid);
            closed("cursor.key", c::key);
            closed("cursor.value", c::value);
            closed("cursor.next", c::next);
            closed("cursor.prev", c::prev);
        }
        closed("snapshot.get", () -> snapshot.get(k));
        closed("snapshot.cursor()", snapshot::cursor);
        closed("snapshot.cursor(lower, upper)", () -> snapshot.cursor(k, null));

        closed("map.get", () -> map.get(k));
        closed("map.containsKey", () -> map.containsKey(k));
        closed("map.containsValue", () -> map.containsValue(v));
        closed("map.put", () -> map.put(k, v));
        closed("map.remove", () -> map.remove(k));
        closed("map.remove(k, v)", () -> map.remove(k, v));
        closed("map.putIfAbsent", () -> map.putIfAbsent(k, v));
        closed("map.replace", () -> map.replace(k, v));
        closed("map.replace(k, v, v)", () -> map.replace(k, v, v));
        closed("map.compute", () -> map.compute(k, (a, b) -> v));
        closed("map.computeIfAbsent", () -> map.computeIfAbsent(k, a -> v));
        closed("map.computeIfPresent", () -> map.computeIfPresent(k, (a, b) -> v));
        closed("map.merge", () -> map.merge(k, v, (a, b) -> b));
        closed("map.putAll", () -> map.putAll(Map.of(k, v)));
        closed("map.clear", map::clear);
        closed("map.size", map::size);
        closed("map.isEmpty", map::isEmpty);
        closed("map.firstKey", map::firstKey);
        closed("map.lastKey", map::lastKey);
        closed("map.firstEntry", map::firstEntry);
        closed("map.lastEntry", map::lastEntry);
        closed("map.ceilingKey", () -> map.ceilingKey(k));
        closed("map.floorKey", () -> map.floorKey(k));
        closed("map.higherEntry", () -> map.higherEntry(k));
        closed("map.lowerEntry", () -> map.lowerEntry(k));
        closed("map.pollFirstEntry", map::pollFirstEntry);
        closed("map.pollLastEntry", map::pollLastEntry);
        closed("map.entrySet().iterator().hasNext", () -> map.entrySet().iterator().hasNext());
        closed("map.keySet().iterator().next", () -> map.keySet().iterator().next());
        closed("map.values().iterator().next", () -> map.values().iterator().next());
        closed("map.descendingMap().firstKey", () -> map.descendingMap().firstKey());
        closed("map.subMap(..).size", () -> map.subMap(bytes("a"), bytes("z")).size());
        closed("map.headMap(..).isEmpty", () -> map.headMap(bytes("z")).isEmpty());
        closed("map.equals", () -> map.equals(Map.of(k, v)));
        closed("map.hashCode", map::hashCode);
        closed("typed.get", () -> typed.get("k"));
        closed("typed.put", () -> typed.put("k", "v"));
        closed("keySet iterator not started: hasNext", keysIt::hasNext);

        // Closing everything again is fine.
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            db.close();
            db.close();
            cursor.close();
            snapshotCursor.close();
            snapshot.close();
            bounded.close();
        });
        COUNTS.add("cases", 1);
        // The store itself is fine: it reopens with its data.
        try (RemixDB again = RemixDB.open(dir, small())) {
            assertArrayEquals(v, again.get(bytes("key42")));
            assertNull(again.get(k), "no write after close took effect");
        }
    }

    /**
     * {@link RemixDB#asMap} documents that "any use once the store is closed" throws
     * {@link ClosedException}; an iterator that already read its first chunk of entries before the
     * close goes on returning that chunk from memory.
     */
    @Test
    void mapIteratorStartedBeforeCloseRefusesUseAfterClose() throws Exception {
        RemixDB db = RemixDB.open(tmp.resolve("db"), small());
        for (int i = 0; i < 100; i++) {
            db.put(bytes("key" + i), bytes("v"));
        }
        Iterator<Map.Entry<byte[], byte[]>> started = db.asMap().entrySet().iterator();
        started.next();
        db.close();
        closed("entry iterator started before close: hasNext", started::hasNext);
        closed("entry iterator started before close: next", started::next);
    }

    @Test
    void cursorsAndSnapshotsClosedBeforeTheStoreRefuseUse() throws Exception {
        try (RemixDB db = RemixDB.open(tmp.resolve("db"), small())) {
            db.put(bytes("k"), bytes("v"));
            Cursor c = db.cursor();
            c.close();
            c.close();
            closed("closed cursor.seekToFirst", c::seekToFirst);
            closed("closed cursor.isValid", c::isValid);
            Snapshot s = db.snapshot();
            Cursor fromSnapshot = s.cursor();
            s.close();
            s.close();
            closed("closed snapshot.get", () -> s.get(bytes("k")));
            closed("closed snapshot.cursor", s::cursor);
            // Documented: a cursor opened on a snapshot holds the view itself and outlives it.
            fromSnapshot.seekToFirst();
            assertArrayEquals(bytes("k"), fromSnapshot.key());
            fromSnapshot.close();
            assertEquals(0, db.stats().openCursors());
            assertEquals(0, db.stats().openSnapshots());
        }
    }

    // ------------------------------------------------------------------ opening the wrong thing

    @Test
    void openingAnOpenStoreAgainFailsClearlyAndLeavesTheOpenOneAlone() throws Exception {
        Path dir = tmp.resolve("db");
        NavigableMap<byte[], byte[]> model = model();
        try (RemixDB db = RemixDB.open(dir, small())) {
            for (int i = 0; i < 2000; i++) {
                accept(model, db, bytes("key" + i), bytes("value" + i));
            }
            for (int attempt = 0; attempt < 3; attempt++) {
                COUNTS.add("cases", 1);
                IOException e = assertThrows(IOException.class, () -> RemixDB.open(dir, small()));
                assertTrue(e.getMessage().contains("already open") && e.getMessage().contains(dir.toString()),
                        "message names the store and says why: " + e.getMessage());
                COUNTS.add("rejected", 1);
            }
            // The open store goes on: it writes, compacts and reads.
            for (int i = 2000; i < 4000; i++) {
                accept(model, db, bytes("key" + i), bytes("value" + i));
            }
            db.compactMemtable();
            db.sync();
            assertContent(db, model, "after failed second opens");
        }
        reopenAndCheck(dir, model, "after failed second opens");
    }

    /**
     * The directory lock is an OS file lock; a failed second open in this process must not drop it,
     * or another process can open the same store at once and damage it. On Linux and macOS (POSIX
     * record locks), closing <em>any</em> channel to the LOCK file releases the lock the process holds
     * through another channel (see {@link java.nio.channels.FileLock}'s Javadoc): so the failed open
     * must not open, then close, a second channel to LOCK. Checked with a child JVM.
     */
    @Test
    void failedSecondOpenKeepsTheStoreLockedAgainstOtherProcesses() throws Exception {
        Path dir = tmp.resolve("db");
        try (RemixDB db = RemixDB.open(dir, small())) {
            db.put(bytes("k"), bytes("v"));
            assertEquals("locked", LockProbe.run(dir), "another process must not get the lock of an open store");
            assertThrows(IOException.class, () -> RemixDB.open(dir, small()));
            COUNTS.add("cases", 1);
            assertEquals("locked", LockProbe.run(dir),
                    "after a failed second open in this process, another process could lock (and open) the store");
        }
        assertEquals("free", LockProbe.run(dir), "a closed store's lock is free");
    }

    /**
     * Verification takes a shared lock through a LOCK file opened for reading (a read-only copy of
     * a store can be verified): an open store's exclusive lock must still keep another process's
     * verify out, and a verify must not keep the store from opening once it is done.
     */
    @Test
    void verifyFromAnotherProcessWaitsForTheStoreToClose() throws Exception {
        Path dir = tmp.resolve("db");
        try (RemixDB db = RemixDB.open(dir, small())) {
            db.put(bytes("k"), bytes("v"));
            String open = VerifyProbe.run(dir);
            assertTrue(open.startsWith("refused: ") && open.contains("open in another process"), open);
            assertEquals("locked", LockProbe.run(dir), "the probe's shared lock must not release the store's own");
        }
        assertEquals("ok", VerifyProbe.run(dir));
        try (RemixDB db = RemixDB.open(dir, small())) {
            assertArrayEquals(bytes("v"), db.get(bytes("k")));
        }
    }

    @Test
    void openingARegularFileFailsClearlyAndLeavesItAlone() throws Exception {
        Path file = tmp.resolve("not-a-dir");
        byte[] content = bytes("some user's file");
        Files.write(file, content);
        COUNTS.add("cases", 2);
        IOException e = assertThrows(IOException.class, () -> RemixDB.open(file, small()));
        assertTrue(String.valueOf(e.getMessage()).contains(file.toString()), "message names the path: " + e);
        IOException under = assertThrows(IOException.class, () -> RemixDB.open(file.resolve("db"), small()));
        assertTrue(String.valueOf(under.getMessage()).contains(file.toString()), "message names the path: " + under);
        COUNTS.add("rejected", 2);
        assertTrue(Files.isRegularFile(file));
        assertArrayEquals(content, Files.readAllBytes(file), "the file is untouched");
        refused("open(null)", () -> RemixDB.open(null), "dir", "null");
        refused("open(dir, null)", () -> RemixDB.open(tmp.resolve("x"), null), "options", "null");
    }

    // ------------------------------------------------------------------ helpers

    private static void accept(NavigableMap<byte[], byte[]> model, RemixDB db, byte[] key, byte[] value)
            throws IOException {
        db.put(key, value);
        model.put(key, value);
        accepted();
    }

    private static void accepted() {
        COUNTS.add("cases", 1);
        COUNTS.add("accepted", 1);
    }

    /** {@code call} throws IllegalArgumentException whose message mentions each of {@code words}. */
    private static void refused(String what, Executable call, String... words) {
        COUNTS.add("cases", 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call, what);
        String message = String.valueOf(e.getMessage());
        for (String w : words) {
            assertTrue(message.contains(w), what + ": the message should mention '" + w + "': " + message);
        }
        COUNTS.add("rejected", 1);
    }

    private static void refusedNpe(String what, Executable call) {
        COUNTS.add("cases", 1);
        assertThrows(NullPointerException.class, call, what);
        COUNTS.add("rejected", 1);
    }

    /** {@code call} throws {@link ClosedException} within 20 s. */
    private static void closed(String what, Executable call) {
        COUNTS.add("cases", 1);
        Throwable thrown = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try {
                call.execute();
                return null;
            } catch (Throwable t) {
                return t;
            }
        }, what + " hangs on a closed store");
        if (!(thrown instanceof ClosedException)) {
            fail(what + " after close: expected ClosedException, got " + (thrown == null ? "no exception" : thrown),
                    thrown);
        }
        COUNTS.add("rejected", 1);
    }

    private void reopenAndCheck(Path dir, NavigableMap<byte[], byte[]> model, String what) throws Exception {
        try (RemixDB db = RemixDB.open(dir, small())) {
            assertContent(db, model, what + ", after reopen");
            db.compactMemtable();
            assertContent(db, model, what + ", after reopen and compaction");
        }
    }

    /** The store holds exactly {@code model}: gets, and full scans in both directions. */
    static void assertContent(RemixDB db, NavigableMap<byte[], byte[]> model, String when) {
        String where = when + " (seed " + SEED + ")";
        for (Map.Entry<byte[], byte[]> e : model.entrySet()) {
            assertArrayEquals(e.getValue(), db.get(e.getKey()), () -> "get " + show(e.getKey()) + " " + where);
            byte[] after = Arrays.copyOf(e.getKey(), e.getKey().length + 1);
            if (after.length <= MAX_KEY && !model.containsKey(after)) {
                assertNull(db.get(after), () -> "get of absent " + show(after) + " " + where);
            }
        }
        try (Cursor c = db.cursor()) {
            Iterator<Map.Entry<byte[], byte[]>> it = model.entrySet().iterator();
            for (c.seekToFirst(); c.isValid(); c.next()) {
                assertTrue(it.hasNext(), () -> "forward scan returns extra key " + show(c.key()) + " " + where);
                Map.Entry<byte[], byte[]> e = it.next();
                assertArrayEquals(e.getKey(), c.key(), () -> "forward scan order " + where);
                assertArrayEquals(e.getValue(), c.value(), () -> "forward scan value " + where);
            }
            assertFalse(it.hasNext(), () -> "forward scan misses keys " + where);
            it = model.descendingMap().entrySet().iterator();
            for (c.seekToLast(); c.isValid(); c.prev()) {
                assertTrue(it.hasNext(), () -> "backward scan returns extra key " + show(c.key()) + " " + where);
                Map.Entry<byte[], byte[]> e = it.next();
                assertArrayEquals(e.getKey(), c.key(), () -> "backward scan order " + where);
                assertArrayEquals(e.getValue(), c.value(), () -> "backward scan value " + where);
            }
            assertFalse(it.hasNext(), () -> "backward scan misses keys " + where);
        }
    }

    /** Seeks to every key, just after it and just before it (both directions), and bounded scans. */
    private static void checkSeeks(RemixDB db, NavigableMap<byte[], byte[]> model, SplittableRandom rnd, String when) {
        String where = when + " (seed " + SEED + ")";
        try (Cursor c = db.cursor()) {
            for (byte[] key : model.keySet()) {
                c.seek(key);
                assertTrue(c.isValid(), where);
                assertArrayEquals(key, c.key(), () -> "seek " + show(key) + " " + where);
                c.seekForPrev(key);
                assertArrayEquals(key, c.key(), () -> "seekForPrev " + show(key) + " " + where);
                byte[] after = Arrays.copyOf(key, key.length + 1); // the smallest key above
                expectAt(c, model.ceilingKey(after), () -> c.seek(after), "seek after " + show(key) + " " + where);
                expectAt(c, model.floorKey(after), () -> c.seekForPrev(after),
                        "seekForPrev after " + show(key) + " " + where);
                if (key.length > 0) {
                    byte[] before = Arrays.copyOf(key, key.length - 1); // a key below
                    expectAt(c, model.floorKey(before), () -> c.seekForPrev(before), "seekForPrev before " + show(key) + " " + where);
                }
            }
        }
        List<byte[]> keys = new ArrayList<>(model.keySet());
        for (int i = 0; i < 50 && keys.size() > 1; i++) {
            byte[] a = keys.get(rnd.nextInt(keys.size()));
            byte[] b = keys.get(rnd.nextInt(keys.size()));
            if (Arrays.compareUnsigned(a, b) > 0) {
                byte[] t = a;
                a = b;
                b = t;
            }
            List<byte[]> want = new ArrayList<>(model.subMap(a, true, b, false).keySet());
            try (Cursor c = db.cursor(a, b)) {
                List<byte[]> got = new ArrayList<>();
                for (c.seekToFirst(); c.isValid(); c.next()) {
                    got.add(c.key());
                }
                assertKeys(want, got, "bounded forward scan " + where);
                got.clear();
                for (c.seekToLast(); c.isValid(); c.prev()) {
                    got.add(c.key());
                }
                assertKeys(want.reversed(), got, "bounded backward scan " + where);
            }
        }
    }

    private static void expectAt(Cursor c, byte[] want, Runnable seek, String what) {
        seek.run();
        if (want == null) {
            assertFalse(c.isValid(), () -> what + ": expected no key, got " + show(c.key()));
        } else {
            assertTrue(c.isValid(), () -> what + ": expected " + show(want) + ", got none");
            assertArrayEquals(want, c.key(), what);
        }
    }

    private static void assertKeys(List<byte[]> want, List<byte[]> got, String what) {
        assertEquals(want.size(), got.size(), what + ": number of keys");
        for (int i = 0; i < want.size(); i++) {
            assertArrayEquals(want.get(i), got.get(i), what + " at " + i);
        }
    }

    private static byte[] valueFor(byte[] key) {
        byte[] v = new byte[Math.min(key.length, 16) + 4];
        v[0] = (byte) (key.length >>> 8);
        v[1] = (byte) key.length;
        v[2] = (byte) Arrays.hashCode(key);
        v[3] = (byte) 0xA5;
        System.arraycopy(key, Math.max(0, key.length - 16), v, 4, v.length - 4);
        return v;
    }

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static byte[] filled(int length, byte b) {
        byte[] a = new byte[length];
        Arrays.fill(a, b);
        return a;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String show(byte[] key) {
        if (key == null) {
            return "null";
        }
        String head = java.util.HexFormat.of().formatHex(key, 0, Math.min(key.length, 24));
        return "[" + key.length + " B: " + head + (key.length > 24 ? "..." : "") + "]";
    }
}
