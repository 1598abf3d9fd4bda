package dev.remixdb;

/** How the data blocks of new table files are compressed ({@link Options.Builder#compression}). */
public enum Compression {
    /** Blocks are stored as they are, each starting at a multiple of the block size. Faster reads. */
    NONE,
    /**
     * Each block is LZ4-compressed when that saves at least an eighth of it, else stored as is;
     * blocks are packed without padding. Less disk, a decompression per block read.
     */
    LZ4
}
