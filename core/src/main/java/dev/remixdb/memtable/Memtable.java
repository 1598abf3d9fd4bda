package dev.remixdb.memtable;

import static dev.remixdb.memtable.ChunkAllocator.NULL;

import dev.remixdb.remix.Keys;
import dev.remixdb.util.Limits;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An ordered map of (key, seq) to a value or a tombstone, in native memory, with lock-free readers.
 * Entries are ordered by key (unsigned lexicographic) ascending, then by seq <em>descending</em>, so
 * the first entry of a key at or below a snapshot seq is the version that snapshot sees.
 *
 * <p>Entries ({@link Entries}) are written once into chunks of one shared arena
 * ({@link ChunkAllocator}) and addressed by handles; the heap holds no per-entry objects. An
 * {@link OrderedIndex} orders the handles: a B+-tree with 8-byte key prefixes in its nodes
 * ({@link LeafTree}), so that an insert costs a few cache misses, not one per skip-list level.
 *
 * <p>Point lookups ({@link #find}) go through a hash index of each key's newest version
 * ({@link PointIndex}) and search the ordered index only when that version is newer than the
 * snapshot they read at; cursors use the ordered index alone.
 *
 * <p>Concurrency: any number of readers ({@link #find}, cursors, accessors) run concurrently with
 * one writer. {@link #add} calls must be serialized by the caller (the engine holds its write
 * lock); overlapping calls are detected on entry and refused with an {@link IllegalStateException}.
 * An entry is written completely before the index publishes it, and readers never see a partial
 * entry. Entries are never removed, so a reader that starts after an add returned sees that entry.
 *
 * <p>{@link #close()} frees all memory at once. The owner must make sure no reader still uses the
 * memtable (the engine reference-counts it); a call after close throws
 * {@link IllegalStateException} ("memtable is closed"), and a reader racing with close gets an
 * {@link IllegalStateException} from the FFM API rather than a crash.
 */
public final class Memtable implements AutoCloseable {
    /** Default size of a memory chunk: 2 MiB, one huge page (see {@link dev.remixdb.io.PageMemory}). */
    public static final int DEFAULT_CHUNK_SIZE = 2 << 20;

    /** The ordered indexes a memtable can use: the tree, and the skip list kept for comparison. */
    public enum IndexKind {
        /** {@link LeafTree}, the default. */
        TREE,
        /** {@link SkipListIndex}, the index before it (for benchmarks). */
        SKIP_LIST
    }

    private final ChunkAllocator memory;
    private final Entries entries;
    private final OrderedIndex ordered;
    private final PointIndex index = new PointIndex();
    /** Whether {@link #index} holds every key; cleared for good by {@link #stopPointIndex()}. */
    private volatile boolean pointIndexed = true;
    private final AtomicBoolean adding = new AtomicBoolean();
    private volatile long entryCount;
    /** Tombstones among {@link #entryCount}, and among the deferred entries not linked yet. */
    private volatile long tombstoneCount;
    /**
     * See {@link #liveEstimate()}. The one writer stores it with release semantics, not as a
     * volatile: a full fence per insert for a figure only stats read.
     */
    private long liveEstimate;
    private static final java.lang.invoke.VarHandle LIVE_ESTIMATE;

    static {
        try {
            LIVE_ESTIMATE = java.lang.invoke.MethodHandles.lookup().findVarHandle(Memtable.class, "liveEstimate", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private int deferredTombstones;
    private volatile long dataBytes;
    /** Range deletes, oldest first; replaced whole on each one (they are few). */
    private volatile RangeTombstone[] ranges = NO_RANGES;
    private static final RangeTombstone[] NO_RANGES = {};
    private volatile long maxSeq = -1;
    /** Entries added by {@link #addDeferred}, not in the ordered index yet. Writer only. */
    private final DeferredEntries deferred = new DeferredEntries();
    /** Data bytes at which the owner freezes this memtable, 0 when unknown (see {@link #expectFullAt}). */
    private long fullAt;

    /** A memtable with 2 MiB chunks. */
    public Memtable() {
        this(DEFAULT_CHUNK_SIZE);
    }

    /** A memtable whose memory comes in chunks of {@code chunkSize} bytes (4 KiB to 1 GiB). */
    public Memtable(int chunkSize) {
        this(chunkSize, IndexKind.TREE);
    }

    /** A memtable with chunks of {@code chunkSize} bytes and the given ordered index. */
    public Memtable(int chunkSize, IndexKind kind) {
        if (chunkSize < 4096 || chunkSize > 1 << 30) {
            throw new IllegalArgumentException("chunk size must be in [4096, 2^30]: " + chunkSize);
        }
        memory = new ChunkAllocator(chunkSize);
        entries = new Entries(memory);
        ordered = switch (kind) {
            case TREE -> new LeafTree(memory, entries);
            case SKIP_LIST -> new SkipListIndex(memory, entries);
        };
    }

    // ---------------------------------------------------------------- writing

    /**
     * Adds version {@code seq} of a key: a value, or a tombstone when {@code tombstone} (the value
     * is then ignored and may be null). The key and value are copied first, and everything after
     * reads the copy: a caller that changes its arrays during the call cannot put the index out of
     * order, it only changes what is stored. Adding a (key, seq) that is already present is a caller
     * bug and throws {@link IllegalArgumentException} (the copy's memory stays allocated until the
     * memtable is freed); so do a negative seq and a key or value over the {@link Limits}
     * ({@link IndexOutOfBoundsException} for a range outside its segment). Otherwise nothing is
     * changed when an exception is thrown. Single writer: see the class comment.
     *
     * @return the new entry's node handle, for {@link #segment}, {@link #keyOffset} and {@link #valueOffset}
     */
    public long add(long seq, MemorySegment key, long keyOff, int keyLen,
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
            return insert(seq, key, keyOff, keyLen, value, valueOff, valueLen, tombstone);
        } finally {
            adding.set(false);
        }
    }

    /** Adds a value; see {@link #add(long, MemorySegment, long, int, MemorySegment, long, int, boolean)}. */
    public long add(long seq, byte[] key, byte[] value) {
        Objects.requireNonNull(value, "value");
        return addArrays(seq, key, value, false);
    }

    /** Adds a tombstone; see {@link #add(long, MemorySegment, long, int, MemorySegment, long, int, boolean)}. */
    public long delete(long seq, byte[] key) {
        return addArrays(seq, key, null, true);
    }

    /** {@link #add} from arrays, copied straight from the heap (no segment wrappers per write). */
    private long addArrays(long seq, byte[] key, byte[] value, boolean tombstone) {
        if (seq < 0) {
            throw new IllegalArgumentException("seq must not be negative: " + seq);
        }
        return copyIn(seq, key, value, tombstone, false);
    }

    /**
     * Checks and copies an entry from arrays, then links it with {@code seq}, or with {@code staged}
     * keeps it for {@link #linkDeferred} (seq 0 until then; no reader can reach it before). Returns
     * its handle.
     */
    private long copyIn(long seq, byte[] key, byte[] value, boolean tombstone, boolean staged) {
        checkOpen();
        Objects.requireNonNull(key, "key");
        Limits.checkKeyLength(key.length);
        int valueLen = tombstone ? 0 : value.length;
        Limits.checkValueLength(valueLen);
        if (!adding.compareAndSet(false, true)) {
            throw new IllegalStateException("concurrent Memtable.add: callers must serialize writers");
        }
        try {
            long e = ordered.allocate(Entries.bytes(key.length, valueLen));
            entries.write(e, seq, key, value, valueLen, tombstone);
            if (!staged) {
                return link(e, seq, key.length, valueLen, tombstone);
            }
            deferred.add(e);
            if (tombstone) {
                deferredTombstones++;
            }
            dataBytes = dataBytes + key.length + valueLen;
            return e;
        } finally {
            adding.set(false);
        }
    }

    private long insert(long seq, MemorySegment userKey, long userKeyOff, int keyLen,
                        MemorySegment value, long valueOff, int valueLen, boolean tombstone) {
        long e = ordered.allocate(Entries.bytes(keyLen, valueLen));
        entries.write(e, seq, userKey, userKeyOff, keyLen, value, valueOff, valueLen, tombstone);
        return link(e, seq, keyLen, valueLen, tombstone);
    }

    /** Puts the written entry {@code e} into the index (and the point index) and counts it. */
    private long link(long e, long seq, int keyLen, int valueLen, boolean tombstone) {
        // From here on the entry's own copy of the key: the caller's array may be changing under us
        // (its bug), and the index must see one key throughout.
        MemorySegment key = entries.segment(e);
        long keyOff = entries.keyOffset(e);
        // A seq above every one added so far: every write but a compaction's re-insert.
        boolean newest = seq > maxSeq;
        long found = ordered.locate(key, keyOff, keyLen, seq, newest);
        // Only a seq at or below the largest added can repeat one: the check reads the entry after
        // the new one, a cache miss, so a write with a fresh seq skips it.
        if (found != NULL && !newest && entries.seq(found) == seq && entries.keyEquals(found, key, keyOff, keyLen)) {
            throw new IllegalArgumentException("duplicate entry: this key already has seq " + seq);
        }
        ordered.insert(e, key, keyOff, keyLen, seq);
        long prior = NULL;
        if (pointIndexed) {
            // A newest seq is its key's newest version.
            prior = index.put(PointIndex.nonZero(Keys.hash64(key, keyOff, keyLen)), e, this, newest);
        }
        LIVE_ESTIMATE.setRelease(this, liveEstimate + liveDelta(tombstone, newest ? prior : NULL));
        entryCount = entryCount + 1;
        if (tombstone) {
            tombstoneCount = tombstoneCount + 1;
        }
        dataBytes = dataBytes + keyLen + valueLen;
        if (newest) {
            maxSeq = seq;
        }
        return e;
    }

    // ---------------------------------------------------------------- deferred adds

    /**
     * Adds a value that readers do not see until {@link #linkDeferred} puts it in the index with
     * its sequence number: for bulk loads, where linking a memtable's worth of entries in key order
     * costs far less than inserting each where it falls (see {@link DeferredEntries}). The entry is
     * copied now and counts in {@link #dataBytes()} at once (the owner sizes memtables by it), in
     * {@link #entryCount()} once linked. Checks and single-writer rule as {@link #add}; a memtable
     * on the skip list (kept for benchmarks) refuses with {@link UnsupportedOperationException}.
     */
    public void addDeferred(byte[] key, byte[] value) {
        Objects.requireNonNull(value, "value");
        addDeferred(key, value, false);
    }

    /** A tombstone added as {@link #addDeferred(byte[], byte[])} adds a value. */
    public void deleteDeferred(byte[] key) {
        addDeferred(key, null, true);
    }

    private void addDeferred(byte[] key, byte[] value, boolean tombstone) {
        if (!ordered.canRebuild()) {
            // The skip list sizes a node's pointers at allocate() for the insert that follows it.
            throw new UnsupportedOperationException("deferred adds need the tree index, not " + ordered.getClass().getSimpleName());
        }
        copyIn(0, key, value, tombstone, true);
    }

    /** Entries added by {@link #addDeferred} and not linked yet. Writer only. */
    public int deferredCount() {
        return deferred.count();
    }

    /**
     * Gives the deferred entries seqs {@code firstSeq, firstSeq + 1, ...} in the order they were
     * added, and puts them in the index (and the point index, unless stopped) in key order, after
     * which readers at those seqs see them. {@code firstSeq} must be above every seq added so far.
     * Single writer, as {@link #add}.
     */
    public void linkDeferred(long firstSeq) {
        checkOpen();
        if (firstSeq <= maxSeq) {
            throw new IllegalArgumentException("deferred entries need seqs above " + maxSeq + ": " + firstSeq);
        }
        int n = deferred.count();
        if (n == 0) {
            return;
        }
        if (!adding.compareAndSet(false, true)) {
            throw new IllegalStateException("concurrent Memtable.add: callers must serialize writers");
        }
        try {
            for (int i = 0; i < n; i++) {
                entries.setSeq(deferred.handle(i), firstSeq + i);
            }
            int[] order = deferred.order(entries);
            long live;
            if (ordered.canRebuild() && entryCount <= n) {
                rebuildWithDeferred(order, firstSeq);
            } else {
                insertDeferred(order, firstSeq);
            }
            live = indexDeferred(n);
            deferred.clear();
            entryCount = entryCount + n;
            LIVE_ESTIMATE.setRelease(this, liveEstimate + live);
            tombstoneCount = tombstoneCount + deferredTombstones;
            deferredTombstones = 0;
            maxSeq = firstSeq + n - 1;
        } finally {
            adding.set(false);
        }
    }

    /**
     * The index rebuilt over its entries and the deferred ones merged, bottom-up: for a memtable
     * holding no more entries than come in, where inserting the deferred ones one at a time costs a
     * few cache misses each (a rebuild reads each key once, and those reads overlap). The old
     * index's nodes stay in the memtable's memory until it is freed; since a rebuild at least
     * doubles the entries, they add up to less than the index itself.
     */
    private void rebuildWithDeferred(int[] order, long firstSeq) {
        int n = order.length;
        int had = (int) entryCount;
        long[] old = had == 0 ? new long[0] : ordered.handles(had);
        long[] all = new long[had + n];
        int i = 0;
        int k = 0;
        int out = 0;
        while (i < had && k < n) {
            long d = deferred.handle(order[k]);
            // Deferred seqs are above every old one: for the same key the deferred entry goes first.
            if (entries.compare(old[i], entries.segment(d), entries.keyOffset(d), entries.keyLength(d), firstSeq + order[k]) < 0) {
                all[out++] = old[i++];
            } else {
                all[out++] = d;
                k++;
            }
        }
        while (i < had) {
            all[out++] = old[i++];
        }
        while (k < n) {
            all[out++] = deferred.handle(order[k++]);
        }
        ordered.rebuild(all, out);
    }

    /**
     * Puts the {@code n} deferred entries, linked already, into the point index; returns what they
     * add to {@link #liveEstimate()}.
     */
    private long indexDeferred(int n) {
        if (!pointIndexed) {
            return n - 2L * deferredTombstones;
        }
        long live = 0;
        // In the order added (their seqs'), each is its key's newest version so far.
        for (int j = 0; j < n; j++) {
            long e = deferred.handle(j);
            long prior = index.put(PointIndex.nonZero(Keys.hash64(entries.segment(e), entries.keyOffset(e),
                    entries.keyLength(e))), e, this, true);
            live += liveDelta((rawValueLength(e) & Entries.TOMBSTONE) != 0, prior);
        }
        return live;
    }

    /**
     * How {@link #liveEstimate()} changes when a key gets a newest version (a tombstone or not) that
     * replaces {@code prior} in the point index (NULL: the key had no version here, or it is not
     * known). A value counts 1 and a tombstone -1 where they are the key's first version here (the
     * tombstone hides one below). A tombstone over a value takes that value's 1 back and a value
     * over a tombstone adds it again: a put and its delete in one memtable count 0, a delete and a
     * re-put of a key below count 0 (it is still there once). Overwrites change nothing.
     */
    private long liveDelta(boolean tombstone, long prior) {
        if (prior == NULL) {
            return tombstone ? -1 : 1;
        }
        boolean priorTombstone = (rawValueLength(prior) & Entries.TOMBSTONE) != 0;
        if (tombstone) {
            return priorTombstone ? 0 : -1;
        }
        return priorTombstone ? 1 : 0;
    }

    /** The deferred entries inserted one at a time, in key order. */
    private void insertDeferred(int[] order, long firstSeq) {
        int n = order.length;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            long e = deferred.handle(i);
            long seq = firstSeq + i;
            MemorySegment key = entries.segment(e);
            long keyOff = entries.keyOffset(e);
            int keyLen = entries.keyLength(e);
            // Fresh seqs: no (key, seq) can repeat, and the search need not know which is newest.
            ordered.locate(key, keyOff, keyLen, seq, false);
            ordered.insert(e, key, keyOff, keyLen, seq);
        }
    }

    // ---------------------------------------------------------------- reading

    /** The newest version of the key with seq {@code <= snapshotSeq}: a node handle, or -1 when none. */
    public long find(MemorySegment key, long keyOff, int keyLen, long snapshotSeq) {
        checkOpen();
        if (!pointIndexed) {
            return findOrdered(key, keyOff, keyLen, snapshotSeq);
        }
        long newest = index.find(PointIndex.nonZero(Keys.hash64(key, keyOff, keyLen)), this, key, keyOff, keyLen);
        if (newest == NULL) {
            return -1;
        }
        if (seq(newest) <= snapshotSeq) {
            return newest;
        }
        // A version newer than the snapshot: an older one, if any, is found in the ordered index.
        return findOrdered(key, keyOff, keyLen, snapshotSeq);
    }

    private long findOrdered(MemorySegment key, long keyOff, int keyLen, long snapshotSeq) {
        long n = ordered.position().seekCeiling(key, keyOff, keyLen, snapshotSeq);
        return n != NULL && entries.keyEquals(n, key, keyOff, keyLen) ? n : -1;
    }

    /**
     * From now on, inserts skip the hash index and point lookups search the ordered index: for bulk
     * loads (unlogged restores), where the hash index costs a fifth of each insert and few reads
     * come. It cannot be turned back on: keys added meanwhile are not in the hash index. Called by
     * the writer (see the class comment); readers see the switch before any entry added after it.
     */
    public void stopPointIndex() {
        pointIndexed = false;
    }

    /**
     * Tells the memtable that its owner freezes it once it holds about {@code dataBytes} bytes of
     * keys and values, so that it does not prepare memory it will not fill (a point index table
     * twice the size it ends with). Writer only; it counts from the next add on.
     */
    public void expectFullAt(long dataBytes) {
        this.fullAt = dataBytes;
    }

    /**
     * Whether a count that is {@code now} at this memtable's size (its distinct keys, say) may still
     * grow to {@code target} before the memtable is full: projected at the data bytes seen so far
     * (see {@link #expectFullAt}); true when that is not known. Writer only.
     */
    boolean mayReach(long now, long target) {
        long bytes = dataBytes;
        if (fullAt <= 0 || bytes == 0) {
            return true;
        }
        return (double) fullAt / bytes * now >= target;
    }

    /** Whether point lookups use the hash index (see {@link #stopPointIndex()}). */
    public boolean pointIndexed() {
        return pointIndexed;
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
        return (rawValueLength(node) & Entries.TOMBSTONE) != 0;
    }

    /** The node's seq. */
    public long seq(long node) {
        checkOpen();
        return entries.seq(node);
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
        return entries.keyOffset(node);
    }

    /** Length of the node's key. */
    public int keyLength(long node) {
        checkOpen();
        return entries.keyLength(node);
    }

    /** Offset of the node's value in {@link #segment(long)}. */
    public long valueOffset(long node) {
        return keyOffset(node) + keyLength(node);
    }

    /** Length of the node's value; 0 for a tombstone. */
    public int valueLength(long node) {
        return rawValueLength(node) & ~Entries.TOMBSTONE;
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

    /**
     * Adds a range delete of [{@code from}, {@code to}) ({@code to} null: to the end) at {@code seq}.
     * The arrays are kept, not copied. Single writer, like {@link #add}.
     */
    public synchronized void deleteRange(long seq, byte[] from, byte[] to) {
        checkOpen();
        if (seq < 0) {
            throw new IllegalArgumentException("seq must not be negative: " + seq);
        }
        RangeTombstone[] next = java.util.Arrays.copyOf(ranges, ranges.length + 1);
        next[ranges.length] = new RangeTombstone(from, to, seq);
        dataBytes = dataBytes + from.length + (to == null ? 0 : to.length);
        if (seq > maxSeq) {
            maxSeq = seq;
        }
        ranges = next;
    }

    /** The range deletes added so far, oldest first (do not change the array). */
    public RangeTombstone[] rangeTombstones() {
        return ranges;
    }

    /** Whether nothing was added: no entry and no range delete. */
    public boolean isEmpty() {
        return entryCount == 0 && ranges.length == 0;
    }

    /** Number of entries (versions and tombstones) added. */
    public long entryCount() {
        return entryCount;
    }

    /**
     * What this memtable adds to the store's live keys, estimated: a key whose versions here the
     * point index saw replace each other counts once (see {@link #liveDelta}: 1 when it was put
     * here, -1 when a key below was deleted here, 0 when it was put and deleted here), so that
     * overwrites do not inflate it. Where the index did not see it (a memtable past its point index,
     * entries inserted below a newer version, deferred entries inserted one at a time), each entry
     * counts on its own: 1 for a value, -1 for a tombstone. Range deletes are not counted.
     */
    public long liveEstimate() {
        return (long) LIVE_ESTIMATE.getAcquire(this);
    }

    /** Number of tombstones among {@link #entryCount()} (range deletes not included). */
    public long tombstoneCount() {
        return tombstoneCount;
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

    // ---------------------------------------------------------------- for the cursor and the point index

    void checkOpen() {
        if (!memory.isOpen()) {
            throw new IllegalStateException("memtable is closed");
        }
    }

    /** A reader's position in the ordered index. */
    OrderedIndex.Position position() {
        return ordered.position();
    }

    private int rawValueLength(long node) {
        checkOpen();
        return entries.rawValueLength(node);
    }

    boolean keyEquals(long node, MemorySegment key, long keyOff, int keyLen) {
        return entries.keyEquals(node, key, keyOff, keyLen);
    }

    /** The ordered index (for tests in this package). */
    OrderedIndex orderedIndex() {
        return ordered;
    }

    boolean sameKey(long a, long b) {
        return entries.sameKey(a, b);
    }
}
