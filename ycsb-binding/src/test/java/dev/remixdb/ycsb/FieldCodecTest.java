package dev.remixdb.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

class FieldCodecTest {

    static Map<String, ByteIterator> iterators(Map<String, byte[]> fields) {
        Map<String, ByteIterator> out = new LinkedHashMap<>();
        fields.forEach((k, v) -> out.put(k, new ByteArrayByteIterator(v)));
        return out;
    }

    static Map<String, byte[]> bytes(Map<String, ByteIterator> fields) {
        Map<String, byte[]> out = new HashMap<>();
        fields.forEach((k, v) -> out.put(k, v.toArray()));
        return out;
    }

    static void assertSameFields(Map<String, byte[]> expected, Map<String, byte[]> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((k, v) -> assertArrayEquals(v, actual.get(k), "field " + k));
    }

    private static Map<String, byte[]> decode(byte[] record, Set<String> wanted) {
        Map<String, ByteIterator> out = new HashMap<>();
        FieldCodec.decode(record, wanted, out);
        return bytes(out);
    }

    @Test
    void ycsbRecordTakesEightyOneBytesOfFraming() {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++) {
            fields.put("field" + i, new byte[100]);
        }
        assertEquals(1000 + 81, FieldCodec.encodeBytes(fields).length);
    }

    @Test
    void emptyRecordIsTheVersionByteAlone() {
        byte[] record = FieldCodec.encode(Map.of());
        assertArrayEquals(new byte[] {FieldCodec.VERSION}, record);
        assertEquals(Map.of(), decode(record, null));
    }

    @Test
    void emptyAndBinaryValuesAndNamesRoundTrip() {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("empty", new byte[0]);
        fields.put("binary", all);
        fields.put("", "empty name".getBytes(StandardCharsets.UTF_8));
        fields.put("n\u00e4me \u2603", new byte[] {0, 0, 0});
        fields.put("long", new byte[70_000]); // a 3-byte length varint
        assertSameFields(fields, decode(FieldCodec.encode(iterators(fields)), null));
    }

    /** Field names are remembered up to a bound: records with ever new names still round-trip. */
    @Test
    void manyDistinctNamesRoundTrip() {
        for (int r = 0; r < 300; r++) {
            Map<String, byte[]> fields = new LinkedHashMap<>();
            for (int f = 0; f < 10; f++) {
                fields.put("name-" + r + "-" + f + "-\u00e9", new byte[] {(byte) r, (byte) f});
            }
            assertSameFields(fields, decode(FieldCodec.encode(iterators(fields)), null));
            assertSameFields(fields, decode(FieldCodec.encodeBytes(fields), null));
        }
    }

    @Test
    void varintLengthsAtTheirBoundaries() {
        for (int n : new int[] {0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152}) {
            assertEquals(n < 128 ? 1 : n < 16_384 ? 2 : n < 2_097_152 ? 3 : 4, FieldCodec.varintSize(n));
            Map<String, byte[]> fields = Map.of("f", new byte[n]);
            assertSameFields(fields, decode(FieldCodec.encodeBytes(fields), null));
        }
        assertEquals(5, FieldCodec.varintSize(Integer.MAX_VALUE));
    }

    @Test
    void decodesOnlyTheWantedFields() {
        Map<String, byte[]> fields = Map.of("a", new byte[] {1}, "b", new byte[] {2}, "c", new byte[] {3});
        byte[] record = FieldCodec.encodeBytes(fields);
        assertSameFields(Map.of("b", new byte[] {2}), decode(record, Set.of("b", "missing")));
        assertEquals(Map.of(), decode(record, Set.of()));
    }

    @Test
    void mergeReplacesNamedFieldsKeepsOthersAddsNewOnes() {
        byte[] old = FieldCodec.encodeBytes(Map.of("a", new byte[] {1}, "b", new byte[] {2}, "c", new byte[0]));
        byte[] merged = FieldCodec.merge(old, Map.of("b", new byte[] {20, 21}, "d", new byte[] {4}));
        assertSameFields(Map.of("a", new byte[] {1}, "b", new byte[] {20, 21}, "c", new byte[0], "d", new byte[] {4}),
                decode(merged, null));
        assertArrayEquals(old, FieldCodec.merge(old, Map.of()));
    }

    @Test
    void malformedRecordsAreRefusedWithTheOffset() {
        byte[] good = FieldCodec.encodeBytes(Map.of("name", new byte[] {1, 2, 3}));
        assertThrows(RecordFormatException.class, () -> decode(new byte[0], null));
        var e = assertThrows(RecordFormatException.class, () -> decode(new byte[] {2}, null));
        assertEquals("bad YCSB record at byte 0: unknown format version 2 (expected 1)", e.getMessage());
        for (int cut = 2; cut < good.length; cut++) {
            byte[] truncated = java.util.Arrays.copyOf(good, cut);
            assertThrows(RecordFormatException.class, () -> decode(truncated, null), "cut at " + cut);
        }
        byte[] hugeLength = {1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F};
        assertThrows(RecordFormatException.class, () -> decode(hugeLength, null));
        assertThrows(RecordFormatException.class, () -> FieldCodec.merge(new byte[] {1, 5}, Map.of()));
    }

    @Test
    void rememberedNamesAreTheSameInstancesAndNeverWrong() {
        FieldNames names = new FieldNames();
        byte[] record = "xfield0field1field0".getBytes(StandardCharsets.UTF_8);
        String first = names.name(record, 1, 6);
        assertEquals("field0", first);
        assertEquals("field1", names.name(record, 7, 6));
        org.junit.jupiter.api.Assertions.assertSame(first, names.name(record, 13, 6));
        for (int i = 0; i < 1000; i++) { // far more names than slots: collisions must evict, not confuse
            byte[] b = ("f" + i).getBytes(StandardCharsets.UTF_8);
            assertEquals("f" + i, names.name(b, 0, b.length));
        }
        assertEquals("field1", names.name(record, 7, 6));
    }

    @Property(tries = 200)
    void anyRecordRoundTrips(@ForAll @Size(max = 12) Map<String, byte[]> fields) {
        assertSameFields(fields, decode(FieldCodec.encodeBytes(fields), null));
    }

    @Property(tries = 200)
    void mergeEqualsMapPutAll(@ForAll @Size(max = 8) Map<String, byte[]> old,
                              @ForAll @Size(max = 8) Map<String, byte[]> updates) {
        Map<String, byte[]> expected = new HashMap<>(old);
        expected.putAll(updates);
        assertSameFields(expected, decode(FieldCodec.merge(FieldCodec.encodeBytes(old), updates), null));
    }
}
