package dev.remixdb.bench.micro;

import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixCursor;
import java.lang.foreign.MemorySegment;

/**
 * A REMIX under test through one {@link RemixCursor} in {@link RemixCursor.Mode#LIVE} mode, with full
 * or partial in-segment search (REMIX §3.2).
 *
 * <p>Comparisons: the cursor counts the full-key comparisons it makes inside the target segment; the
 * binary search over the anchors is not counted by the cursor, so {@code ceil(log2(segments))} per
 * operation is added for it.
 */
final class RemixTarget implements Target {
    private final String index;
    private final RemixCursor cursor;
    private final int anchorSteps;
    private long ops;

    /**
     * @param tagSeek let seeks try the key's hash tag before the binary search (our default); off,
     *                a seek is the paper's plain in-segment search
     */
    RemixTarget(String index, Remix remix, RemixCursor.Search search, boolean tagSeek) {
        this.index = index;
        this.cursor = remix.cursor(RemixCursor.Mode.LIVE, search).tagSeek(tagSeek);
        long s = Math.max(1, remix.segmentCount());
        this.anchorSteps = 64 - Long.numberOfLeadingZeros(s - 1);
    }

    @Override
    public String index() {
        return index;
    }

    @Override
    public boolean supports(Phase phase) {
        return true;
    }

    @Override
    public int seek(MemorySegment key, int len, MemorySegment out) {
        ops++;
        cursor.seek(key, 0, len);
        return cursor.isValid() ? cursor.copyKey(out, 0) : -1;
    }

    @Override
    public int seekNext(MemorySegment key, int len, int n, MemorySegment out) {
        ops++;
        RemixCursor c = cursor;
        c.seek(key, 0, len);
        long at = 0;
        int copied = 0;
        while (c.isValid()) {
            at += c.copyKey(out, at);
            at += c.copyValue(out, at);
            if (++copied == n) {
                break;
            }
            c.next();
        }
        return copied;
    }

    @Override
    public int get(MemorySegment key, int len, MemorySegment out) {
        ops++;
        return cursor.get(key, 0, len) ? cursor.copyValue(out, 0) : -1;
    }

    @Override
    public long comparisons() {
        return cursor.keyComparisons() + ops * anchorSteps;
    }

    @Override
    public void close() {
        cursor.close();
    }
}
