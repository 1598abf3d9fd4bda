package dev.remixdb.remix;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The old runs' keys a REMIX rebuild reads, taken from each run's {@link Run#keySource() key source}
 * (a table's compressed keys block) instead of its data blocks.
 *
 * <p>Why: when the new keys are spread over the whole key range, as in a random load, nearly every
 * old segment receives one, and the binary search that places it reads a few of the segment's keys.
 * Read through the data blocks, that touches every data block of every old run, so each rebuild
 * reads the partition's values too: about ten bytes read per byte loaded once the tables no longer
 * fit in the page cache. The keys block holds the same keys, prefix-compressed, in a few bytes each.
 *
 * <p>The rebuild asks for keys in an order that only moves forward, except within the segment being
 * searched and for the key just before a segment start. So each run's keys are decoded in order and
 * the last {@code window} of them are kept; a key further back than that (not expected, but allowed)
 * is read through the run's cursor, as before. Not thread-safe; one per rebuild.
 */
final class OldKeys implements AutoCloseable {
    private final Run[] runs;
    private final RunCursor[] cursors;
    private final int window;
    private final KeySource[] sources;
    /** Per run: the ordinal (position in the run) of each block's first key, filled on first use. */
    private final long[][] blockStarts;
    /** Per run: the ordinal of the last key decoded, -1 before the first. */
    private final long[] decoded;
    /** Per run: copies of the last {@code window} keys decoded, by ordinal modulo the window. */
    private final byte[][][] copies;
    private final MemorySegment[][] views;
    private final int[][] lengths;
    private long fromKeys;
    private long fromCursors;

    private MemorySegment current;
    private long currentOffset;
    private int currentLength;

    /**
     * @param cursors the old runs' scan cursors, used for keys behind the window
     * @param window keys kept per run behind the furthest one decoded
     */
    OldKeys(Run[] runs, RunCursor[] cursors, int window) {
        this.runs = runs;
        this.cursors = cursors;
        this.window = window;
        int n = runs.length;
        sources = new KeySource[n];
        blockStarts = new long[n][];
        decoded = new long[n];
        copies = new byte[n][][];
        views = new MemorySegment[n][];
        lengths = new int[n][];
        Arrays.fill(decoded, -1);
    }

    /**
     * Makes the key {@code k} positions after {@code address} in run {@code r} the current one
     * ({@link #segment()}, {@link #offset()}, {@link #length()}).
     */
    void load(int r, int address, int k) {
        long ordinal = ordinal(r, address) + k;
        if (ordinal > decoded[r] - window) {
            decodeTo(r, ordinal);
            int slot = (int) (ordinal % window);
            current = views[r][slot];
            currentOffset = 0;
            currentLength = lengths[r][slot];
            fromKeys++;
        } else {
            RunCursor c = cursors[r];
            c.seekTo(address);
            if (k > 0) {
                c.skip(k);
            }
            current = c.keySegment();
            currentOffset = c.keyOffset();
            currentLength = c.keyLength();
            fromCursors++;
        }
    }

    MemorySegment segment() {
        return current;
    }

    long offset() {
        return currentOffset;
    }

    int length() {
        return currentLength;
    }

    /** Keys served from the key sources. */
    long fromKeys() {
        return fromKeys;
    }

    /** Keys read through the cursors (behind the window). */
    long fromCursors() {
        return fromCursors;
    }

    private long ordinal(int r, int address) {
        long[] starts = blockStarts[r];
        if (starts == null) {
            Run run = runs[r];
            int blocks = run.blockCount();
            starts = new long[blocks + 1];
            for (int b = 0; b < blocks; b++) {
                starts[b + 1] = starts[b] + run.keyCount(b);
            }
            blockStarts[r] = starts;
        }
        int block = RunAddress.block(address);
        if (block >= starts.length) {
            throw new IllegalArgumentException("address " + RunAddress.toString(address) + " is past the end of run " + r);
        }
        return starts[block] + RunAddress.index(address);
    }

    private void decodeTo(int r, long ordinal) {
        if (sources[r] == null) {
            sources[r] = runs[r].keySource();
            copies[r] = new byte[window][];
            views[r] = new MemorySegment[window];
            lengths[r] = new int[window];
        }
        KeySource source = sources[r];
        while (decoded[r] < ordinal) {
            if (!source.next()) {
                throw new IllegalStateException("run " + r + " has " + (decoded[r] + 1)
                        + " keys in its key source, key " + ordinal + " was asked for");
            }
            long next = ++decoded[r];
            int slot = (int) (next % window);
            int len = source.keyLength();
            byte[] copy = copies[r][slot];
            if (copy == null || copy.length < len) {
                copy = new byte[Math.max(len, 32)];
                copies[r][slot] = copy;
                views[r][slot] = MemorySegment.ofArray(copy);
            }
            MemorySegment.copy(source.keySegment(), source.keyOffset(), views[r][slot], 0, len);
            lengths[r][slot] = len;
        }
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (int r = 0; r < sources.length; r++) {
            if (sources[r] != null) {
                try {
                    sources[r].close();
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
                sources[r] = null;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
