package dev.remixdb.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KeyLayoutTest {
    private final KeyLayout keys = new KeyLayout();

    @Test
    void keyIsTableZeroKey() {
        assertArrayEquals(new byte[] {'t', 0, 'k', '1'}, keys.key("t", "k1"));
        assertArrayEquals(new byte[] {'t', 1}, keys.tableEnd("t"));
        assertEquals("k1", keys.userKey("t", keys.key("t", "k1")));
    }

    @Test
    void everyKeyOfATableSortsInsideItsRangeAndNoOtherTablesKeyDoes() {
        String[] tables = {"", "a", "ab", "a\u0001", "b", "usertable", "user"};
        String[] userKeys = {"", "\u0000", "\u0001", "x", "\uffff", "user123"};
        for (String t : tables) {
            byte[] lo = keys.key(t, "");
            byte[] hi = keys.tableEnd(t);
            for (String other : tables) {
                for (String k : userKeys) {
                    byte[] key = keys.key(other, k);
                    boolean inside = Arrays.compareUnsigned(key, lo) >= 0 && Arrays.compareUnsigned(key, hi) < 0;
                    assertEquals(t.equals(other), inside, "table '" + t + "' range vs key of '" + other + "'/" + k);
                }
            }
        }
    }

    @Test
    void refusesNullsAndTheSeparatorInTableNames() {
        assertThrows(IllegalArgumentException.class, () -> keys.key(null, "k"));
        assertThrows(IllegalArgumentException.class, () -> keys.key("t", null));
        var e = assertThrows(IllegalArgumentException.class, () -> keys.key("a\u0000b", "k"));
        assertTrue(e.getMessage().contains("U+0000"), e.getMessage());
    }
}
