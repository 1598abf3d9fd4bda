package dev.remixdb.memtable;

import static dev.remixdb.memtable.ChunkAllocator.NULL;

import dev.remixdb.remix.Keys;
import dev.remixdb.util.Limits;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An ordered map of (key, seq) to a value or a tombstone, in native memory, with lock-free readers.
 * Entries are ordered by key (unsigned lexicographic) ascending, then by seq <em>descending</em>, so
 * the first entry of a key at or below a snapshot seq is the version that snapshot sees.
 *
 * <p>The index is a skip list whose nodes, keys and values live in chunks of one shared arena
 * ({@link ChunkAllocator}); the heap holds no per-entry objects. A node is addressed by a handle
 * ({@code >= 0}; valid while the memtable is open) and laid out, native byte order, as:
 * <pre>
 * offset (from handle)   size      field
 * -8·h .. 0              8 × h     next handles, level h-1 first ... level 0 last; 0 = none
 * 0                      8         seq
 * 8                      4         key length
 * 12                     4         value length, bit 31 set for a tombstone
 * 16                     keyLen    key bytes
 * 16 + keyLen            valueLen  value bytes (then padding to 8)
 * </pre>
 * The next pointers sit below the node so that the key and value offsets do not depend on the
 * node's height, which therefore need not be stored: a reader only ever follows level i of a node
 * it reached at level i or above.
 *
 * <p>Point lookups ({@link #find}) go through a hash index of each key's newest version
 * ({@link PointIndex}) and descend the skip list only when that version is newer than the
 * snapshot they read at; cursors use the skip list alone.
 *
 * <p>Concurrency: any number of readers ({@link #find}, cursors, accessors) run concurrently with
 * one writer. {@link #add} calls must be serialized by the caller (the engine holds its write
 * lock); overlapping calls are detected on entry and refused with an {@link IllegalStateException}.
 * A node is written completely, then published by release stores into its predecessors' next
 * pointers, bottom level first; readers load next pointers with acquire semantics, so they never
 * see a partial entry. Nodes are never removed, so a reader that starts after an add returned
 * sees that entry.
 *
 * <p>{@link #close()} frees all memory at once. The owner must make sure no reader still uses the
 * memtable (the engine reference-counts it); a call after close throws
 * {@link IllegalStateException} ("memtable is closed"), and a reader racing with close gets an
 * {@link IllegalStateException} from the FFM API rather than a crash.
 */
public final class Memtable implements AutoCloseable {
    /** Default size of a memory chunk: 2 MiB, one huge page (see {@link dev.remixdb.io.PageMemory}). */
    public static final int DEFAULT_CHUNK_SIZE = 2 << 20;

    /** With a branching factor of 4, 20 levels stay logarithmic up to 4^20 (10^12) entries. */
    static final int MAX_HEIGHT = 20;
    private static final int HEADER = 16;
    private static final int TOMBSTONE = 0x8000_0000;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final VarHandle NEXT = ValueLayout.JAVA_LONG.varHandle();

    private final ChunkAllocator memory;
    private final PointIndex index = new PointIndex();
    private final long head;
    private final AtomicBoolean adding = new AtomicBoolean();
    /** Writer-only scratch: the predecessor of the new node at each level. */
    private final long[] preds = new long[MAX_HEIGHT];
    /** Levels in use; readers may read a stale lower value, which only costs them a few steps. */
    private volatile int levels = 1;
    private long random = 0x9E3779B97F4A7C15L;
    private volatile long entryCount;
    private volatile long dataBytes;
    private volatile long maxSeq = -1;

    /** A memtable with 2 MiB chunks. */
    public Memtable() {
        this(DEFAULT_CHUNK_SIZE);
    }

    /** A memtable whose memory comes in chunks of {@code chunkSize} bytes (4 KiB to 1 GiB). */
    public Memtable(int chunkSize) {
        if (chunkSize < 4096 || chunkSize > 1 << 30) {
            throw new IllegalArgumentException("chunk size must be in [4096, 2^30]: " + chunkSize);
        }
        memory = new ChunkAllocator(chunkSize);
        head = memory.allocate(8L * MAX_HEIGHT + HEADER) + 8L * MAX_HEIGHT;
    }

    // ---------------------------------------------------------------- writing

    /**
     * Adds version {@code seq} of a key: a value, or a tombstone when {@code tombstone} (the value
     * is then ignored and may be null). The key and value are copied. Adding a (key, seq) that is
     * already present is a caller bug and throws {@link IllegalArgumentException}; so do a negative
     * seq and a key or value over the {@link Limits} ({@link IndexOutOfBoundsException} for a range outside
     * its segment). Nothing is changed when an exception is thrown.
     * Single writer: see the class comment.
     */
    public void add(long seq, MemorySegment key, long keyOff, int keyLen,
                    MemorySegment value, long valueOff, int valueLen, boolean tombstone) {
        checkOpen();
        Objects.requireNonNull(key, "key");
        if (seq < 0) {
            throw new IllegalArgumentException("seq must not be negative: " + seq);
        }
        Limits.checkKeyLength(keyLen);
        Objects.checkFromIndexSize(keyOff, keyLen, key.byteSize());
        if (tombstone) {
            valueLen = 0;
        } else {
            Objects.requireNonNull(value, "value");
            Limits.checkValueLength(valueLen);
            Objects.checkFromIndexSize(valueOff, valueLen, value.byteSize());
        }
        if (!adding.compareAndSet(false, true)) {
            throw new IllegalStateException("concurrent Memtable.add: callers must serialize writers");
        }
        try {
            insert(seq, key, keyOff, keyLen, value, valueOff, valueLen, tombstone);
        } finally {
            adding.set(false);
        }
    }

    /** Adds a value; see {@link #add(long, MemorySegment, long, int, MemorySegment, long, int, boolean)}. */
    public void add(long seq, byte[] key, byte[] value) {
        Objects.requireNonNull(value, "value");
        add(seq, MemorySegment.ofArray(key), 0, key.length, MemorySegment.ofArray(value), 0, value.length, false);
    }

    /** Adds a tombstone; see {@link #add(long, MemorySegment, long, int, MemorySegment, long, int, boolean)}. */
    public void delete(long seq, byte[] key) {
        add(seq, MemorySegment.ofArray(key), 0, key.length, null, 0, 0, true);
    }

    private void insert(long seq, MemorySegment key, long keyOff, int keyLen,
                        MemorySegment value, long valueOff, int valueLen, boolean tombstone) {
        long found = ceiling(key, keyOff, keyLen, seq, preds);
        if (found != NULL && seq(found) == seq && keyEquals(found, key, keyOff, keyLen)) {
            throw new IllegalArgumentException("duplicate entry: this key already has seq " + seq);
        }
        int height = randomHeight();
        long node = memory.allocate(align8(8L * height + HEADER + keyLen + valueLen)) + 8L * height;
        MemorySegment seg = memory.segment(node);
        long at = ChunkAllocator.offset(node);
        seg.set(LONG, at, seq);
        seg.set(INT, at + 8, keyLen);
        seg.set(INT, at + 12, tombstone ? valueLen | TOMBSTONE : valueLen);
        MemorySegment.copy(key, keyOff, seg, at + HEADER, keyLen);
        if (valueLen > 0) {
            MemorySegment.copy(value, valueOff, seg, at + HEADER + keyLen, valueLen);
        }
        int used = levels;
        for (int i = used; i < height; i++) {
            preds[i] = head;
        }
        // The node is private until the first release store below, so plain stores suffice here.
        for (int i = 0; i < height; i++) {
            seg.set(LONG, at - 8L * (i + 1), next(preds[i], i));
        }
        for (int i = 0; i < height; i++) {
            NEXT.setRelease(memory.segment(preds[i]), ChunkAllocator.offset(preds[i]) - 8L * (i + 1), node);
        }
        if (height > used) {
            levels = height;
        }
        index.put(PointIndex.nonZero(Keys.hash64(key, keyOff, keyLen)), node, this);
        entryCount = entryCount + 1;
        dataBytes = dataBytes + keyLen + valueLen;
        if (seq > maxSeq) {
            maxSeq = seq;
        }
    }

    /** Height with P(h > k) = 4^-k: two random bits per level (xorshift, writer only). */
    private int randomHeight() {
        long r = random;
        r ^= r << 13;
        r ^= r >>> 7;
        r ^= r << 17;
        random = r;
        int height = 1;
        while (height < MAX_HEIGHT && (r & 3) == 0) {
            height++;
            r >>>= 2;
        }
        return height;
    }

    private static long align8(long n) {
        return (n + 7) & ~7L;
    }

    // ---------------------------------------------------------------- reading

    /** The newest version of the key with seq {@code <= snapshotSeq}: a node handle, or -1 when none. */
    public long find(MemorySegment key, long keyOff, int keyLen, long snapshotSeq) {
        checkOpen();
        long newest = index.find(PointIndex.nonZero(Keys.hash64(key, keyOff, keyLen)), this, key, keyOff, keyLen);
        if (newest == NULL) {
            return -1;
        }
        if (seq(newest) <= snapshotSeq) {
            return newest;
        }
        // A version newer than the snapshot: an older one, if any, is found in the skip list.
        long n = ceiling(key, keyOff, keyLen, snapshotSeq, null);
        return n != NULL && keyEquals(n, key, keyOff, keyLen) ? n : -1;
    }

    /** {@link #find(MemorySegment, long, int, long)} for a heap key. */
    public long find(byte[] key, long snapshotSeq) {
        return find(MemorySegment.ofArray(key), 0, key.length, snapshotSeq);
    }

    /**
     * A cursor over the newest version with seq {@code <= snapshotSeq} of each key. Cheap; one per
     * thread.
     */
    public MemtableCursor cursor(long snapshotSeq) {
        checkOpen();
        return new MemtableCursor(this, snapshotSeq);
    }

    /** Whether the node is a tombstone. */
    public boolean isTombstone(long node) {
        checkOpen();
        return (rawValueLength(node) & TOMBSTONE) != 0;
    }

    /** The node's seq. */
    public long seq(long node) {
        checkOpen();
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node));
    }

    /**
     * The chunk that holds the node's key and value, for allocation-free access together with
     * {@link #keyOffset}, {@link #keyLength}, {@link #valueOffset} and {@link #valueLength}.
     * Read-only, valid while the memtable is open.
     */
    public MemorySegment segment(long node) {
        checkOpen();
        return memory.view(node);
    }

    /** Offset of the node's key in {@link #segment(long)}. */
    public long keyOffset(long node) {
        return ChunkAllocator.offset(node) + HEADER;
    }

    /** Length of the node's key. */
    public int keyLength(long node) {
        checkOpen();
        return memory.segment(node).get(INT, ChunkAllocator.offset(node) + 8);
    }

    /** Offset of the node's value in {@link #segment(long)}. */
    public long valueOffset(long node) {
        return keyOffset(node) + keyLength(node);
    }

    /** Length of the node's value; 0 for a tombstone. */
    public int valueLength(long node) {
        return rawValueLength(node) & ~TOMBSTONE;
    }

    /** A copy of the node's key. */
    public byte[] key(long node) {
        return keySegment(node).toArray(ValueLayout.JAVA_BYTE);
    }

    /** A copy of the node's value (empty for a tombstone). */
    public byte[] value(long node) {
        return valueSegment(node).toArray(ValueLayout.JAVA_BYTE);
    }

    /** A read-only view of the node's key, valid while the memtable is open. */
    public MemorySegment keySegment(long node) {
        return segment(node).asSlice(keyOffset(node), keyLength(node));
    }

    /** A read-only view of the node's value, valid while the memtable is open. */
    public MemorySegment valueSegment(long node) {
        return segment(node).asSlice(valueOffset(node), valueLength(node));
    }

    /** Number of entries (versions and tombstones) added. */
    public long entryCount() {
        return entryCount;
    }

    /** Key and value bytes added, without the index and chunk overhead. */
    public long dataBytes() {
        return dataBytes;
    }

    /** Native memory reserved, chunks and point index included. */
    public long memoryBytes() {
        return memory.reservedBytes() + index.reservedBytes();
    }

    /** The largest seq added, or -1 when empty. */
    public long maxSeq() {
        return maxSeq;
    }

    /** Whether {@link #close()} has not been called yet. */
    public boolean isOpen() {
        return memory.isOpen();
    }

    /** Frees all memory. Idempotent. No reader may use the memtable or its views afterwards. */
    @Override
    public synchronized void close() {
        memory.close();
        index.close();
    }

    @Override
    public String toString() {
        return "Memtable[entries=" + entryCount + ", dataBytes=" + dataBytes + ", memoryBytes="
                + memoryBytes() + (isOpen() ? "" : ", closed") + "]";
    }

    // ---------------------------------------------------------------- skip list, for the cursor

    void checkOpen() {
        if (!memory.isOpen()) {
            throw new IllegalStateException("memtable is closed");
        }
    }

    long head() {
        return head;
    }

    long next(long node, int level) {
        return (long) NEXT.getAcquire(memory.segment(node), ChunkAllocator.offset(node) - 8L * (level + 1));
    }

    private int rawValueLength(long node) {
        checkOpen();
        return memory.segment(node).get(INT, ChunkAllocator.offset(node) + 12);
    }

    /** Order of the node against (key, seq): key ascending, then seq descending. */
    private int compare(long node, MemorySegment key, long keyOff, int keyLen, long seq) {
        MemorySegment seg = memory.segment(node);
        long at = ChunkAllocator.offset(node);
        int c = Keys.compare(seg, at + HEADER, seg.get(INT, at + 8), key, keyOff, keyLen);
        return c != 0 ? c : Long.compare(seq, seg.get(LONG, at));
    }

    boolean keyEquals(long node, MemorySegment key, long keyOff, int keyLen) {
        MemorySegment seg = memory.segment(node);
        long at = ChunkAllocator.offset(node);
        return seg.get(INT, at + 8) == keyLen
                && MemorySegment.mismatch(seg, at + HEADER, at + HEADER + keyLen, key, keyOff, keyOff + keyLen) < 0;
    }

    boolean sameKey(long a, long b) {
        return keyEquals(a, memory.segment(b), keyOffset(b), keyLength(b));
    }

    /**
     * The first node at or after (key, seq), or 0. With {@code preds}, also records the last node
     * before it at every level in use (writer only). {@code seq = Long.MIN_VALUE} finds the first
     * node of the next key.
     */
    long ceiling(MemorySegment key, long keyOff, int keyLen, long seq, long[] preds) {
        long x = head;
        long n = NULL;
        for (int level = levels - 1; level >= 0; level--) {
            n = next(x, level);
            while (n != NULL && compare(n, key, keyOff, keyLen, seq) < 0) {
                x = n;
                n = next(x, level);
            }
            if (preds != null) {
                preds[level] = x;
            }
        }
        return n;
    }

    /** The first node at or after (key of {@code node}, seq). */
    long ceilingOfKey(long node, long seq) {
        return ceiling(memory.segment(node), keyOffset(node), keyLength(node), seq, null);
    }

    /** The last node whose key is below {@code key} (the oldest version of that key), or the head. */
    long lastBelow(MemorySegment key, long keyOff, int keyLen) {
        long x = head;
        for (int level = levels - 1; level >= 0; level--) {
            long n = next(x, level);
            while (n != NULL && compare(n, key, keyOff, keyLen, Long.MAX_VALUE) < 0) {
                x = n;
                n = next(x, level);
            }
        }
        return x;
    }

    /** The last node of the list, or the head when empty. */
    long last() {
        long x = head;
        for (int level = levels - 1; level >= 0; level--) {
            long n = next(x, level);
            while (n != NULL) {
                x = n;
                n = next(x, level);
            }
        }
        return x;
    }
}
