package dev.remixdb.remix;

/** The ways a {@link RemixCursor} can search inside a segment; every one must give the same answers. */
enum SeekStrategy {
    /** Binary search over the slots, narrowed by the keys of the block just read (REMIX §3.2). */
    FULL(RemixCursor.Search.FULL, true),
    /** Plain binary search over the slots. */
    FULL_WITHOUT_SAME_BLOCK(RemixCursor.Search.FULL, false),
    /** Linear scan of the segment. */
    PARTIAL(RemixCursor.Search.PARTIAL, true);

    private final RemixCursor.Search search;
    private final boolean sameBlockFirst;

    SeekStrategy(RemixCursor.Search search, boolean sameBlockFirst) {
        this.search = search;
        this.sameBlockFirst = sameBlockFirst;
    }

    RemixCursor open(Remix remix, RemixCursor.Mode mode) {
        return remix.cursor(mode, search).sameBlockFirst(sameBlockFirst);
    }
}
