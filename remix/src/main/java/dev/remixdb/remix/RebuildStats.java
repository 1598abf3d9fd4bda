package dev.remixdb.remix;

/**
 * What a REMIX rebuild read: the point of rebuilding from the old REMIX is to read few old keys
 * (only at merge points and new segment anchors) and to take new keys from the new runs' key
 * sources (a table's compressed keys block) rather than from data blocks.
 */
public final class RebuildStats {
    long oldKeysRead;
    long newKeysRead;
    long oldSlotsReused;
    long keyComparisons;
    long oldKeysFromKeysBlocks;

    /** Keys of the old runs read during the rebuild (through run cursors or keys blocks). */
    public long oldKeysRead() {
        return oldKeysRead;
    }

    /** Keys of the new runs read from their {@link KeySource}s. */
    public long newKeysRead() {
        return newKeysRead;
    }

    /** Old slots whose selector and tag were copied without reading their keys. */
    public long oldSlotsReused() {
        return oldSlotsReused;
    }

    /** Of {@link #oldKeysRead()}, those served from the old runs' keys blocks rather than data blocks. */
    public long oldKeysFromKeysBlocks() {
        return oldKeysFromKeysBlocks;
    }

    /** Full key comparisons made. */
    public long keyComparisons() {
        return keyComparisons;
    }

    @Override
    public String toString() {
        return "RebuildStats[oldKeysRead=" + oldKeysRead + ", newKeysRead=" + newKeysRead
                + ", oldKeysFromKeysBlocks=" + oldKeysFromKeysBlocks + ", oldSlotsReused=" + oldSlotsReused
                + ", keyComparisons=" + keyComparisons + "]";
    }
}
