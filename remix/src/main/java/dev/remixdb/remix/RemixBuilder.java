package dev.remixdb.remix;

import dev.remixdb.util.NativeBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Builds a REMIX from scratch: a k-way merge of the runs' keys (min-heap on key, newer run first on
 * ties), grouping the versions of each key and packing them with {@link SegmentPacker}.
 *
 * <p>The keys come from the runs' {@link KeySource}s when every run has a compressed keys block and
 * they fit in {@link RemixRebuilder#MAX_KEYS_BLOCK_BYTES} (a table's keys block holds its keys in a
 * few bytes each: a build then reads no data block, where it used to read the whole partition
 * again right after a compaction wrote it), otherwise through scan cursors over the data blocks.
 * Each run's address (block, index) is counted along from the runs' per-block key counts.
 */
final class RemixBuilder {
    private RemixBuilder() {}

    static Remix build(List<? extends Run> runs, RemixConfig config) {
        int h = runs.size();
        SegmentPacker.checkRunCount(h, config);
        KeySource[] keys = new KeySource[h];
        try (SegmentPacker packer = new SegmentPacker(h, config);
             NativeBuffer prevKey = NativeBuffer.confined(256)) {
            boolean fromKeysBlocks = !runs.isEmpty() && RemixRebuilder.keysBlocksFit(runs);
            int[] addresses = new int[h];
            RunHeap heap = new RunHeap(keys);
            for (int r = 0; r < h; r++) {
                // A build reads every key of every run once, in order: through the cache it would
                // pull the whole partition in, evicting what readers use (and, while the cache is
                // still filling, touching fresh memory for each slot), for blocks read only once.
                keys[r] = fromKeysBlocks ? runs.get(r).keySource() : KeySource.fromCursor(runs.get(r).newScanCursor());
                addresses[r] = RunAddress.of(0, 0);
                if (keys[r].next()) {
                    heap.push(r);
                } else {
                    addresses[r] = runs.get(r).endAddress();
                }
            }
            int[] group = new int[h];
            boolean tags = config.tags();
            while (!heap.isEmpty()) {
                int top = heap.pop();
                KeySource c = keys[top];
                int versions = 0;
                group[versions++] = top;
                while (!heap.isEmpty() && heap.peekEqualsKey(top)) {
                    group[versions++] = heap.pop();
                }
                MemorySegment key = c.keySegment();
                long koff = c.keyOffset();
                int klen = c.keyLength();
                if (packer.free() < versions) {
                    packer.startSegment(prevKey.segment(), 0, (int) prevKey.size(), key, koff, klen, addresses);
                }
                byte tag = tags ? Keys.tag(key, koff, klen) : 0;
                for (int i = 0; i < versions; i++) {
                    int r = group[i];
                    int sel = r | (keys[r].isTombstone() ? Selectors.TOMBSTONE : 0) | (i > 0 ? Selectors.STALE : 0);
                    packer.add(sel, tag);
                }
                prevKey.truncate(0);
                prevKey.put(key, koff, klen);
                for (int i = 0; i < versions; i++) {
                    int r = group[i];
                    KeySource rc = keys[r];
                    int before = addresses[r];
                    addresses[r] = RunAddress.advance(runs.get(r), before, 1);
                    if (rc.next()) {
                        if (Keys.compare(rc.keySegment(), rc.keyOffset(), rc.keyLength(), prevKey.segment(), 0,
                                (int) prevKey.size()) <= 0) {
                            throw new IllegalArgumentException("run " + r + " is not strictly increasing at "
                                    + RunAddress.toString(addresses[r]));
                        }
                        heap.push(r);
                    }
                }
            }
            return packer.finish(runs);
        } finally {
            for (KeySource k : keys) {
                if (k != null) {
                    k.close();
                }
            }
        }
    }

    /**
     * A binary min-heap of run ids ordered by their current keys, newer (higher) run first on ties.
     *
     * <p>Each run's place in the heap is decided by its key's head ({@link Keys#head}): the 8 bytes
     * after those that every key pushed so far shares. Keys that sort next to each other share long
     * prefixes (in a partition, the partition's own), so comparing from byte 0 would read the same
     * bytes again at every step; with heads almost every comparison is one of two longs, and whole
     * keys are compared only when the heads tie.
     */
    static final class RunHeap {
        private final KeySource[] cursors;
        private final int[] heap;
        /** The head of each run's current key, taken when it was pushed (and again when skip drops). */
        private final long[] heads;
        private int size;
        /** The first key pushed: every key pushed since shares its first {@link #skip} bytes. */
        private MemorySegment ref;
        private int skip = -1;

        RunHeap(KeySource[] cursors) {
            this.cursors = cursors;
            this.heap = new int[Math.max(1, cursors.length)];
            this.heads = new long[Math.max(1, cursors.length)];
        }

        boolean isEmpty() {
            return size == 0;
        }

        boolean peekEqualsKey(int run) {
            int top = heap[0];
            return heads[top] == heads[run] && compare(top, run) == 0;
        }

        private int compare(int x, int y) {
            KeySource a = cursors[x];
            KeySource b = cursors[y];
            return Keys.compare(a.keySegment(), a.keyOffset(), a.keyLength(),
                    b.keySegment(), b.keyOffset(), b.keyLength());
        }

        private boolean less(int x, int y) {
            long a = heads[x];
            long b = heads[y];
            if (a != b) {
                return Long.compareUnsigned(a, b) < 0;
            }
            int c = compare(x, y);
            return c < 0 || (c == 0 && x > y);
        }

        /** Takes the head of {@code run}'s current key, first lowering the shared prefix if it must. */
        private void takeHead(int run) {
            KeySource k = cursors[run];
            MemorySegment key = k.keySegment();
            long off = k.keyOffset();
            int len = k.keyLength();
            if (skip < 0) {
                ref = MemorySegment.ofArray(key.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
                skip = len;
            } else if (skip > 0 && (len < skip || !Keys.equal(key, off, ref, 0, skip))) {
                skip = Keys.commonPrefix(key, off, len, ref, 0, skip);
                // Heads of the runs already in the heap were taken after more bytes: take them again.
                for (int i = 0; i < size; i++) {
                    KeySource o = cursors[heap[i]];
                    heads[heap[i]] = Keys.head(o.keySegment(), o.keyOffset(), o.keyLength(), skip);
                }
            }
            heads[run] = Keys.head(key, off, len, skip);
        }

        void push(int run) {
            takeHead(run);
            int i = size++;
            heap[i] = run;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!less(heap[i], heap[parent])) {
                    break;
                }
                int t = heap[i];
                heap[i] = heap[parent];
                heap[parent] = t;
                i = parent;
            }
        }

        int pop() {
            int top = heap[0];
            heap[0] = heap[--size];
            int i = 0;
            while (true) {
                int l = 2 * i + 1;
                if (l >= size) {
                    break;
                }
                int m = l + 1 < size && less(heap[l + 1], heap[l]) ? l + 1 : l;
                if (!less(heap[m], heap[i])) {
                    break;
                }
                int t = heap[i];
                heap[i] = heap[m];
                heap[m] = t;
                i = m;
            }
            return top;
        }
    }
}
