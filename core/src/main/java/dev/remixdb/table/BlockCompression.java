package dev.remixdb.table;

/** How a table's data blocks are compressed. */
public enum BlockCompression {
    /** Blocks are stored as they are, each starting at a multiple of the block size. */
    NONE,
    /**
     * Each block is LZ4-compressed when that saves at least an eighth of it, else stored as is;
     * blocks are packed without padding.
     */
    LZ4
}
