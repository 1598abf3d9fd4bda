package dev.remixdb.remix;

import dev.remixdb.util.NativeBuffer;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Builds a REMIX from scratch: a k-way merge of the runs (min-heap on key, newer run first on
 * ties), grouping the versions of each key and packing them with {@link SegmentPacker}.
 */
final class RemixBuilder {
    private RemixBuilder() {}

    static Remix build(List<? extends Run> runs, RemixConfig config) {
        int h = runs.size();
        SegmentPacker.checkRunCount(h, config);
        RunCursor[] cursors = new RunCursor[h];
        try (SegmentPacker packer = new SegmentPacker(h, config);
             NativeBuffer prevKey = NativeBuffer.confined(256)) {
            RunHeap heap = new RunHeap(cursors);
            for (int r = 0; r < h; r++) {
                cursors[r] = runs.get(r).newCursor();
                cursors[r].seekTo(RunAddress.of(0, 0));
                if (cursors[r].isValid()) {
                    heap.push(r);
                }
            }
            int[] addresses = new int[h];
            int[] group = new int[h];
            boolean tags = config.tags();
            while (!heap.isEmpty()) {
                int top = heap.pop();
                RunCursor c = cursors[top];
                int versions = 0;
                group[versions++] = top;
                while (!heap.isEmpty() && heap.peekEqualsKey(top)) {
                    group[versions++] = heap.pop();
                }
                MemorySegment key = c.keySegment();
                long koff = c.keyOffset();
                int klen = c.keyLength();
                if (packer.free() < versions) {
                    for (int r = 0; r < h; r++) {
                        addresses[r] = cursors[r].address();
                    }
                    packer.startSegment(prevKey.segment(), 0, (int) prevKey.size(), key, koff, klen, addresses);
                }
                byte tag = tags ? Keys.tag(key, koff, klen) : 0;
                for (int i = 0; i < versions; i++) {
                    int r = group[i];
                    int sel = r | (cursors[r].isTombstone() ? Selectors.TOMBSTONE : 0) | (i > 0 ? Selectors.STALE : 0);
                    packer.add(sel, tag);
                }
                prevKey.truncate(0);
                prevKey.put(key, koff, klen);
                for (int i = 0; i < versions; i++) {
                    int r = group[i];
                    RunCursor rc = cursors[r];
                    rc.next();
                    if (rc.isValid()) {
                        if (rc.compareKey(prevKey.segment(), 0, (int) prevKey.size()) <= 0) {
                            throw new IllegalArgumentException("run " + r + " is not strictly increasing at "
                                    + RunAddress.toString(rc.address()));
                        }
                        heap.push(r);
                    }
                }
            }
            return packer.finish(runs);
        } finally {
            for (RunCursor c : cursors) {
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    /** A binary min-heap of run ids ordered by their cursors' keys, newer (higher) run first on ties. */
    static final class RunHeap {
        private final RunCursor[] cursors;
        private final int[] heap;
        private int size;

        RunHeap(RunCursor[] cursors) {
            this.cursors = cursors;
            this.heap = new int[Math.max(1, cursors.length)];
        }

        boolean isEmpty() {
            return size == 0;
        }

        boolean peekEqualsKey(int run) {
            RunCursor a = cursors[heap[0]];
            RunCursor b = cursors[run];
            return Keys.compare(a.keySegment(), a.keyOffset(), a.keyLength(),
                    b.keySegment(), b.keyOffset(), b.keyLength()) == 0;
        }

        private boolean less(int x, int y) {
            RunCursor a = cursors[x];
            RunCursor b = cursors[y];
            int c = Keys.compare(a.keySegment(), a.keyOffset(), a.keyLength(),
                    b.keySegment(), b.keyOffset(), b.keyLength());
            return c < 0 || (c == 0 && x > y);
        }

        void push(int run) {
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
