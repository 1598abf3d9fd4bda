package dev.remixdb.table;

import java.util.Objects;

/**
 * How a {@link TableWriter} lays out a table. Immutable; readers need none of it (the file
 * describes itself).
 *
 * @param blockBytes  size of a data block: a power of two from 256 to 4096, so that every block but a
 *                    jumbo one fits one {@link dev.remixdb.cache.BlockCache} slot. Default: 4096
 * @param compression block compression. Default: {@link BlockCompression#NONE}
 * @param keysBlock   whether to write the compressed keys block (CKB), which lets a REMIX rebuild
 *                    read this table's keys without reading its data blocks. Default: true
 */
public record TableOptions(int blockBytes, BlockCompression compression, boolean keysBlock) {
    /** 4096-byte blocks, no compression, with a keys block. */
    public static final TableOptions DEFAULT = new TableOptions(4096, BlockCompression.NONE, true);

    public TableOptions {
        if (blockBytes < 256 || blockBytes > 4096 || Integer.bitCount(blockBytes) != 1) {
            throw new IllegalArgumentException("block size must be a power of two from 256 to 4096: " + blockBytes);
        }
        Objects.requireNonNull(compression, "compression");
    }

    /** A copy with another block size. */
    public TableOptions withBlockBytes(int bytes) {
        return new TableOptions(bytes, compression, keysBlock);
    }

    /** A copy with another compression. */
    public TableOptions withCompression(BlockCompression c) {
        return new TableOptions(blockBytes, c, keysBlock);
    }

    /** A copy with or without the keys block. */
    public TableOptions withKeysBlock(boolean enabled) {
        return new TableOptions(blockBytes, compression, enabled);
    }
}
