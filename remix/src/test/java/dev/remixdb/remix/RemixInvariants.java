package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.remix.RemixCursor.Mode;
import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.RemixModel.Entry;
import dev.remixdb.remix.RemixModel.Kv;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * The structure of a REMIX (REMIX §3.1, §4.1) checked slot by slot against the model of its runs:
 * the non-placeholder selectors spell out the ALL_VERSIONS view (run id, stale and tombstone bits),
 * placeholders only end a segment, a key's versions never straddle segments, segments are filled
 * greedily, anchors are the shortest separating prefixes, cursor offsets point at each run's first
 * key at or after the segment's first key, and tags hash the slot's key.
 */
final class RemixInvariants {
    private RemixInvariants() {}

    static void assertValid(Remix remix, Dataset data, List<? extends Run> runs) {
        List<Entry> all = new RemixModel(data).view(Mode.ALL_VERSIONS).entries();
        int d = remix.segmentSize();
        int h = remix.runCount();
        long segments = remix.segmentCount();
        assertEquals(data.runCount(), h, "run count");
        assertEquals(data.keyCount(), remix.keyCount(), "keyCount must equal the keys (and tombstones) of all runs");
        assertEquals((segments + 1) * 4, remix.anchorOffsets().byteSize(), "anchor offset bytes");
        assertEquals(d * (remix.hasTags() ? 2 : 1) + 4 * h, remix.recordSize(), "segment record bytes");
        assertEquals(segments * remix.recordSize(), remix.records().byteSize(), "segment records");
        int next = 0;
        int previousUsed = 0;
        byte[] previousAnchor = null;
        for (long s = 0; s < segments; s++) {
            int first = next;
            boolean padding = false;
            for (int slot = 0; slot < d; slot++) {
                int sel = remix.selector(s, slot);
                String where = "segment " + s + " slot " + slot + " selector 0x" + Integer.toHexString(sel);
                if (Selectors.isPlaceholder(sel)) {
                    padding = true;
                    continue;
                }
                assertFalse(padding, where + ": a key slot after a placeholder");
                assertTrue(next < all.size(), where + ": more key slots than versions in the runs");
                Entry e = all.get(next++);
                assertEquals(e.run(), Selectors.run(sel), where + ": run id of " + e);
                assertEquals(e.stale(), Selectors.isStale(sel), where + ": stale bit of " + e);
                assertEquals(e.tombstone(), Selectors.isTombstone(sel), where + ": tombstone bit of " + e);
                if (slot == 0) {
                    assertFalse(e.stale(), where + ": a segment starts with a stale version, so " + e
                            + " has versions in two segments");
                }
                if (remix.hasTags()) {
                    byte tag = remix.tag(s, slot);
                    assertEquals(Keys.tag(MemorySegment.ofArray(e.key()), 0, e.key().length), tag, where + ": tag of " + e);
                }
            }
            int used = next - first;
            assertTrue(used > 0, "segment " + s + " is empty");
            byte[] firstKey = all.get(first).key();
            if (s > 0) {
                int versions = versionsAt(all, first);
                assertTrue(previousUsed + versions > d, "segment " + (s - 1) + " was closed with " + (d - previousUsed)
                        + " free slots although the " + versions + " versions of the next key fit");
            }
            byte[] anchor = anchor(remix, s);
            assertAnchor(s, anchor, s == 0 ? null : all.get(first - 1).key(), firstKey);
            if (previousAnchor != null) {
                assertTrue(Arrays.compareUnsigned(previousAnchor, anchor) < 0, "anchors must increase at segment " + s);
            }
            previousAnchor = anchor;
            for (int r = 0; r < h; r++) {
                int expected = addressOf(runs.get(r), ceiling(data.runs().get(r), firstKey));
                assertEquals(RunAddress.toString(expected), RunAddress.toString(remix.cursorOffset(s, r)),
                        "cursor offset of run " + r + " in segment " + s + " (first key " + RemixModel.hex(firstKey) + ")");
            }
            previousUsed = used;
        }
        assertEquals(all.size(), next, "every version of every key has a slot");
    }

    /** Segment 0's anchor is empty; any other is the shortest prefix of its first key above the previous key. */
    private static void assertAnchor(long s, byte[] anchor, byte[] previousKey, byte[] firstKey) {
        String where = "anchor " + RemixModel.hex(anchor) + " of segment " + s + " (first key " + RemixModel.hex(firstKey) + ")";
        if (previousKey == null) {
            assertEquals(0, anchor.length, where);
            return;
        }
        assertTrue(anchor.length <= firstKey.length
                && Arrays.equals(anchor, Arrays.copyOf(firstKey, anchor.length)), where + ": not a prefix of the first key");
        assertTrue(Arrays.compareUnsigned(anchor, previousKey) > 0,
                where + ": not above the previous key " + RemixModel.hex(previousKey));
        byte[] shorter = Arrays.copyOf(anchor, anchor.length - 1);
        assertTrue(Arrays.compareUnsigned(shorter, previousKey) <= 0, where + ": not the shortest such prefix");
    }

    static byte[] anchor(Remix remix, long s) {
        return remix.anchorBytes().asSlice(remix.anchorStart(s), remix.anchorLength(s)).toArray(ValueLayout.JAVA_BYTE);
    }

    private static int versionsAt(List<Entry> all, int i) {
        int n = 1;
        while (i + n < all.size() && all.get(i + n).stale()) {
            n++;
        }
        return n;
    }

    /** The index of the first key {@code >= key} in a sorted run. */
    private static int ceiling(List<Kv> run, byte[] key) {
        int lo = 0;
        int hi = run.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(run.get(mid).key(), key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The address of the key at {@code index}, from the run's block sizes (the end address past the last key). */
    static int addressOf(Run run, long index) {
        long left = index;
        for (int b = 0; b < run.blockCount(); b++) {
            if (left < run.keyCount(b)) {
                return RunAddress.of(b, (int) left);
            }
            left -= run.keyCount(b);
        }
        assertEquals(0, left, "index past the end of the run");
        return RunAddress.of(run.blockCount(), 0);
    }
}
