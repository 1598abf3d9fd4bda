package dev.remixdb.remix;

/** The ways a {@link RemixCursor} can search inside a segment; every one must give the same answers. */
enum SeekStrategy {
    /** The default: the key's hash tag first, then a binary search narrowed by the block just read. */
    FULL(RemixCursor.Search.FULL, true, true),
    /** Binary search over the slots, narrowed by the keys of the block just read (REMIX §3.2). */
    FULL_WITHOUT_TAG_SEEK(RemixCursor.Search.FULL, true, false),
    /** Plain binary search over the slots. */
    FULL_WITHOUT_SAME_BLOCK(RemixCursor.Search.FULL, false, false),
    /** Linear scan of the segment. */
    PARTIAL(RemixCursor.Search.PARTIAL, true, true);

    private final RemixCursor.Search search;
    private final boolean sameBlockFirst;
    private final boolean tagSeek;

    SeekStrategy(RemixCursor.Search search, boolean sameBlockFirst, boolean tagSeek) {
        this.search = search;
        this.sameBlockFirst = sameBlockFirst;
        this.tagSeek = tagSeek;
    }

    RemixCursor open(Remix remix, RemixCursor.Mode mode) {
        return remix.cursor(mode, search).sameBlockFirst(sameBlockFirst).tagSeek(tagSeek);
    }
}
