package dev.remixdb.memtable;

import static dev.remixdb.memtable.ChunkAllocator.NULL;

import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The ordered index of a {@link Memtable}: a B+-tree over entry handles, ordered by key ascending,
 * then seq descending, built for a single writer and any number of lock-free readers.
 *
 * <p>Why not a skip list: an insert into a skip list of n entries follows about log4(n) levels of
 * pointers, and below the few cached top levels every hop is a cache miss, a dependent one. Here a
 * search reads two or three inner nodes (the upper ones stay cached) and one leaf, each a contiguous
 * array: a slot is found by counting the 8-byte key prefixes stored in the node below and above the
 * key's, longs in memory fetched together, and an entry itself is read only when prefixes tie.
 *
 * <p>Prefixes: a node's keys all lie between its low and high fence keys, so they share the bytes
 * the two fences share ({@code skip} of them); a slot's prefix is the 8 key bytes after those,
 * big-endian, zero-padded. Keys with long common prefixes (user1234...) still get distinct prefixes.
 * A node with an open fence (the root, the leftmost and rightmost nodes of each level) has no such
 * bound, so its skip is what its own keys share, lowered (and its prefixes redone) when an insert
 * shares less; a search there first compares the key's first {@code skip} bytes with the node's
 * reference key (its low fence, or else its first key): a key that differs in them sorts before or
 * after every slot. Without this the root, whose fences are always open, would compare whole keys
 * at every step whenever keys share their first 8 bytes, as 16-digit hex keys do.
 *
 * <p>Node layout (native order, in the memtable's chunks; leaves and inner nodes alike):
 * <pre>
 * offset        size   field
 * 0             8      version: a seqlock, odd while the writer changes the node
 * 8             4      count: slots in use (leaf: entries; inner: children)
 * 12            4      level: 0 for a leaf
 * 16            8      right sibling, 0 at the right end (B-link: readers that raced a split follow it)
 * 24            8      left sibling (leaves only), 0 at the left end
 * 32            8      low fence: entry whose (key, seq) is the node's lower bound, 0 for minus infinity
 * 40            8      high fence: the right sibling's low fence (exclusive), 0 for plus infinity
 * 48            4      skip: bytes every key of the node shares
 * 56            8 CAP  prefixes (leaf: of slot i's key; inner: of separator i, i &gt;= 1)
 * 56 + 8 CAP    8 CAP  leaf: entry handles; inner: separator i (an entry: the low fence of child i), i &gt;= 1
 * 56 + 16 CAP   8 CAP  inner only: child handles
 * </pre>
 *
 * <p>Concurrency: the writer changes a node between two increments of its version (odd, then even
 * with a release store); a reader reads the version, the fields it needs, and the version again, and
 * starts over from the root if the node changed. Slots only ever hold valid handles or 0 (fresh
 * memory is zeroed and shifts copy whole handles), so a reader racing a change reads stale values,
 * never garbage, and checks 0 before using one. A split first builds the new right node completely,
 * then links it into its left sibling (right pointer, high fence) under the left node's seqlock, then
 * adds it to the parent: a reader that reached the left node with a key at or past its high fence
 * moves right. Nothing is ever removed, so a handle a reader holds stays valid.
 */
final class LeafTree implements OrderedIndex {
    static final int LEAF_CAP = 64;
    static final int INNER_CAP = 64;

    private static final int VERSION = 0;
    private static final int COUNT = 8;
    private static final int LEVEL = 12;
    private static final int RIGHT = 16;
    private static final int LEFT = 24;
    private static final int LOW = 32;
    private static final int HIGH = 40;
    private static final int SKIP = 48;
    private static final int SLOTS = 56;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final VarHandle LONG_VH = ValueLayout.JAVA_LONG.varHandle();
    /** No bound known for a node's keys: never equal to a handle (those are 0 or positive). */
    private static final long UNKNOWN = -1;

    private final ChunkAllocator memory;
    private final Entries entries;
    /** The root node; the writer publishes a new one (after building it) with a volatile store. */
    private volatile long root;
    /** Writer-only: the inner nodes on the path to the last leaf searched, and the child index in each. */
    private final long[] pathNodes = new long[32];
    private final int[] pathIndex = new int[32];
    private int pathDepth;
    /** Writer-only: the leaf the last insert went into. */
    private long lastLeaf = NULL;
    /**
     * Writer-only: whether the last two inserts went into the same leaf. Then the next search first
     * tries that leaf alone, which for ascending keys (sequential ids, timestamps) is the rightmost
     * leaf every time: every level of a descent along the right edge has open fences, so each costs
     * a comparison with an entry that is rarely cached, beside the count over 64 prefixes. Random
     * keys seldom land in one leaf twice in a row, so they almost never pay for the try.
     */
    private boolean repeatLeaf;

    LeafTree(ChunkAllocator memory, Entries entries) {
        this.memory = memory;
        this.entries = entries;
        this.root = newNode(0, NULL, NULL);
    }

    private static long leafBytes() {
        return SLOTS + 16L * LEAF_CAP;
    }

    private static long innerBytes() {
        return SLOTS + 24L * INNER_CAP;
    }

    /** A node with no slots yet and skip 0; the caller fills it and sets its skip before publishing it. */
    private long newNode(int level, long low, long high) {
        long n = memory.allocate(level == 0 ? leafBytes() : innerBytes());
        MemorySegment s = memory.segment(n);
        long at = ChunkAllocator.offset(n);
        s.set(INT, at + LEVEL, level);
        s.set(LONG, at + LOW, low);
        s.set(LONG, at + HIGH, high);
        return n;
    }

    private int commonPrefix(long a, long b) {
        return Keys.commonPrefix(entries.segment(a), entries.keyOffset(a), entries.keyLength(a),
                entries.segment(b), entries.keyOffset(b), entries.keyLength(b));
    }

    /**
     * Bytes every key the node can hold shares, given its fences and its first {@code count} slots:
     * keys between two keys share what those two share, so the bounds are the fences where closed
     * and the node's first and last keys where not.
     */
    private int boundSkip(long node, int count, int cap) {
        int first = level(node) == 0 ? 0 : 1;
        long low = low(node);
        long high = high(node);
        long a = low != NULL ? low : count > first ? handleAt(node, first, cap) : NULL;
        long b = high != NULL ? high : count > first ? handleAt(node, count - 1, cap) : NULL;
        return a == NULL || b == NULL ? 0 : commonPrefix(a, b);
    }

    /** Whether a key that reaches the node may differ from its keys within their shared first bytes. */
    private boolean open(long node) {
        return low(node) == NULL || high(node) == NULL;
    }

    /** The key whose first skip bytes all the node's keys share: its low fence, or else its first key. */
    private long reference(long node, int count, int cap) {
        long low = low(node);
        if (low != NULL) {
            return low;
        }
        int first = level(node) == 0 ? 0 : 1;
        return count > first ? handleAt(node, first, cap) : NULL;
    }

    /** Sets the node's skip and recomputes the prefixes of its first {@code count} slots (writer, in a seqlock section or unpublished). */
    private void reskip(long node, int count, int cap, int skip) {
        MemorySegment s = memory.segment(node);
        long at = ChunkAllocator.offset(node);
        s.set(INT, at + SKIP, skip);
        for (int i = level(node) == 0 ? 0 : 1; i < count; i++) {
            long h = handleAt(node, i, cap);
            s.set(LONG, at + SLOTS + 8L * i, Keys.head(entries.segment(h), entries.keyOffset(h), entries.keyLength(h), skip));
        }
    }

    // ---------------------------------------------------------------- node fields

    private int cap(long node) {
        return level(node) == 0 ? LEAF_CAP : INNER_CAP;
    }

    long version(long node) {
        return (long) LONG_VH.getAcquire(memory.segment(node), ChunkAllocator.offset(node) + VERSION);
    }

    int count(long node) {
        return memory.segment(node).get(INT, ChunkAllocator.offset(node) + COUNT);
    }

    int level(long node) {
        return memory.segment(node).get(INT, ChunkAllocator.offset(node) + LEVEL);
    }

    long right(long node) {
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node) + RIGHT);
    }

    long left(long node) {
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node) + LEFT);
    }



    private long low(long node) {
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node) + LOW);
    }

    private long high(long node) {
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node) + HIGH);
    }

    private int skip(long node) {
        return memory.segment(node).get(INT, ChunkAllocator.offset(node) + SKIP);
    }

    private long prefixAt(long node, int i) {
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node) + SLOTS + 8L * i);
    }

    /** Leaf: the entry in slot i; inner: separator i. */
    long handleAt(long node, int i, int cap) {
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node) + SLOTS + 8L * cap + 8L * i);
    }

    private long childAt(long node, int i) {
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node) + SLOTS + 16L * INNER_CAP + 8L * i);
    }

    /** The reads since {@code v} saw one state of the node: its version is still {@code v}. */
    boolean unchanged(long node, long v) {
        VarHandle.loadLoadFence();
        return memory.segment(node).get(LONG, ChunkAllocator.offset(node) + VERSION) == v;
    }

    /** Waits out a change in progress; returns the even version to validate against. */
    long stableVersion(long node) {
        long v = version(node);
        while ((v & 1) != 0) {
            Thread.onSpinWait();
            v = version(node);
        }
        return v;
    }

    private void beginWrite(long node) {
        MemorySegment s = memory.segment(node);
        long at = ChunkAllocator.offset(node) + VERSION;
        s.set(LONG, at, s.get(LONG, at) + 1);
        VarHandle.storeStoreFence();
    }

    private void endWrite(long node) {
        MemorySegment s = memory.segment(node);
        long at = ChunkAllocator.offset(node) + VERSION;
        LONG_VH.setRelease(s, at, s.get(LONG, at) + 1);
    }

    // ---------------------------------------------------------------- keys

    /**
     * Order of (key, seq) against the entry {@code e} whose prefix in a node with {@code skip} is
     * {@code ePrefix}: negative when (key, seq) comes first. Keys ascend, seqs descend.
     */
    private int compareTo(MemorySegment key, long off, int len, long seq, long keyPrefix, long e, long ePrefix, int skip) {
        if (keyPrefix != ePrefix) {
            return Long.compareUnsigned(keyPrefix, ePrefix);
        }
        int c = Keys.compare(key, off + skip, len - skip, entries.segment(e), entries.keyOffset(e) + skip,
                entries.keyLength(e) - skip);
        return c != 0 ? c : Long.compare(entries.seq(e), seq);
    }

    /** Order of (key, seq) against entry {@code e}, from the first byte. */
    private int compareTo(MemorySegment key, long off, int len, long seq, long e) {
        int c = Keys.compare(key, off, len, entries.segment(e), entries.keyOffset(e), entries.keyLength(e));
        return c != 0 ? c : Long.compare(entries.seq(e), seq);
    }

    /**
     * In a node read between version checks: the number of slots (leaf) or separators (inner, from
     * index 1) at or below (key, seq) — for a leaf with {@code strict}, below it. Returns -1 when it
     * met a 0 handle, which only a torn read can show.
     */
    private int rank(long node, int count, int cap, MemorySegment key, long off, int len, long seq, boolean leaf,
                     boolean strict, boolean newest) {
        int skip = skip(node);
        int lo = leaf ? 0 : 1;
        if (skip > 0 && open(node)) {
            long ref = reference(node, count, cap);
            if (ref == NULL) {
                return -1;
            }
            int c = Keys.compare(key, off, Math.min(len, skip), entries.segment(ref), entries.keyOffset(ref),
                    Math.min(skip, entries.keyLength(ref)));
            if (c != 0) {
                // The key differs from every slot within the shared bytes: before them all or after.
                return c < 0 ? lo : count;
            }
        }
        long p = Keys.head(key, off, len, skip);
        // Slots whose prefix is below the key's come before it, those whose prefix is above come after
        // it, and prefixes ascend with the keys. The last prefix of every group of eight (one per
        // cache line) is compared first: the groups that end below the key come before it, and these
        // loads are independent, so a node that is not in cache costs about one memory latency, where
        // a binary search pays one per step. Then the group the key falls in is scanned. Only the
        // slots whose prefix ties need their entries read. A reader racing the writer may see the
        // prefixes out of order; every index stays within [lo, count], and the version check after
        // the search throws the answer away.
        MemorySegment s = memory.segment(node);
        long prefixes = ChunkAllocator.offset(node) + SLOTS;
        int groups = (count - lo) >>> 3;
        int groupsBelow = 0;
        for (int g = 0; g < groups; g++) {
            groupsBelow += Long.compareUnsigned(s.get(LONG, prefixes + 8L * (lo + 8 * g + 7)), p) < 0 ? 1 : 0;
        }
        // The group is counted, without a break (prefixes ascend, so the count is the index of the
        // first one at or above the key). C2 compiles a loop that leaves early with a predicate
        // speculated from its profile (profile_predicate); here it failed whenever the exit came
        // from a different slot than profiled, and every failure went through the interpreter
        // without a recompile: 4.4M deoptimizations in an 80-second YCSB F run, at 0.4x the
        // throughput of a run without them. The tie scan below had the same trap once (2.8M in a
        // YCSB A run), when it was a while loop with two exits.
        int from = lo + 8 * groupsBelow;
        int end = Math.min(count, from + 8);
        int below = from;
        for (int i = from; i < end; i++) {
            below += Long.compareUnsigned(s.get(LONG, prefixes + 8L * i), p) < 0 ? 1 : 0;
        }
        if (newest && len - skip <= 8 && (len == skip || key.get(ValueLayout.JAVA_BYTE, off + len - 1) != 0)) {
            // The writer's search for a seq above every seq in the tree, with a key whose rest fits in
            // the prefix and does not end in a zero byte: every slot whose prefix ties is a version of
            // this key (older, so after it) or a longer key that extends it with zero bytes (after
            // it too). A shorter key ties only when this one ends in zeros. So the new entry goes
            // before all ties, and no entry needs to be read: a hot key's versions, tens of them per
            // node under Zipfian updates, cost a binary search of cache misses otherwise.
            return below;
        }
        int notAbove = count;
        for (int i = below; i < count; i++) {
            if (s.get(LONG, prefixes + 8L * i) != p) {
                notAbove = i;
                break;
            }
        }
        lo = below;
        int hi = notAbove - 1;
        // Invariant: slots below lo are (at or) below the key, slots above hi are above it.
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long e = handleAt(node, mid, cap);
            if (e == NULL) {
                return -1;
            }
            int c = compareTo(key, off, len, seq, p, e, prefixAt(node, mid), skip);
            if (c > 0 || (c == 0 && !strict)) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Whether (key, seq) is at or past the node's high fence, so that it belongs to a right sibling. */
    private boolean pastHigh(long node, MemorySegment key, long off, int len, long seq) {
        long h = high(node);
        return h != NULL && compareTo(key, off, len, seq, h) >= 0;
    }

    // ---------------------------------------------------------------- reading

    /**
     * A position found by a reader: the leaf, the slot, and the leaf's version when read. {@code slot}
     * may equal the leaf's count (past its last entry).
     */
    record Found(long leaf, int slot, long version) {}

    /**
     * The leaf and slot of the first entry at or after (key, seq); the slot may equal the leaf's
     * count (the entry is then the first of a leaf further right).
     */
    Found find(MemorySegment key, long off, int len, long seq) {
        for (;;) {
            Found f = tryFind(key, off, len, seq);
            if (f != null) {
                return f;
            }
        }
    }

    private Found tryFind(MemorySegment key, long off, int len, long seq) {
        long node = root;
        // The bound above the key that the parent gave this node: the parent's next separator, or its
        // own high fence for its last child; UNKNOWN at the root and after a move right.
        long bound = UNKNOWN;
        for (;;) {
            long v = stableVersion(node);
            int level = level(node);
            // A node whose high fence is still the bound its parent gave has not split since: the
            // key, below that bound, is below its fence, and no entry need be read to know it. Only
            // a node split after its parent was read compares the key with its fence (a cache miss:
            // fence entries lie anywhere in memory).
            if (high(node) != bound && pastHigh(node, key, off, len, seq)) {
                long r = right(node);
                if (!unchanged(node, v) || r == NULL) {
                    return null;
                }
                node = r;
                bound = UNKNOWN;
                continue;
            }
            int count = count(node);
            if (level == 0) {
                int slot = rank(node, count, LEAF_CAP, key, off, len, seq, true, true, false);
                if (slot < 0 || !unchanged(node, v)) {
                    return null;
                }
                return new Found(node, slot, v);
            }
            int i = rank(node, count, INNER_CAP, key, off, len, seq, false, false, false) - 1;
            if (i < 0) {
                return null;
            }
            long child = childAt(node, i);
            long childBound = i + 1 < count ? handleAt(node, i + 1, INNER_CAP) : high(node);
            if (child == NULL || !unchanged(node, v)) {
                return null;
            }
            node = child;
            bound = childBound;
        }
    }

    /**
     * Checks what searches rely on, in every node: each slot's prefix is its key's (a separator's,
     * in an inner node) after the node's skip, and the prefixes ascend, so that {@link #rank} may
     * skip a group of eight by its last. For tests; writer only (no concurrent inserts).
     */
    void checkPrefixes() {
        checkPrefixes(root);
    }

    private void checkPrefixes(long node) {
        boolean leaf = level(node) == 0;
        int count = count(node);
        int skip = skip(node);
        long previous = 0;
        for (int i = leaf ? 0 : 1; i < count; i++) {
            long e = handleAt(node, i, leaf ? LEAF_CAP : INNER_CAP);
            long want = Keys.head(entries.segment(e), entries.keyOffset(e), entries.keyLength(e), skip);
            long got = prefixAt(node, i);
            if (got != want || Long.compareUnsigned(got, previous) < 0) {
                throw new IllegalStateException("node " + node + " (level " + level(node) + ", skip " + skip
                        + "), slot " + i + ": prefix " + Long.toHexString(got) + ", its key's is " + Long.toHexString(want)
                        + ", the slot before has " + Long.toHexString(previous));
            }
            previous = got;
        }
        if (!leaf) {
            for (int i = 0; i < count; i++) {
                checkPrefixes(childAt(node, i));
            }
        }
    }

    /**
     * Checks the links searches and walks rely on, in every node, after {@link #checkPrefixes}: each
     * child's fences are its separators in the parent, every key lies within its node's fences and
     * shares the node's first skip bytes, and the leaves' sibling links join them in order. For
     * tests; writer only.
     */
    void checkStructure() {
        checkPrefixes();
        long[] previousLeaf = {NULL};
        checkStructure(root, NULL, NULL, previousLeaf);
        if (previousLeaf[0] != NULL && right(previousLeaf[0]) != NULL) {
            throw new IllegalStateException("the last leaf " + previousLeaf[0] + " links right to " + right(previousLeaf[0]));
        }
    }

    private void checkStructure(long node, long low, long high, long[] previousLeaf) {
        if (low(node) != low || high(node) != high) {
            throw new IllegalStateException("node " + node + ": fences " + low(node) + ".." + high(node)
                    + ", its parent says " + low + ".." + high);
        }
        boolean leaf = level(node) == 0;
        int count = count(node);
        int cap = leaf ? LEAF_CAP : INNER_CAP;
        int skip = skip(node);
        long ref = reference(node, count, cap);
        for (int i = leaf ? 0 : 1; i < count; i++) {
            long e = handleAt(node, i, cap);
            if (low != NULL && compareTo(entries.segment(e), entries.keyOffset(e), entries.keyLength(e), entries.seq(e), low) < 0
                    || high != NULL && compareTo(entries.segment(e), entries.keyOffset(e), entries.keyLength(e), entries.seq(e), high) >= 0) {
                throw new IllegalStateException("node " + node + ", slot " + i + ": outside its fences");
            }
            if (ref != NULL && commonPrefix(e, ref) < skip) {
                throw new IllegalStateException("node " + node + ", slot " + i + ": shares less than the skip " + skip);
            }
        }
        if (leaf) {
            if (left(node) != previousLeaf[0] || previousLeaf[0] != NULL && right(previousLeaf[0]) != node) {
                throw new IllegalStateException("leaf " + node + " is not linked to the leaf before it, " + previousLeaf[0]);
            }
            previousLeaf[0] = node;
            return;
        }
        for (int i = 0; i < count; i++) {
            long childLow = i == 0 ? low : handleAt(node, i, INNER_CAP);
            long childHigh = i + 1 < count ? handleAt(node, i + 1, INNER_CAP) : high;
            checkStructure(childAt(node, i), childLow, childHigh, previousLeaf);
        }
    }

    /** The number of leaves (walks them; for tests and diagnostics). Writer only. */
    int leafCount() {
        int n = 0;
        for (long leaf = firstLeaf(); leaf != NULL; leaf = right(leaf)) {
            n++;
        }
        return n;
    }

    /** The leftmost leaf. */
    long firstLeaf() {
        for (;;) {
            long node = root;
            boolean torn = false;
            while (level(node) > 0) {
                long v = stableVersion(node);
                long child = childAt(node, 0);
                if (child == NULL || !unchanged(node, v)) {
                    torn = true;
                    break;
                }
                node = child;
            }
            if (!torn) {
                return node;
            }
        }
    }

    /** The rightmost leaf. */
    long lastLeaf() {
        for (;;) {
            long node = root;
            boolean torn = false;
            while (true) {
                long v = stableVersion(node);
                long r = right(node);
                if (r != NULL) {
                    if (!unchanged(node, v)) {
                        torn = true;
                        break;
                    }
                    node = r;
                    continue;
                }
                if (level(node) == 0) {
                    return node;
                }
                int count = count(node);
                long child = count > 0 ? childAt(node, count - 1) : NULL;
                if (child == NULL || !unchanged(node, v)) {
                    torn = true;
                    break;
                }
                node = child;
            }
            if (torn) {
                continue;
            }
        }
    }

    // ---------------------------------------------------------------- writing (one writer)

    @Override
    public long allocate(long entryBytes) {
        return memory.allocate(entryBytes);
    }

    /**
     * The entry at or after (key, seq) in its leaf, or 0 (the writer sees no concurrent change),
     * remembering the path for {@link #insert}.
     */
    @Override
    public long locate(MemorySegment key, long off, int len, long seq, boolean newest) {
        // A full leaf needs the path to its parents for a split: search from the root then.
        if (repeatLeaf && count(lastLeaf) < LEAF_CAP) {
            long leaf = lastLeaf;
            int count = count(leaf);
            int slot = -1;
            if (count > 0 && compareTo(key, off, len, seq, handleAt(leaf, count - 1, LEAF_CAP)) > 0
                    && !pastHigh(leaf, key, off, len, seq)) {
                // Ascending keys: after the last entry, which was just inserted and is in cache, and
                // before the high fence is this leaf's end. One comparison instead of the low fence's
                // and a count over every prefix in the leaf.
                slot = count;
            } else if (within(leaf, key, off, len, seq)) {
                slot = rank(leaf, count, LEAF_CAP, key, off, len, seq, true, true, newest);
            }
            if (slot >= 0) {
                pathNodes[0] = leaf;
                pathIndex[0] = slot;
                pathDepth = 0;
                return slot < count ? handleAt(leaf, slot, LEAF_CAP) : NULL;
            }
        }
        long node = root;
        int depth = 0;
        while (level(node) > 0) {
            int i = rank(node, count(node), INNER_CAP, key, off, len, seq, false, false, newest) - 1;
            pathNodes[depth] = node;
            pathIndex[depth] = i;
            depth++;
            node = childAt(node, i);
        }
        pathNodes[depth] = node;
        int slot = rank(node, count(node), LEAF_CAP, key, off, len, seq, true, true, newest);
        pathIndex[depth] = slot;
        pathDepth = depth;
        return slot < count(node) ? handleAt(node, slot, LEAF_CAP) : NULL;
    }

    /** Inserts entry {@code e} where the last {@link #locate} ended; the slot there holds a larger entry or none. */
    @Override
    public void insert(long e, MemorySegment key, long off, int len, long seq) {
        int depth = pathDepth;
        long leaf = pathNodes[depth];
        int slot = pathIndex[depth];
        if (count(leaf) == LEAF_CAP) {
            // Ascending inserts (the last two went into this leaf, and this one goes at its end):
            // only the last entry moves, so the leaf stays full and the inserts to come fill the new
            // one. A split in half would leave every leaf of an ascending load half empty.
            boolean append = repeatLeaf && leaf == lastLeaf && slot == LEAF_CAP;
            long right = split(leaf, depth, append ? LEAF_CAP - 1 : LEAF_CAP / 2);
            int half = count(leaf);
            // An entry at 'half' would sort before the right node's first (its low fence): left.
            if (slot > half) {
                leaf = right;
                slot -= half;
            }
        }
        insertSlot(leaf, slot, e, NULL);
        repeatLeaf = leaf == lastLeaf;
        lastLeaf = leaf;
    }

    /**
     * Whether (key, seq) lies between the fences of {@code leaf}, where a search from the root would
     * also lead: at or after its low fence (separators send equal keys right) and before its high one.
     */
    private boolean within(long leaf, MemorySegment key, long off, int len, long seq) {
        long low = low(leaf);
        return (low == NULL || compareTo(key, off, len, seq, low) >= 0) && !pastHigh(leaf, key, off, len, seq);
    }

    /**
     * Puts entry {@code handle} into slot {@code i} of a node with room: in a leaf, the entry; in an
     * inner node, separator i with {@code child} as child i.
     */
    private void insertSlot(long node, int i, long handle, long child) {
        MemorySegment s = memory.segment(node);
        long at = ChunkAllocator.offset(node);
        int count = count(node);
        boolean inner = level(node) > 0;
        int cap = inner ? INNER_CAP : LEAF_CAP;
        int skip = skip(node);
        int lowered = -1;
        if (skip > 0 && open(node)) {
            long ref = reference(node, count, cap);
            int shared = ref == NULL ? 0 : commonPrefix(handle, ref);
            if (shared < skip) {
                lowered = shared;
                skip = shared;
            }
        }
        long p = Keys.head(entries.segment(handle), entries.keyOffset(handle), entries.keyLength(handle), skip);
        beginWrite(node);
        if (lowered >= 0) {
            reskip(node, count, cap, lowered);
        }
        int moved = count - i;
        if (moved > 0) {
            MemorySegment.copy(s, at + SLOTS + 8L * i, s, at + SLOTS + 8L * (i + 1), 8L * moved);
            MemorySegment.copy(s, at + SLOTS + 8L * cap + 8L * i, s, at + SLOTS + 8L * cap + 8L * (i + 1), 8L * moved);
            if (inner) {
                long c = at + SLOTS + 16L * INNER_CAP;
                MemorySegment.copy(s, c + 8L * i, s, c + 8L * (i + 1), 8L * moved);
            }
        }
        s.set(LONG, at + SLOTS + 8L * i, p);
        s.set(LONG, at + SLOTS + 8L * cap + 8L * i, handle);
        if (inner) {
            s.set(LONG, at + SLOTS + 16L * INNER_CAP + 8L * i, child);
        }
        s.set(INT, at + COUNT, count + 1);
        endWrite(node);
    }

    /**
     * Splits the full node {@code pathNodes[depth]} in two: the upper half moves to a new right
     * sibling, which is then added to the parent (splitting it in turn when full). Returns the new
     * right node.
     */
    private long split(long node, int depth) {
        return split(node, depth, count(node) / 2);
    }

    /** {@link #split(long, int)}, moving the slots from {@code half} on (at least one, not all). */
    private long split(long node, int depth, int half) {
        int level = level(node);
        int cap = cap(node);
        int count = count(node);
        long sep = handleAt(node, half, cap);
        long oldHigh = high(node);
        long right = newNode(level, sep, oldHigh);
        MemorySegment rs = memory.segment(right);
        long ra = ChunkAllocator.offset(right);
        // Inner nodes: the separator at 'half' becomes the right node's low fence; its child is the
        // right node's child 0, with no separator of its own.
        for (int i = half; i < count; i++) {
            int j = i - half;
            long h = handleAt(node, i, cap);
            if (level == 0 || j > 0) {
                rs.set(LONG, ra + SLOTS + 8L * cap + 8L * j, h);
            }
            if (level > 0) {
                rs.set(LONG, ra + SLOTS + 16L * INNER_CAP + 8L * j, childAt(node, i));
            }
        }
        reskip(right, count - half, cap, boundSkip(right, count - half, cap));
        rs.set(INT, ra + COUNT, count - half);
        long oldRight = right(node);
        rs.set(LONG, ra + RIGHT, oldRight);
        if (level == 0) {
            rs.set(LONG, ra + LEFT, node);
        }
        // The left half: fewer slots, the new right link and high fence, and (with the tighter fences)
        // possibly a larger skip, so its prefixes are redone. One seqlock section.
        MemorySegment ls = memory.segment(node);
        long la = ChunkAllocator.offset(node);
        beginWrite(node);
        ls.set(INT, la + COUNT, half);
        ls.set(LONG, la + RIGHT, right);
        ls.set(LONG, la + HIGH, sep);
        int lskip = boundSkip(node, half, cap);
        if (lskip != skip(node)) {
            reskip(node, half, cap, lskip);
        }
        endWrite(node);
        if (level == 0 && oldRight != NULL) {
            // Under the neighbour's seqlock, so that a reader stepping left from it sees old or new
            // whole; one that saw the old left node walks right from it to find this one.
            beginWrite(oldRight);
            memory.segment(oldRight).set(LONG, ChunkAllocator.offset(oldRight) + LEFT, right);
            endWrite(oldRight);
        }
        addToParent(node, right, sep, depth);
        return right;
    }

    /** Adds {@code right} (low fence {@code sep}) just after {@code left} in the parent, growing the tree at the root. */
    private void addToParent(long left, long right, long sep, int depth) {
        if (depth == 0) {
            long r = newNode(level(left) + 1, NULL, NULL);
            MemorySegment s = memory.segment(r);
            long at = ChunkAllocator.offset(r);
            s.set(LONG, at + SLOTS + 16L * INNER_CAP, left);
            s.set(LONG, at + SLOTS + 8L * INNER_CAP + 8L, sep);
            s.set(LONG, at + SLOTS + 16L * INNER_CAP + 8L, right);
            reskip(r, 2, INNER_CAP, boundSkip(r, 2, INNER_CAP));
            s.set(INT, at + COUNT, 2);
            // Everything below is in place: publish the new root.
            root = r;
            // The path now has one more level on top.
            System.arraycopy(pathNodes, 0, pathNodes, 1, pathNodes.length - 1);
            System.arraycopy(pathIndex, 0, pathIndex, 1, pathIndex.length - 1);
            pathNodes[0] = r;
            pathIndex[0] = 0;
            pathDepth++;
            return;
        }
        long parent = pathNodes[depth - 1];
        int i = pathIndex[depth - 1] + 1;
        if (count(parent) == INNER_CAP) {
            long parentRight = split(parent, depth - 1);
            // After the split above, 'depth' may have moved down by one (a new root).
            // A child right after the left half's last one sorts before the right half's low fence.
            int half = count(parent);
            if (i > half) {
                parent = parentRight;
                i -= half;
            }
        }
        insertSlot(parent, i, sep, right);
    }

    // ---------------------------------------------------------------- rebuilding

    @Override
    public boolean canRebuild() {
        return true;
    }

    /** Every entry handle, in order: the leaves from the leftmost one. Writer only. */
    @Override
    public long[] handles(int count) {
        long[] out = new long[count];
        long node = root;
        while (level(node) > 0) {
            node = childAt(node, 0);
        }
        int k = 0;
        for (long leaf = node; leaf != NULL; leaf = right(leaf)) {
            int c = count(leaf);
            for (int i = 0; i < c; i++) {
                out[k++] = handleAt(leaf, i, LEAF_CAP);
            }
        }
        if (k != count) {
            throw new IllegalStateException("the tree holds " + k + " entries, not " + count);
        }
        return out;
    }

    /**
     * Builds a new tree over {@code handles[0, n)}, bottom-up: full leaves, then full inner levels
     * (only the last node of a level may hold fewer), each node's fences, skip and prefixes by the
     * rules inserts and splits follow ({@link #checkStructure}), and publishes its root.
     * A reader that entered the old tree finishes in it; every entry it may see is there.
     */
    @Override
    public void rebuild(long[] handles, int n) {
        if (n == 0) {
            return;
        }
        int leaves = (n + LEAF_CAP - 1) / LEAF_CAP;
        long[] level = new long[leaves];
        long[] lows = new long[leaves];
        for (int j = 0; j < leaves; j++) {
            lows[j] = j == 0 ? NULL : handles[j * LEAF_CAP];
        }
        long previous = NULL;
        for (int j = 0; j < leaves; j++) {
            int from = j * LEAF_CAP;
            int count = Math.min(LEAF_CAP, n - from);
            long leaf = newNode(0, lows[j], j + 1 < leaves ? lows[j + 1] : NULL);
            MemorySegment ls = memory.segment(leaf);
            long at = ChunkAllocator.offset(leaf);
            MemorySegment.copy(handles, from, ls, ValueLayout.JAVA_LONG, at + SLOTS + 8L * LEAF_CAP, count);
            reskip(leaf, count, LEAF_CAP, boundSkip(leaf, count, LEAF_CAP));
            ls.set(INT, at + COUNT, count);
            ls.set(LONG, at + LEFT, previous);
            if (previous != NULL) {
                setRight(previous, leaf);
            }
            level[j] = leaf;
            previous = leaf;
        }
        lastLeaf = previous;
        int height = 0;
        while (level.length > 1) {
            height++;
            int parents = (level.length + INNER_CAP - 1) / INNER_CAP;
            long[] up = new long[parents];
            long[] upLows = new long[parents];
            for (int j = 0; j < parents; j++) {
                upLows[j] = lows[j * INNER_CAP];
            }
            previous = NULL;
            for (int j = 0; j < parents; j++) {
                int from = j * INNER_CAP;
                int count = Math.min(INNER_CAP, level.length - from);
                long node = newNode(height, upLows[j], j + 1 < parents ? upLows[j + 1] : NULL);
                MemorySegment s = memory.segment(node);
                long at = ChunkAllocator.offset(node);
                for (int i = 0; i < count; i++) {
                    // Separator i is child i's low fence; child 0 has none (the node's own low fence).
                    if (i > 0) {
                        s.set(LONG, at + SLOTS + 8L * INNER_CAP + 8L * i, lows[from + i]);
                    }
                    s.set(LONG, at + SLOTS + 16L * INNER_CAP + 8L * i, level[from + i]);
                }
                reskip(node, count, INNER_CAP, boundSkip(node, count, INNER_CAP));
                s.set(INT, at + COUNT, count);
                if (previous != NULL) {
                    setRight(previous, node);
                }
                up[j] = node;
                previous = node;
            }
            level = up;
            lows = upLows;
        }
        // The writer's memory of its last search belongs to the old tree.
        repeatLeaf = false;
        pathDepth = 0;
        // A volatile store: a reader that reads this root sees every node written above.
        root = level[0];
    }

    /** Links an unpublished node of a rebuild to its right sibling. */
    private void setRight(long node, long right) {
        memory.segment(node).set(LONG, ChunkAllocator.offset(node) + RIGHT, right);
    }

    // ---------------------------------------------------------------- positions

    @Override
    public Position position() {
        return new LeafPosition();
    }

    /**
     * A reader's place: a leaf, a slot in it, and the leaf's version when the slot was read. Moving
     * within a leaf that has not changed since costs no search; once it has changed (an insert shifted
     * its slots, or a split moved half of them away) the position is found again from the root by
     * the current entry's key and seq, which never change.
     */
    private final class LeafPosition implements Position {
        /**
         * A forward walk loads entries this many at a time, a group ahead. In a probe walking a
         * memtable of 1M entries inserted in random order, one entry 12 slots ahead per step gave
         * 160 ns a step, groups of 8 gave 82-89 ns, groups of 16 108-111 ns.
         */
        private static final int TOUCH_GROUP = 8;
        private long leaf;
        private int slot;
        private long version;
        private long node;
        /**
         * Where touched entries' first words go. Entries lie in memory in insertion order, not key
         * order, so a walk in key order misses the cache at every entry; loading the entry a few
         * slots ahead lets those misses overlap instead of coming one after another. The store keeps
         * the load from being dropped as dead.
         */
        private long touched;

        @Override
        public long seekCeiling(MemorySegment key, long off, int len, long seq) {
            for (;;) {
                Found f = find(key, off, len, seq);
                if (forward(f.leaf(), f.slot(), f.version())) {
                    return node;
                }
            }
        }

        @Override
        public long seekBefore(MemorySegment key, long off, int len, long seq) {
            for (;;) {
                Found f = find(key, off, len, seq);
                if (backward(f.leaf(), f.slot() - 1, f.version())) {
                    return node;
                }
            }
        }

        @Override
        public long first() {
            for (;;) {
                long l = firstLeaf();
                if (forward(l, 0, stableVersion(l))) {
                    return node;
                }
            }
        }

        @Override
        public long last() {
            for (;;) {
                long l = lastLeaf();
                long v = stableVersion(l);
                int c = count(l);
                if (unchanged(l, v) && backward(l, c - 1, v)) {
                    return node;
                }
            }
        }

        @Override
        public long next() {
            long n = node;
            if (version(leaf) == version && forward(leaf, slot + 1, version)) {
                touchAhead();
                return node;
            }
            // The leaf changed: find the first entry after the current one again. Its seq is at
            // least 0, so (key, seq - 1) is the next place in the order.
            return seekCeiling(entries.segment(n), entries.keyOffset(n), entries.keyLength(n), entries.seq(n) - 1);
        }

        @Override
        public long prev() {
            long n = node;
            if (version(leaf) == version && backward(leaf, slot - 1, version)) {
                touchBehind();
                return node;
            }
            return seekBefore(entries.segment(n), entries.keyOffset(n), entries.keyLength(n), entries.seq(n));
        }

        /**
         * At every {@link #TOUCH_GROUP}th slot, loads the entries of the next group (in this leaf or
         * the next): a walk that has taken one step will likely take more, and a seek that takes
         * none does not pay for it.
         */
        private void touchAhead() {
            if ((slot & (TOUCH_GROUP - 1)) != 0) {
                return;
            }
            // Every TOUCH_GROUP steps, the next group's entries all at once: independent loads that
            // the CPU keeps in flight together, where one load per step overlaps with little else.
            long l = leaf;
            int from = slot + TOUCH_GROUP;
            int count = count(l);
            if (from >= count) {
                // The group lies in the next leaf. A racy read: a stale or 0 handle only loads a line.
                l = right(l);
                if (l == NULL) {
                    return;
                }
                from -= count;
                count = count(l);
            }
            int to = Math.min(count, from + TOUCH_GROUP);
            long t = 0;
            for (int s = from; s < to; s++) {
                long ahead = handleAt(l, s, LEAF_CAP);
                if (ahead != NULL) {
                    t += entries.seq(ahead);
                }
            }
            touched = t;
        }

        /** {@link #touchAhead()} for a walk backwards: at every group's first slot, the group before the previous one. */
        private void touchBehind() {
            if ((slot & (TOUCH_GROUP - 1)) != 0) {
                return;
            }
            long l = leaf;
            int to = slot - TOUCH_GROUP;
            if (to <= 0) {
                // The group lies in the leaf before (a racy read, as in touchAhead).
                l = left(l);
                if (l == NULL) {
                    return;
                }
                to += count(l);
            }
            long t = 0;
            for (int s = Math.max(0, to - TOUCH_GROUP); s < to; s++) {
                long behind = handleAt(l, s, LEAF_CAP);
                if (behind != NULL) {
                    t += entries.seq(behind);
                }
            }
            touched = t;
        }

        /**
         * Lands on slot {@code s} of leaf {@code l} (version {@code v} when {@code s} was chosen), or on
         * the first entry of a leaf to its right when {@code s} is past its end; false when a leaf
         * changed meanwhile and the move must be found again.
         */
        private boolean forward(long l, int s, long v) {
            for (;;) {
                int c = count(l);
                if (s < c) {
                    long e = handleAt(l, s, LEAF_CAP);
                    if (e == NULL || !unchanged(l, v)) {
                        return false;
                    }
                    return land(l, s, v, e);
                }
                long r = right(l);
                if (!unchanged(l, v)) {
                    return false;
                }
                if (r == NULL) {
                    return land(l, c, v, NULL);
                }
                l = r;
                s = 0;
                v = stableVersion(l);
            }
        }

        /**
         * Lands on slot {@code s} of leaf {@code l}, or on the last entry of a leaf to its left when
         * {@code s} is negative; false when a leaf changed meanwhile.
         */
        private boolean backward(long l, int s, long v) {
            for (;;) {
                if (s >= 0) {
                    long e = s < count(l) ? handleAt(l, s, LEAF_CAP) : NULL;
                    if (e == NULL || !unchanged(l, v)) {
                        return false;
                    }
                    return land(l, s, v, e);
                }
                long p = left(l);
                if (!unchanged(l, v)) {
                    return false;
                }
                if (p == NULL) {
                    return land(l, -1, v, NULL);
                }
                // A split of the left neighbour may not be linked from here yet: its new right half
                // is found by walking right from it until the leaf whose right sibling is this one.
                long pv = stableVersion(p);
                long pr = right(p);
                while (pr != l) {
                    if (!unchanged(p, pv) || pr == NULL) {
                        return false;
                    }
                    p = pr;
                    pv = stableVersion(p);
                    pr = right(p);
                }
                int pc = count(p);
                if (!unchanged(p, pv)) {
                    return false;
                }
                l = p;
                s = pc - 1;
                v = pv;
            }
        }

        private boolean land(long l, int s, long v, long e) {
            leaf = l;
            slot = s;
            version = v;
            node = e;
            return true;
        }
    }

    /** Native bytes a node of the given level takes. */
    static long nodeBytes(int level) {
        return level == 0 ? leafBytes() : innerBytes();
    }
}
