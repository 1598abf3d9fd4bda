package dev.remixdb.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Maps YCSB (table, key) pairs onto the store's single key space: {@code UTF-8(table) 0x00 UTF-8(key)}.
 *
 * <p>Every table is thus one contiguous key range, [{@code table 0x00}, {@code table 0x01}), and a
 * scan bounded by it cannot reach into another table, even one whose name extends this one's
 * ("user" and "usertable": 0x00 sorts below every character). Table names must not contain U+0000,
 * which would make the separator ambiguous. One store for all tables keeps one WAL, one memtable
 * and one block cache, as YCSB's other embedded bindings do.
 *
 * <p>Not thread-safe: it remembers the last table's prefix, so each client thread has its own.
 */
final class KeyLayout {
    private String lastTable;
    private byte[] lastPrefix;

    /** The store key of {@code key} in {@code table}. */
    byte[] key(String table, String key) {
        if (key == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        byte[] prefix = prefix(table);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] out = Arrays.copyOf(prefix, prefix.length + k.length);
        System.arraycopy(k, 0, out, prefix.length, k.length);
        return out;
    }

    /** The first key past {@code table}'s range: {@code UTF-8(table) 0x01}. */
    byte[] tableEnd(String table) {
        byte[] end = prefix(table).clone();
        end[end.length - 1] = 1;
        return end;
    }

    /** The YCSB key of a store key of {@code table}. */
    String userKey(String table, byte[] storeKey) {
        int n = prefix(table).length;
        return new String(storeKey, n, storeKey.length - n, StandardCharsets.UTF_8);
    }

    private byte[] prefix(String table) {
        if (table == null) {
            throw new IllegalArgumentException("table must not be null");
        }
        if (!table.equals(lastTable)) {
            if (table.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("table name must not contain U+0000: " + table.replace('\0', '?'));
            }
            byte[] t = table.getBytes(StandardCharsets.UTF_8);
            lastPrefix = Arrays.copyOf(t, t.length + 1); // ends with the 0x00 separator
            lastTable = table;
        }
        return lastPrefix;
    }
}
