package dev.remixdb.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * Serializes a YCSB record (field name to bytes) into one store value, and back.
 *
 * <p>Byte layout of a value (version 1):
 * <table>
 *   <caption>record</caption>
 *   <tr><th>offset</th><th>size</th><th>field</th></tr>
 *   <tr><td>0</td><td>1</td><td>format version, {@value #VERSION}</td></tr>
 *   <tr><td>1</td><td>...</td><td>zero or more fields, back to back, up to the end of the value</td></tr>
 * </table>
 * <table>
 *   <caption>one field</caption>
 *   <tr><th>size</th><th>field</th></tr>
 *   <tr><td>1-5</td><td>name length n, unsigned LEB128 varint</td></tr>
 *   <tr><td>n</td><td>name, UTF-8</td></tr>
 *   <tr><td>1-5</td><td>value length m, unsigned LEB128 varint</td></tr>
 *   <tr><td>m</td><td>value bytes, as given</td></tr>
 * </table>
 * There is no field count and no per-value magic number: a YCSB record of 10 fields of 100 bytes
 * costs 1 + 10 x (1 + 6 + 1) = 81 bytes of framing, and the version byte is enough to tell a future
 * layout apart. Names are unique within a record; their order is not significant.
 *
 * <p>Stateless and thread-safe.
 */
final class FieldCodec {
    /** The format version written in byte 0. */
    static final int VERSION = 1;

    private FieldCodec() {}

    /**
     * Encodes {@code fields}, consuming each iterator. Straight into the record: no map of arrays in
     * between (an insert of 10 fields allocated a map and ten name arrays besides the record).
     */
    static byte[] encode(Map<String, ByteIterator> fields) {
        int n = fields.size();
        byte[][] names = new byte[n][];
        byte[][] values = new byte[n][];
        int size = 1;
        int i = 0;
        for (Map.Entry<String, ByteIterator> e : fields.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new IllegalArgumentException("null field name or value in record: " + e.getKey());
            }
            names[i] = nameBytes(e.getKey());
            values[i] = e.getValue().toArray();
            size = Math.addExact(size, fieldSize(names[i].length, values[i].length));
            i++;
        }
        byte[] out = new byte[size];
        out[0] = VERSION;
        int pos = 1;
        for (i = 0; i < n; i++) {
            pos = putField(out, pos, names[i], values[i], 0, values[i].length);
        }
        return out;
    }

    /** Names encoded so far: a workload uses a handful (field0, field1, ...). Read-only arrays. */
    private static final ConcurrentHashMap<String, byte[]> NAMES = new ConcurrentHashMap<>();
    /** Names remembered at most, so that a workload of ever new names does not grow the map without end. */
    private static final int MAX_NAMES = 1024;

    /** The UTF-8 bytes of a field name; the array is shared, never to be changed. */
    static byte[] nameBytes(String name) {
        byte[] b = NAMES.get(name);
        if (b == null) {
            b = name.getBytes(StandardCharsets.UTF_8);
            if (NAMES.size() < MAX_NAMES) {
                NAMES.putIfAbsent(name, b);
            }
        }
        return b;
    }

    /**
     * The fields as byte arrays, each iterator consumed once. Done before a read-modify-write so
     * that the part run under the store's write lock only copies bytes.
     */
    static Map<String, byte[]> toBytes(Map<String, ByteIterator> fields) {
        Map<String, byte[]> out = new LinkedHashMap<>(Math.max(4, fields.size() * 2));
        for (Map.Entry<String, ByteIterator> e : fields.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new IllegalArgumentException("null field name or value in record: " + e.getKey());
            }
            out.put(e.getKey(), e.getValue().toArray());
        }
        return out;
    }

    /** Encodes {@code fields} as they are. */
    static byte[] encodeBytes(Map<String, byte[]> fields) {
        byte[][] names = new byte[fields.size()][];
        int size = 1;
        int i = 0;
        for (Map.Entry<String, byte[]> e : fields.entrySet()) {
            names[i] = nameBytes(e.getKey());
            size = Math.addExact(size, fieldSize(names[i].length, e.getValue().length));
            i++;
        }
        byte[] out = new byte[size];
        out[0] = VERSION;
        int pos = 1;
        i = 0;
        for (byte[] value : fields.values()) {
            pos = putField(out, pos, names[i++], value, 0, value.length);
        }
        return out;
    }

    /**
     * Decodes {@code record} into {@code out}: every field when {@code wanted} is null, else only
     * the fields named in it (a wanted field the record lacks is left out). The iterators put in
     * {@code out} are views of {@code record}, not copies.
     *
     * @throws RecordFormatException if {@code record} is not a valid encoded record
     */
    static void decode(byte[] record, Set<String> wanted, Map<String, ByteIterator> out) {
        decode(record, wanted, out, new FieldNames());
    }

    /** As {@link #decode(byte[], Set, Map)}, taking the names from {@code names}. */
    static void decode(byte[] record, Set<String> wanted, Map<String, ByteIterator> out, FieldNames names) {
        Reader r = new Reader(record);
        while (r.next()) {
            String name = names.name(record, r.nameOffset, r.nameLength);
            if (wanted == null || wanted.contains(name)) {
                out.put(name, new ByteArrayByteIterator(record, r.valueOffset, r.valueLength));
            }
        }
    }

    /**
     * The record {@code old} with {@code updates} applied: fields named in {@code updates} take the
     * new value, the others keep theirs, and new names are added.
     *
     * @throws RecordFormatException if {@code old} is not a valid encoded record
     */
    static byte[] merge(byte[] old, Map<String, byte[]> updates) {
        byte[][] names = new byte[updates.size()][];
        int size = 1;
        int i = 0;
        for (Map.Entry<String, byte[]> e : updates.entrySet()) {
            names[i] = nameBytes(e.getKey());
            size = Math.addExact(size, fieldSize(names[i].length, e.getValue().length));
            i++;
        }
        // First pass: which old fields survive, and how many bytes they take as they are.
        Reader r = new Reader(old);
        boolean[] keep = new boolean[16];
        int fields = 0;
        while (r.next()) {
            boolean kept = !r.nameIn(updates.keySet());
            if (fields == keep.length) {
                keep = Arrays.copyOf(keep, fields * 2);
            }
            keep[fields++] = kept;
            if (kept) {
                size = Math.addExact(size, r.fieldEnd - r.fieldStart);
            }
        }
        byte[] out = new byte[size];
        out[0] = VERSION;
        int pos = 1;
        r = new Reader(old);
        for (int f = 0; r.next(); f++) {
            if (keep[f]) {
                int n = r.fieldEnd - r.fieldStart;
                System.arraycopy(old, r.fieldStart, out, pos, n);
                pos += n;
            }
        }
        i = 0;
        for (byte[] value : updates.values()) {
            pos = putField(out, pos, names[i++], value, 0, value.length);
        }
        return out;
    }

    private static int fieldSize(int nameLength, int valueLength) {
        return Math.addExact(varintSize(nameLength) + nameLength + varintSize(valueLength), valueLength);
    }

    private static int putField(byte[] out, int pos, byte[] name, byte[] value, int off, int len) {
        pos = putVarint(out, pos, name.length);
        System.arraycopy(name, 0, out, pos, name.length);
        pos += name.length;
        pos = putVarint(out, pos, len);
        System.arraycopy(value, off, out, pos, len);
        return pos + len;
    }

    static int varintSize(int v) {
        int n = 1;
        while ((v >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    private static int putVarint(byte[] out, int pos, int v) {
        while ((v & ~0x7F) != 0) {
            out[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[pos++] = (byte) v;
        return pos;
    }

    /** Walks the fields of one record, checking every length against the end of the array. */
    private static final class Reader {
        private final byte[] record;
        private int pos;
        int fieldStart;
        int fieldEnd;
        int nameOffset;
        int nameLength;
        int valueOffset;
        int valueLength;

        Reader(byte[] record) {
            if (record.length == 0 || record[0] != VERSION) {
                throw new RecordFormatException(record.length == 0
                        ? "empty value: no format version byte"
                        : "unknown format version " + (record[0] & 0xFF) + " (expected " + VERSION + ")", 0);
            }
            this.record = record;
            this.pos = 1;
        }

        /** Moves to the next field; false at the end of the record. */
        boolean next() {
            if (pos == record.length) {
                return false;
            }
            fieldStart = pos;
            nameLength = varint();
            nameOffset = pos;
            pos = skip(nameLength, "name");
            valueLength = varint();
            valueOffset = pos;
            pos = skip(valueLength, "value");
            fieldEnd = pos;
            return true;
        }

        /** Whether the current name is in {@code names}; YCSB field names are short, so decoding is cheap. */
        boolean nameIn(Set<String> names) {
            return names.contains(new String(record, nameOffset, nameLength, StandardCharsets.UTF_8));
        }

        private int skip(int length, String what) {
            if (length > record.length - pos) {
                throw new RecordFormatException(what + " of " + length + " bytes runs past the end of a "
                        + record.length + "-byte record", pos);
            }
            return pos + length;
        }

        private int varint() {
            int start = pos;
            int v = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                if (pos == record.length) {
                    throw new RecordFormatException("truncated length", start);
                }
                int b = record[pos++] & 0xFF;
                v |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    if (v < 0 || (shift == 28 && b > 0x07)) {
                        throw new RecordFormatException("length over 2^31-1", start);
                    }
                    return v;
                }
            }
            throw new RecordFormatException("length varint longer than 5 bytes", start);
        }
    }
}
