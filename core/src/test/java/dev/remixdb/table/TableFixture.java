package dev.remixdb.table;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.io.BlockReader;
import dev.remixdb.io.FileChannelBlockReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/** Random sorted entries, tables written from them, and the reader and cache to open them with. */
final class TableFixture implements AutoCloseable {
    /** One entry: a value, or a tombstone when {@code value} is null. */
    record Kv(byte[] key, byte[] value) {
        boolean tombstone() {
            return value == null;
        }

        @Override
        public String toString() {
            return HexFormat.of().formatHex(key) + (tombstone() ? "=<deleted>" : "=" + value.length + "B");
        }
    }

    private static final byte[] ALPHABET = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFE, (byte) 0xFF, 'a', 'b'};

    final Path dir;
    final BlockReader reader = new FileChannelBlockReader();
    final BlockCache cache;
    private long nextId = 1;
    private final List<Table> open = new ArrayList<>();

    TableFixture(Path dir, long cacheBytes) {
        this.dir = dir;
        this.cache = new BlockCache(cacheBytes);
    }

    /**
     * {@code n} entries with distinct keys in order: keys of 0 to 300 bytes (mostly short, often sharing
     * prefixes, rich in 0x00 and 0xFF), values of 0 to 10000 bytes (some over 4 KiB), and a share of
     * tombstones.
     */
    static List<Kv> randomKvs(Random rnd, int n, double tombstones) {
        TreeMap<byte[], Kv> map = new TreeMap<>(Arrays::compareUnsigned);
        List<byte[]> made = new ArrayList<>();
        while (map.size() < n) {
            byte[] key = randomKey(rnd, made);
            made.add(key);
            byte[] value = rnd.nextDouble() < tombstones ? null : randomValue(rnd);
            map.put(key, new Kv(key, value));
        }
        return new ArrayList<>(map.values());
    }

    private static byte[] randomKey(Random rnd, List<byte[]> made) {
        int r = rnd.nextInt(100);
        int length = r < 2 ? 0 : r < 80 ? rnd.nextInt(1, 20) : r < 95 ? rnd.nextInt(20, 100) : rnd.nextInt(100, 301);
        byte[] key = new byte[length];
        int from = 0;
        if (!made.isEmpty() && rnd.nextBoolean()) {  // share a prefix with an earlier key
            byte[] other = made.get(rnd.nextInt(made.size()));
            from = Math.min(length, rnd.nextInt(other.length + 1));
            System.arraycopy(other, 0, key, 0, from);
        }
        for (int i = from; i < length; i++) {
            key[i] = rnd.nextBoolean() ? ALPHABET[rnd.nextInt(ALPHABET.length)] : (byte) rnd.nextInt(256);
        }
        return key;
    }

    static byte[] randomValue(Random rnd) {
        int r = rnd.nextInt(100);
        int length = r < 5 ? 0 : r < 75 ? rnd.nextInt(1, 100) : r < 93 ? rnd.nextInt(100, 1000) : rnd.nextInt(1000, 10001);
        byte[] value = new byte[length];
        rnd.nextBytes(value);
        if (rnd.nextBoolean()) {  // half the values repeat a short pattern, so LZ4 has something to save
            int period = rnd.nextInt(1, 9);
            for (int i = period; i < length; i++) {
                value[i] = value[i - period];
            }
        }
        return value;
    }

    /** Writes {@code kvs} to a new file named {@code name}. */
    TableInfo write(String name, List<Kv> kvs, TableOptions options) throws IOException {
        try (TableWriter w = new TableWriter(dir.resolve(name), options)) {
            for (Kv kv : kvs) {
                if (kv.tombstone()) {
                    w.delete(kv.key());
                } else {
                    w.add(kv.key(), kv.value());
                }
            }
            return w.finish();
        }
    }

    /** Opens a table with a fresh file id; closed by {@link #close()}. */
    Table open(String name) throws IOException {
        Table t = Table.open(nextId++, dir.resolve(name), reader, cache);
        open.add(t);
        return t;
    }

    /** Writes and opens. */
    Table table(String name, List<Kv> kvs, TableOptions options) throws IOException {
        write(name, kvs, options);
        return open(name);
    }

    static byte[] bytes(java.lang.foreign.MemorySegment s, long offset, int length) {
        return s.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    static void delete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        for (Table t : open) {
            t.close();
        }
        open.clear();
        cache.close();
        reader.close();
    }
}
