package dev.remixdb.remix;

import dev.remixdb.util.NativeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Objects;

/**
 * A REMIX (REMIX §3): a sorted view over H runs, cut into segments of D slots. Per segment it keeps
 * an anchor key, one cursor offset per run, and one selector byte (and optionally one hash tag) per
 * slot. All of it lives in native memory owned by this object until {@link #close()}.
 *
 * <p>In-memory layout (the sections of {@link RemixFile}, little-endian):
 * <pre>
 * anchorOffsets  u32 × (S + 1)   anchor s is anchorBytes[anchorOffsets[s], anchorOffsets[s+1])
 * anchorBytes    the anchors: the shortest prefix of the segment's first key that is greater than
 *                the previous key; segment 0's anchor is empty
 * records        S records of {@link #recordSize()} bytes, one per segment:
 *     u8 × D     selectors, see {@link Selectors}; placeholders only at the end of a segment
 *     u8 × D     tags (only when the REMIX has tags): {@link Keys#tag} of the slot's key
 *     u32 × H    cursor offsets: RunAddress of the first key of run r at or after the anchor
 * </pre>
 * A segment's selectors, tags and cursor offsets are read together by every search, so they share
 * a record: one or two adjacent cache lines instead of three scattered ones.
 *
 * <p>A REMIX is immutable and safe for concurrent readers, each with its own {@link RemixCursor}.
 * It refers to its runs but does not own them: close the REMIX before the runs.
 */
public final class Remix implements AutoCloseable {
    static final ValueLayout.OfInt INT = NativeBuffer.INT;

    private final Arena arena;
    private final Run[] runs;
    private final int segmentSize;
    private final long segmentCount;
    private final long keyCount;
    private final MemorySegment anchorOffsets;
    private final MemorySegment anchorBytes;
    private final MemorySegment records;
    private final boolean hasTags;
    private final int recordSize;
    private final int offsetsAt;
    /** Bytes every anchor after the first shares: the heads start after them. */
    private final int headSkip;
    /**
     * u64 × S, derived (not stored in the file): big-endian bytes [headSkip, headSkip+8) of each anchor,
     * zero-padded. The anchor search compares these first, so each step of the binary search touches
     * one word of a compact array instead of an offset plus a scattered anchor key.
     */
    private final MemorySegment heads;
    /** {@link #staleCount()}, or -1 until first asked; a racy recount gives the same value. */
    private volatile long staleCount = -1;

    Remix(Arena arena, List<? extends Run> runs, int segmentSize, long segmentCount, long keyCount,
          boolean tags, MemorySegment anchorOffsets, MemorySegment anchorBytes, MemorySegment records) {
        this.arena = arena;
        this.runs = runs.toArray(new Run[0]);
        this.segmentSize = segmentSize;
        this.segmentCount = segmentCount;
        this.keyCount = keyCount;
        this.anchorOffsets = anchorOffsets;
        this.anchorBytes = anchorBytes;
        this.records = records;
        this.hasTags = tags;
        this.offsetsAt = tags ? 2 * segmentSize : segmentSize;
        this.recordSize = recordSize(runs.size(), segmentSize, tags);
        this.headSkip = segmentCount > 1 ? commonAnchorPrefix() : 0;
        this.heads = arena.allocate(8 * Math.max(1, segmentCount), 8);
        for (long s = 1; s < segmentCount; s++) {
            heads.set(ValueLayout.JAVA_LONG, 8 * s, head(anchorBytes, anchorStart(s) + headSkip, anchorLength(s) - headSkip));
        }
    }

    /** Anchors 1..S-1 are sorted, so what the first and last share, all share. */
    private int commonAnchorPrefix() {
        long last = segmentCount - 1;
        return Keys.commonPrefix(anchorBytes, anchorStart(1), anchorLength(1), anchorBytes, anchorStart(last), anchorLength(last));
    }

