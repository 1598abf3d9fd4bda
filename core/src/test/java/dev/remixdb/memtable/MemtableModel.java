package dev.remixdb.memtable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** The memtable's meaning in plain Java: key -> (seq -> value, null for a tombstone). */
final class MemtableModel {
    /** One visible entry: the newest version of a key at a snapshot; value null for a tombstone. */
    record Entry(byte[] key, long seq, byte[] value) {
        @Override
        public String toString() {
            return "Entry[" + MemtableModel.hex(key) + " @" + seq + (value == null ? " tombstone" : " " + value.length + "B") + "]";
        }
    }

    private final TreeMap<byte[], TreeMap<Long, byte[]>> versions = new TreeMap<>(Arrays::compareUnsigned);

    /** Records an add; false if (key, seq) was there already. */
    boolean add(long seq, byte[] key, byte[] valueOrNull) {
        TreeMap<Long, byte[]> v = versions.computeIfAbsent(key, k -> new TreeMap<>());
        if (v.containsKey(seq)) {
            return false;
        }
        v.put(seq, valueOrNull);
        return true;
    }

    boolean contains(long seq, byte[] key) {
        TreeMap<Long, byte[]> v = versions.get(key);
        return v != null && v.containsKey(seq);
    }

    List<byte[]> keys() {
        return new ArrayList<>(versions.keySet());
    }

    /** The visible entries at {@code snapshotSeq}, in key order. */
    List<Entry> view(long snapshotSeq) {
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<byte[], TreeMap<Long, byte[]>> e : versions.entrySet()) {
            Map.Entry<Long, byte[]> v = e.getValue().floorEntry(snapshotSeq);
            if (v != null) {
                out.add(new Entry(e.getKey(), v.getKey(), v.getValue()));
            }
        }
        return out;
    }

    /** The keys, the empty key, a long 0xFF key, and for each key a shorter prefix, key - 1 at the end and key + 0x00. */
    static List<byte[]> probes(List<byte[]> keys) {
        TreeSet<byte[]> probes = new TreeSet<>(Arrays::compareUnsigned);
        probes.add(new byte[0]);
        byte[] max = new byte[70];
        Arrays.fill(max, (byte) 0xFF);
        probes.add(max);
        for (byte[] k : keys) {
            probes.add(k);
            probes.add(Arrays.copyOf(k, k.length + 1));
            if (k.length > 0) {
                probes.add(Arrays.copyOf(k, k.length - 1));
                int last = Byte.toUnsignedInt(k[k.length - 1]);
                if (last > 0) {
                    byte[] below = k.clone();
                    below[k.length - 1] = (byte) (last - 1);
                    probes.add(below);
                }
            }
        }
        return new ArrayList<>(probes);
    }

    static String hex(byte[] b) {
        return b.length > 16 ? HexFormat.of().formatHex(b, 0, 16) + "..(" + b.length + ")"
                : HexFormat.of().formatHex(b);
    }
}
