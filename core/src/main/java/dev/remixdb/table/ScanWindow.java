package dev.remixdb.table;

import dev.remixdb.remix.CorruptionException;
import dev.remixdb.util.NativeBuffer;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * Consecutive data blocks of one table read with one request, for scan cursors (compactions and
 * REMIX builds walk their tables from start to end): one read of up to {@value #BYTES} bytes
 * replaces dozens of block-sized ones. With direct I/O every read goes to the device, where the
 * kernel's read-ahead does not help, so a merge that read block by block paid one device round trip
 * per 4 KiB; through the page cache it saves system calls. Each block is still checked (CRC, then
 * its entries) when the cursor loads it, as a read of that block alone would be.
 *
 * <p>The window starts and ends on page boundaries (the end capped at the file's size) and its
 * memory is page-aligned, so that a direct read lands in it without a bounce buffer. Memory: one
 * window per scan cursor, freed by {@link #close()}; compressed blocks are decompressed into the
 * cursor's own buffer. Not thread-safe.
 */
final class ScanWindow implements AutoCloseable {
    /** The most bytes one window read covers. */
    static final int BYTES = 256 * 1024;
    private static final long PAGE = 4096;

    private final Table table;
    private final DataBlocks blocks;
    private final int blockCount;
    private NativeBuffer buffer;
    /** Blocks [first, end) are in {@link #buffer}, whose first byte is at file offset {@link #start}. */
    private int first;
    private int end;
    private long start;

    ScanWindow(Table table) {
        this.table = table;
        this.blocks = table.blocks();
        this.blockCount = table.blockCount();
    }

    /** Whether the window holds block {@code b} now. */
    boolean holds(int b) {
        return b >= first && b < end;
    }

    /** Whether block {@code b} can be read through a window (its stored bytes fit one). */
    boolean fits(int b) {
        return blocks.storedLength(b) <= BYTES - PAGE;
    }

    /**
     * Block {@code b} (one that {@link #fits}), checked, and decompressed into {@code scratch} when
     * it is compressed: read with the blocks after it unless the window holds it already. Valid
     * until the next call, {@code scratch}'s next use or {@link #close()}.
     */
    MemorySegment block(int b, NativeBuffer scratch) throws IOException {
        if (b < first || b >= end) {
            fill(b);
        }
        MemorySegment src = buffer.segment().asSlice(blocks.offset(b) - start, blocks.storedLength(b));
        if (!blocks.compressed(b)) {
            blocks.finish(b, src, src);
            return src;
        }
        MemorySegment dst = scratch.scratch(blocks.rawLength(b));
        blocks.finish(b, src, dst);
        return dst;
    }

    /** Reads block {@code b} and the blocks after it that end within {@link #BYTES} of its page. */
    private void fill(int b) throws IOException {
        first = end = 0;  // nothing valid until the read succeeds
        long from = blocks.offset(b) & -PAGE;
        int e = b;
        long to = from;
        while (e < blockCount && fits(e)) {
            long blockEnd = blocks.offset(e) + blocks.storedLength(e);
            if (e > b && blockEnd - from > BYTES) {
                break;
            }
            to = blockEnd;
            e++;
        }
        long until = Math.min((to + PAGE - 1) & -PAGE, table.fileBytes());
        if (buffer == null) {
            buffer = NativeBuffer.shared(BYTES, PAGE);
        }
        MemorySegment dst = buffer.scratch(until - from);
        try {
            blocks.reader().readFully(blocks.file(), from, dst);
        } catch (EOFException x) {
            throw new CorruptionException(table.path(), from, "file ends inside blocks " + b + " to " + (e - 1)
                    + " (truncated after open?)");
        }
        first = b;
        end = e;
        start = from;
    }

    @Override
    public void close() {
        first = end = 0;
        if (buffer != null) {
            buffer.close();
        }
    }
}