    /** Up to 8 bytes of {@code seg[off, off+len)} as a big-endian long, zero-padded: compares like the bytes. */
    private static long head(MemorySegment seg, long off, int len) {
        if (len >= 8) {
            return seg.get(Keys.LONG_BE, off);
        }
        long h = 0;
        for (int i = 0; i < 8; i++) {
            h = (h << 8) | (i < len ? Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off + i)) : 0);
        }
        return h;
    }

    /** Bytes of one segment record: D selectors, D tags when present, H cursor offsets. */
    static int recordSize(int runs, int segmentSize, boolean tags) {
        return segmentSize * (tags ? 2 : 1) + 4 * runs;
    }

    /** Builds a REMIX over {@code runs} (run i has id i; a higher id is newer). */
    public static Remix build(List<? extends Run> runs, RemixConfig config) {
        return RemixBuilder.build(runs, config);
    }

    /**
     * Builds the REMIX over {@code old.runs() + newRuns} from {@code old} and the new runs' key
     * sources, reading old keys only where a merge point or an anchor needs them (REMIX §4.3).
     * The result equals {@link #build} over the same runs. {@code stats} (may be null) receives the
     * counts of keys read.
     */
    public static Remix rebuild(Remix old, List<? extends Run> newRuns, RebuildStats stats) {
        return RemixRebuilder.rebuild(old, newRuns, stats == null ? new RebuildStats() : stats);
    }

    /** A new cursor; see {@link RemixCursor.Mode}. */
    public RemixCursor cursor(RemixCursor.Mode mode) {
        checkOpen();
        return new RemixCursor(this, mode, RemixCursor.Search.FULL);
    }

    /** A new cursor with an explicit in-segment search strategy (for benchmarks). */
    public RemixCursor cursor(RemixCursor.Mode mode, RemixCursor.Search search) {
        checkOpen();
        return new RemixCursor(this, mode, search);
    }

    /** The runs, oldest (id 0) first. */
    public List<Run> runs() {
        return List.of(runs);
    }

    Run run(int id) {
        return runs[id];
    }

    public int runCount() {
        return runs.length;
    }

    /** D, the slots per segment. */
    public int segmentSize() {
        return segmentSize;
    }

    public long segmentCount() {
        return segmentCount;
    }

    /**
     * Slots marked stale: older versions of a key whose newer version is also indexed. Counted from
     * the selectors on the first call (one pass over {@code segmentCount * segmentSize} bytes) and
     * remembered; the compaction policy reads it as the partition's garbage.
     */
    public long staleCount() {
        long n = staleCount;
        if (n < 0) {
            n = 0;
            // Segments hold 16, 32 or 64 selectors (RemixConfig): whole words, one test per 8 slots.
            for (long s = 0; s < segmentCount; s++) {
                long at = selectorsAt(s);
                for (int i = 0; i < segmentSize; i += 8) {
                    n += Long.bitCount(records.get(ValueLayout.JAVA_LONG_UNALIGNED, at + i) & 0x8080808080808080L);
                }
            }
            staleCount = n;
        }
        return n;
    }

    /** Slots holding a key version (all versions, tombstones included; placeholders excluded). */
    public long keyCount() {
        return keyCount;
    }

    public boolean hasTags() {
        return hasTags;
    }

    /** Bytes of REMIX metadata (what {@link RemixFile} stores, without header and checksums). */
    public long metadataBytes() {
        return anchorOffsets.byteSize() + anchorBytes.byteSize() + records.byteSize();
    }

    /** Native memory held: the metadata plus the derived anchor heads. */
    public long memoryBytes() {
        return metadataBytes() + heads.byteSize();
    }

    /**
     * A copy of the anchor of {@code segment}: every key of the segments before it is smaller, every
     * key from it on is at least as large (a point to cut the sorted view at, by key).
     */
    public byte[] anchorKey(long segment) {
        checkOpen();
        Objects.checkIndex(segment, segmentCount);
        return anchorBytes.asSlice(anchorStart(segment), anchorLength(segment)).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Total bytes of anchor keys. */
    public long anchorBytesTotal() {
        return anchorBytes.byteSize();
    }

    MemorySegment anchorOffsets() {
        return anchorOffsets;
    }

    MemorySegment anchorBytes() {
        return anchorBytes;
    }

    /** The segment records (selectors, tags and cursor offsets of every segment). */
    MemorySegment records() {
        return records;
    }

    int recordSize() {
        return recordSize;
    }

    /** Offset in {@link #records()} of segment {@code segment}'s selectors. */
    long selectorsAt(long segment) {
        return segment * recordSize;
    }

    /** Offset in {@link #records()} of segment {@code segment}'s tags (only with tags). */
    long tagsAt(long segment) {
        return segment * recordSize + segmentSize;
    }

    /** The cursor offset of run {@code run} in segment {@code segment}. */
    int cursorOffset(long segment, int run) {
        return records.get(INT, segment * recordSize + offsetsAt + 4L * run);
    }

    int selector(long segment, int slot) {
        return records.get(ValueLayout.JAVA_BYTE, segment * recordSize + slot) & 0xFF;
    }

    byte tag(long segment, int slot) {
        return records.get(ValueLayout.JAVA_BYTE, segment * recordSize + segmentSize + slot);
    }

    long anchorStart(long segment) {
        return Integer.toUnsignedLong(anchorOffsets.get(INT, 4 * segment));
    }

    int anchorLength(long segment) {
        return (int) (Integer.toUnsignedLong(anchorOffsets.get(INT, 4 * segment + 4)) - anchorStart(segment));
    }

    /** The last segment whose anchor is {@code <= key} (0 when none is). */
    long findSegment(MemorySegment key, long off, int len) {
        if (segmentCount <= 1) {
            return 0;
        }
        // Against the prefix all anchors 1..S-1 share: below it, segment 0; above it, the last one.
        int p = headSkip;
        int c = Keys.compare(anchorBytes, anchorStart(1), p, key, off, Math.min(p, len));
        if (c > 0 || (c == 0 && len < p)) {
            return 0;
        }
        if (c < 0) {
            return segmentCount - 1;
        }
        long t = head(key, off + p, len - p);
        // A head below t means an anchor below the key, a head above t an anchor above it (zero
        // padding keeps this true for short keys); only equal heads need the full anchors.
        long lo = 1;
        long hi = segmentCount;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(heads.get(ValueLayout.JAVA_LONG, 8 * mid), t) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        long found = lo - 1;
        hi = segmentCount - 1;
        if (lo <= hi && heads.get(ValueLayout.JAVA_LONG, 8 * lo) == t) {
            // Ties: binary search the equal-head run with full anchors.
            long end = lo;
            long step = 1;
            while (end + step <= hi && heads.get(ValueLayout.JAVA_LONG, 8 * (end + step)) == t) {
                end += step;
                step <<= 1;
            }
            long a = lo;
            long b = Math.min(hi, end + step - 1);
            while (a < b) {
                long mid = (a + b + 1) >>> 1;
                if (heads.get(ValueLayout.JAVA_LONG, 8 * mid) == t
                        && Keys.compare(anchorBytes, anchorStart(mid), anchorLength(mid), key, off, len) <= 0) {
                    a = mid;
                } else {
                    b = mid - 1;
                }
            }
            if (Keys.compare(anchorBytes, anchorStart(a), anchorLength(a), key, off, len) <= 0) {
                found = a;
            }
        }
        return found;
    }

    /** Number of slots of segment {@code segment} that hold keys (the rest are placeholders). */
    int usedSlots(long segment, SelectorCounter counter) {
        return segmentSize - counter.count(records, segment * recordSize, segmentSize, Selectors.PLACEHOLDER);
    }

    void checkOpen() {
        if (!arena.scope().isAlive()) {
            throw new IllegalStateException("REMIX is closed");
        }
    }

    boolean isOpen() {
        return arena.scope().isAlive();
    }

    /** Frees the metadata. Cursors must not be used afterwards. Idempotent. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "Remix[runs=" + runs.length + ", D=" + segmentSize + ", segments=" + segmentCount
                + ", keys=" + keyCount + ", tags=" + hasTags() + ", bytes=" + metadataBytes() + "]";
    }
}
