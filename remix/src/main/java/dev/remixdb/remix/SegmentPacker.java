package dev.remixdb.remix;

import dev.remixdb.util.NativeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Lays out the slots of a sorted view into segments, for both a fresh build and a rebuild: the
 * caller feeds groups (all versions of one key, newest first) and opens a new segment whenever
 * {@link #free()} is too small for the next group, so a key's versions never straddle segments
 * (REMIX §4.1); the rest of the old segment stays placeholders.
 */
final class SegmentPacker implements AutoCloseable {
    private final int runs;
    private final int segmentSize;
    private final boolean tags;
    private final NativeBuffer anchorOffsets;
    private final NativeBuffer anchorBytes;
    private final NativeBuffer records;
    private long segments;
    private long keys;
    private long record = -1;
    private int used;

    SegmentPacker(int runs, RemixConfig config) {
        checkRunCount(runs, config);
        this.runs = runs;
        this.segmentSize = config.segmentSize();
        this.tags = config.tags();
        this.anchorOffsets = NativeBuffer.confined(1 << 12);
        this.anchorBytes = NativeBuffer.confined(1 << 14);
        this.records = NativeBuffer.confined(1 << 16);
    }

    /** Rejects a run count the REMIX encoding cannot hold, before anything is allocated. */
    static void checkRunCount(int runs, RemixConfig config) {
        if (runs > Selectors.MAX_RUNS) {
            throw new IllegalArgumentException("a REMIX indexes at most " + Selectors.MAX_RUNS + " runs: " + runs);
        }
        if (runs > config.segmentSize()) {
            throw new IllegalArgumentException("segment size " + config.segmentSize()
                    + " is smaller than the run count " + runs + "; all versions of a key must fit in a segment");
        }
    }

    /** Slots left in the open segment (0 before the first segment). */
    int free() {
        return segments == 0 ? 0 : segmentSize - used;
    }

    /**
     * Opens a segment whose first key is {@code first}; {@code prev} (ignored for the first segment)
     * is the key before it. The anchor is the shortest prefix of {@code first} greater than
     * {@code prev}. {@code addresses[r]} is the address of run r's first key at or after {@code first}.
     */
    void startSegment(MemorySegment prev, long prevOff, int prevLen,
                      MemorySegment first, long firstOff, int firstLen, int[] addresses) {
        int anchorLen = segments == 0 ? 0
                : Math.min(firstLen, Keys.commonPrefix(prev, prevOff, prevLen, first, firstOff, firstLen) + 1);
        startSegment(first, firstOff, anchorLen, addresses);
    }

    /** Opens a segment with a known anchor (reused from an old REMIX whose keys around it did not change). */
    void startSegment(MemorySegment anchor, long anchorOff, int anchorLen, int[] addresses) {
        long at = anchorBytes.size();
        if (at + anchorLen > 0xFFFF_FFFFL) {
            throw new IllegalStateException("REMIX anchors exceed 4 GiB");
        }
        anchorOffsets.putInt((int) at);
        anchorBytes.put(anchor, anchorOff, segments == 0 ? 0 : anchorLen);
        // A new record starts as all placeholders (tags 0): unused slots need no padding later.
        record = records.size();
        records.fill(Selectors.PLACEHOLDER, segmentSize);
        if (tags) {
            records.fill(0, segmentSize);
        }
        for (int r = 0; r < runs; r++) {
            records.putInt(addresses[r]);
        }
        segments++;
        used = 0;
    }

    void add(int selector, byte tag) {
        MemorySegment m = records.segment();
        m.set(ValueLayout.JAVA_BYTE, record + used, (byte) selector);
        if (tags) {
            m.set(ValueLayout.JAVA_BYTE, record + segmentSize + used, tag);
        }
        used++;
        keys++;
    }

    /** The finished REMIX over {@code runList}, its metadata copied into a new shared arena. */
    Remix finish(List<? extends Run> runList) {
        anchorOffsets.putInt((int) anchorBytes.size());
        Arena arena = Arena.ofShared();
        try {
            return new Remix(arena, runList, segmentSize, segments, keys, tags,
                    anchorOffsets.copyTo(arena), anchorBytes.copyTo(arena), records.copyTo(arena));
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    @Override
    public void close() {
        anchorOffsets.close();
        anchorBytes.close();
        records.close();
    }
}
