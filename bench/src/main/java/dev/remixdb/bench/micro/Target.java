package dev.remixdb.bench.micro;

import java.lang.foreign.MemorySegment;

/**
 * One index under test, running the operations of {@link Phase} on 16-byte keys at offset 0 of a
 * key segment and copying what it finds into a caller's buffer (so every index does the same
 * copying work). Not thread-safe.
 */
interface Target extends AutoCloseable {

    /** The index name in reports ("remix-full", "merging", ...). */
    String index();

    /** Whether this index runs {@code phase}. */
    boolean supports(Phase phase);

    /** Seeks to the first key {@code >= key}; copies it to {@code out[0]} and returns its length, or -1. */
    int seek(MemorySegment key, int len, MemorySegment out);

    /**
     * Seeks, then copies up to {@code n} pairs (key, then value) back to back into {@code out};
     * returns the number of pairs copied.
     */
    int seekNext(MemorySegment key, int len, int n, MemorySegment out);

    /** Point lookup; copies the value to {@code out[0]} and returns its length, or -1 when absent. */
    int get(MemorySegment key, int len, MemorySegment out);

    /** Key comparisons counted so far (see the README for what each index counts). */
    long comparisons();

    @Override
    void close();
}
