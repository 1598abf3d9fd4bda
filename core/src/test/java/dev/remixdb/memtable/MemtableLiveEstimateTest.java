package dev.remixdb.memtable;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Memtable#liveEstimate()} against its definition: each key with versions in the memtable
 * counts 1 when its newest version is a value, less 1 when its first version was a tombstone (that
 * delete hid a version below), whatever came between; over random puts and deletes on few keys,
 * linked one at a time or as deferred batches (both the one-at-a-time and the rebuild paths).
 */
class MemtableLiveEstimateTest {
    /** Ops: bits 0-3 the key, bit 4 a delete, bit 5 a deferred op (linked at the end of its run). */
    @Property(tries = 300)
    void theEstimateCountsEachKeyByItsFirstAndNewestVersion(@ForAll @Size(max = 200) List<@IntRange(min = 0, max = 63) Integer> ops) {
        Map<Integer, Boolean> firstIsTombstone = new HashMap<>();
        Map<Integer, Boolean> newestIsValue = new HashMap<>();
        try (Memtable m = new Memtable()) {
            long seq = 1;
            for (int op : ops) {
                int k = op & 15;
                boolean delete = (op & 16) != 0;
                boolean deferred = (op & 32) != 0;
                byte[] key = ("key-" + k).getBytes(StandardCharsets.UTF_8);
                if (deferred) {
                    if (delete) {
                        m.deleteDeferred(key);
                    } else {
                        m.addDeferred(key, new byte[] {(byte) op});
                    }
                } else {
                    if (m.deferredCount() > 0) {
                        int n = m.deferredCount();
                        m.linkDeferred(seq);
                        seq += n;
                    }
                    if (delete) {
                        m.delete(seq++, key);
                    } else {
                        m.add(seq++, key, new byte[] {(byte) op});
                    }
                }
                firstIsTombstone.putIfAbsent(k, delete);
                newestIsValue.put(k, !delete);
            }
            if (m.deferredCount() > 0) {
                m.linkDeferred(seq);
            }
            long expected = 0;
            for (int k : newestIsValue.keySet()) {
                expected += (newestIsValue.get(k) ? 1 : 0) - (firstIsTombstone.get(k) ? 1 : 0);
            }
            assertEquals(expected, m.liveEstimate(), ops.toString());
        }
    }
}
