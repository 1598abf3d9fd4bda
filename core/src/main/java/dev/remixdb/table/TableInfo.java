package dev.remixdb.table;

import java.util.HexFormat;

/**
 * Summary of a table file, returned by {@link TableWriter#finish()}. The key arrays are the caller's
 * (not copied again); they are null for a table without keys.
 *
 * @param keyCount       keys, tombstones included
 * @param tombstoneCount tombstones
 * @param fileBytes      size of the file
 * @param blockCount     data blocks
 * @param firstKey       the smallest key, or null when there is none
 * @param lastKey        the largest key, or null when there is none
 */
public record TableInfo(long keyCount, long tombstoneCount, long fileBytes, int blockCount, byte[] firstKey,
                        byte[] lastKey) {
    @Override
    public String toString() {
        HexFormat hex = HexFormat.of();
        return "TableInfo[" + keyCount + " keys (" + tombstoneCount + " tombstones), " + fileBytes + " bytes, "
                + blockCount + " blocks, keys " + (firstKey == null ? "none" : hex.formatHex(firstKey) + ".."
                + hex.formatHex(lastKey)) + "]";
    }
}
