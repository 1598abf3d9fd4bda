package dev.remixdb;

import java.lang.foreign.MemorySegment;

/**
 * Receives the entries of a {@link RemixDB#scan scan}, in key order, as read-only views of the
 * store's memory (see {@link Cursor#keyView()}). The views are valid during the call only: reading
 * one after it returns throws {@link IllegalStateException}. Copy what must outlive it
 * ({@code key.toArray(ValueLayout.JAVA_BYTE)}).
 */
@FunctionalInterface
public interface EntryVisitor {

    /**
     * Called once per entry.
     *
     * @return true to go on, false to stop the scan after this entry
     */
    boolean visit(MemorySegment key, MemorySegment value);
}
