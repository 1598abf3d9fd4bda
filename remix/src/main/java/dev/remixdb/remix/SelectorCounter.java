package dev.remixdb.remix;

import java.lang.foreign.MemorySegment;

/**
 * The two inner loops of a REMIX search: counting a run's selectors before a slot (REMIX §3.2,
 * "counting the number of occurrences of the same run selector in the segment prior to the key"),
 * and matching hash tags for a point lookup. Obtain one from {@link SelectorCounters#get()}.
 * Implementations are stateless and thread-safe.
 */
public interface SelectorCounter {

    /**
     * The number of selectors in {@code selectors[from, from + n)} whose run id
     * ({@code selector & 0x3F}) equals {@code run}. Placeholders (0x3F) never match a run id 0..62.
     */
    int count(MemorySegment selectors, long from, int n, int run);

    /**
     * A bit mask over {@code n <= 64} slots: bit {@code i} is set when {@code tags[tagFrom + i] == tag}
     * and selector {@code selectors[selectorFrom + i]} is the newest version of its key (neither stale
     * nor a placeholder).
     */
    long matchTags(MemorySegment selectors, long selectorFrom, MemorySegment tags, long tagFrom, int n, byte tag);

    /** A short name for logs and benchmark reports ("scalar", "vector-256"). */
    String name();
}
