package dev.remixdb.remix;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The specification of a REMIX's sorted view: a plain merge of the same runs into a {@link TreeMap}
 * ordered like the store (unsigned lexicographic), keeping for each key its versions newest first.
 * Tests compare a {@link RemixCursor} with a {@link View} of this model, entry by entry.
 */
final class RemixModel {
    private static final HexFormat HEX = HexFormat.of();

    /** One key of a run: a value, or a tombstone when {@code value} is null. */
    record Kv(byte[] key, byte[] value) {
        static Kv put(byte[] key, byte[] value) {
            return new Kv(key, value);
        }

        static Kv delete(byte[] key) {
            return new Kv(key, null);
        }

        boolean tombstone() {
            return value == null;
        }

        @Override
        public String toString() {
            return hex(key) + (tombstone() ? "=<deleted>" : "=" + value.length + "B");
        }
    }

    /** The contents of H runs; run i gets id i, so a later run is newer. Each run is sorted. */
    record Dataset(List<List<Kv>> runs) {
        Dataset {
            runs = List.copyOf(runs);
        }

        int runCount() {
            return runs.size();
        }

        long keyCount() {
            return runs.stream().mapToLong(List::size).sum();
        }

        @Override
        public String toString() {
            return "Dataset" + runs;
        }
    }

    /** One version of a key as a cursor shows it. */
    record Entry(byte[] key, int run, byte[] value, boolean tombstone, boolean stale) {
        @Override
        public String toString() {
            return hex(key) + "@run" + run + (tombstone ? " tombstone" : " value " + value.length + "B")
                    + (stale ? " stale" : "");
        }
    }

    private final TreeMap<byte[], List<Entry>> versions = new TreeMap<>(Arrays::compareUnsigned);

    RemixModel(Dataset data) {
        for (int run = 0; run < data.runCount(); run++) {
            for (Kv kv : data.runs().get(run)) {
                versions.computeIfAbsent(kv.key(), k -> new ArrayList<>())
                        .add(new Entry(kv.key(), run, kv.value(), kv.tombstone(), false));
            }
        }
        for (Map.Entry<byte[], List<Entry>> e : versions.entrySet()) {
            List<Entry> list = e.getValue();
            Collections.reverse(list);  // runs were added oldest first
            for (int i = 1; i < list.size(); i++) {
                Entry v = list.get(i);
                list.set(i, new Entry(v.key(), v.run(), v.value(), v.tombstone(), true));
            }
        }
    }

    /** Distinct keys, in order. */
    List<byte[]> keys() {
        return List.copyOf(versions.keySet());
    }

    /** All versions of {@code key}, newest first (empty when absent). */
    List<Entry> versions(byte[] key) {
        return versions.getOrDefault(key, List.of());
    }

    /** The entries a cursor in {@code mode} visits, in forward order. */
    View view(RemixCursor.Mode mode) {
        List<Entry> out = new ArrayList<>();
        for (List<Entry> vs : versions.values()) {
            switch (mode) {
                case ALL_VERSIONS -> out.addAll(vs);
                case NEWEST -> out.add(vs.getFirst());
                case LIVE -> {
                    if (!vs.getFirst().tombstone()) {
                        out.add(vs.getFirst());
                    }
                }
            }
        }
        return new View(mode, List.copyOf(out));
    }

    /**
     * A mode's entries with the positions a cursor should reach. An index outside
     * {@code [0, size())} means "not valid".
     */
    record View(RemixCursor.Mode mode, List<Entry> entries) {
        int size() {
            return entries.size();
        }

        Entry get(int i) {
            return entries.get(i);
        }

        /** Where {@code seek(probe)} lands: the first entry whose key is {@code >= probe}. */
        int ceiling(byte[] probe) {
            int lo = 0;
            int hi = entries.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (Arrays.compareUnsigned(entries.get(mid).key(), probe) < 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        /**
         * Where {@code seekForPrev(probe)} lands: the last entry whose key is {@code <= probe}, so
         * that walking back from it visits every entry {@code <= probe} (in ALL_VERSIONS, the oldest
         * version of the last such key). -1 when there is none.
         */
        int floor(byte[] probe) {
            return ceiling(successor(probe)) - 1;
        }

        /** Where {@code get(key)} lands: the first (newest) entry of {@code key}, or -1. */
        int find(byte[] key) {
            int i = ceiling(key);
            return i < entries.size() && Arrays.equals(entries.get(i).key(), key) ? i : -1;
        }
    }

    /** The smallest key greater than {@code key}: {@code key + 0x00}. */
    static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }

    static String hex(byte[] key) {
        return "[" + HEX.formatHex(key) + "]";
    }
}
