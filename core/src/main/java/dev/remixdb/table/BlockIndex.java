package dev.remixdb.table;

import static dev.remixdb.table.TableFormat.U32;

import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.Keys;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The block index section of an open table, in memory: the table's first and last keys and one
 * separator per block, the shortest prefix of the block's first key that sorts after the previous
 * block's last key (empty for block 0). Like REMIX anchors, separators are shorter than first keys
 * and still route every seek: the target block is the last one whose separator is {@code <=} the key.
 * Checked once at open (lengths in range, separators strictly increasing). Thread-safe.
 */
final class BlockIndex {
    private final MemorySegment index;
    private final int blocks;
    private final int firstLength;
    private final int lastLength;
    private final long offsetsAt;
    private final long bytesAt;

    BlockIndex(Path path, MemorySegment index, TableFooter footer) {
        this.index = index;
        this.blocks = footer.blockCount;
        long at = footer.offset(TableFormat.SECTION_INDEX);
        long length = index.byteSize();
        if (length < 8) {
            throw new CorruptionException(path, at, "block index of " + length + " bytes is too short");
        }
        long first = Integer.toUnsignedLong(index.get(U32, 0));
        long last = Integer.toUnsignedLong(index.get(U32, 4));
        if (first > TableFormat.MAX_KEY || last > TableFormat.MAX_KEY
                || (footer.keyCount == 0 && (first != 0 || last != 0))) {
            throw new CorruptionException(path, at, "bad first/last key lengths " + first + ", " + last);
        }
        firstLength = (int) first;
        lastLength = (int) last;
        offsetsAt = 8 + first + last;
        bytesAt = offsetsAt + 4L * (blocks + 1);
        if (bytesAt > length) {
            throw new CorruptionException(path, at, "block index of " + length + " bytes cannot hold " + blocks + " separators");
        }
        long previous = 0;
        for (int b = 0; b <= blocks; b++) {
            long end = Integer.toUnsignedLong(index.get(U32, offsetsAt + 4L * b));
            if (b == 0 ? end != 0 : end < previous || end - previous > TableFormat.MAX_KEY) {
                throw new CorruptionException(path, at + offsetsAt + 4L * b, "bad separator offset " + end);
            }
            previous = end;
        }
        if (bytesAt + previous != length) {
            throw new CorruptionException(path, at, "block index is " + length + " bytes, its parts add up to "
                    + (bytesAt + previous));
        }
        for (int b = 0; b < blocks; b++) {
            boolean ordered = b == 0 ? separatorLength(0) == 0
                    : Keys.compare(index, separatorOffset(b - 1), separatorLength(b - 1),
                    index, separatorOffset(b), separatorLength(b)) < 0;
            if (!ordered) {
                throw new CorruptionException(path, at + bytesAt + index.get(U32, offsetsAt + 4L * b),
                        "separator of block " + b + " is out of order");
            }
        }
    }

    private long separatorOffset(int b) {
        return bytesAt + Integer.toUnsignedLong(index.get(U32, offsetsAt + 4L * b));
    }

    private int separatorLength(int b) {
        return index.get(U32, offsetsAt + 4L * b + 4) - index.get(U32, offsetsAt + 4L * b);
    }

    /** The block that holds the first key {@code >= key}, unless all its keys are smaller (then it is the next). */
    int find(MemorySegment key, long offset, int length) {
        int lo = 0;
        int hi = blocks - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (Keys.compare(index, separatorOffset(mid), separatorLength(mid), key, offset, length) <= 0) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    byte[] firstKey() {
        return blocks == 0 ? null : index.asSlice(8, firstLength).toArray(TableFormat.U8);
    }

    byte[] lastKey() {
        return blocks == 0 ? null : index.asSlice(8 + firstLength, lastLength).toArray(TableFormat.U8);
    }
}
