package dev.remixdb.bench.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.remix.Keys;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyFormatTest {

    @Test
    void keysAreTheHexOfTheSpreadIndexAndStrictlyIncreasing() {
        KeyFormat c = new KeyFormat(1000);
        long step = Long.divideUnsigned(-1L, 1000);
        byte[] prev = null;
        for (long i = 0; i < 1000; i++) {
            byte[] k = c.key(i);
            assertEquals(String.format("%016x", i * step), new String(k, StandardCharsets.US_ASCII));
            if (prev != null) {
                assertTrue(Keys.compare(MemorySegment.ofArray(prev), MemorySegment.ofArray(k)) < 0, "key " + i);
            }
            prev = k;
        }
    }

    @Test
    void absentKeysSortStrictlyBetweenNeighbours() {
        KeyFormat c = new KeyFormat(77);
        for (long i = 0; i < 77; i++) {
            byte[] a = new byte[KeyFormat.KEY_BYTES];
            c.writeAbsentKey(MemorySegment.ofArray(a), 0, i);
            assertTrue(Keys.compare(MemorySegment.ofArray(c.key(i)), MemorySegment.ofArray(a)) < 0);
            if (i + 1 < 77) {
                assertTrue(Keys.compare(MemorySegment.ofArray(a), MemorySegment.ofArray(c.key(i + 1))) < 0);
            }
        }
    }

    @Test
    void valuesStartWithTheIndexAndDifferPerKey() {
        KeyFormat c = new KeyFormat(10);
        byte[] v = c.value(7);
        assertEquals(KeyFormat.VALUE_BYTES, v.length);
        assertEquals(7, v[7]);
        assertArrayEquals(v, c.value(7));
        assertTrue(!java.util.Arrays.equals(v, c.value(8)));
    }

    @Test
    void datasetsPutEveryKeyInExactlyOneRun() {
        for (Locality l : Locality.values()) {
            try (Dataset d = DatasetGenerator.generate(4, 500, l, 1)) {
                long sum = d.runs().stream().mapToLong(r -> r.keyCount()).sum();
                assertEquals(2000, sum);
                assertEquals(2000, d.keyCount());
            }
        }
    }
}
