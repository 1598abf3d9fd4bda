package dev.remixdb;

/**
 * A store's {@link Stats} as live getters, for monitoring: JMX (registered as
 * {@code dev.remixdb:type=RemixDB,path="<dir>"} when {@link Options.Builder#jmx(boolean)} is on),
 * or any metrics library that reads getters. Figures are at most a second old: one reading serves
 * all the getters of a JMX poll. After the store is closed the getters throw
 * {@link ClosedException}.
 */
public interface StatsMXBean {
    String getPath();

    long getKeys();

    long getDiskBytes();

    int getTables();

    int getPartitions();

    long getUserBytesWritten();

    long getWalBytesWritten();

    long getTableBytesWritten();

    long getManifestBytesWritten();

    double getWriteAmplification();

    long getMinorCompactions();

    long getMajorCompactions();

    long getSplitCompactions();

    long getAbortedCompactions();

    /** {@link Stats.Compactions#idle()}. */
    long getIdleMerges();

    /** {@link Stats.Compactions#optionalBytes()}. */
    long getOptionalBytesWritten();

    /** {@link Stats.Compactions#rounds()}. */
    long getCompactionRounds();

    /** {@link Stats.Compactions#memtables()}. */
    long getCompactedMemtables();

    long getOffHeapBytes();

    long getBlockCacheBytes();

    /** "io_uring" or "filechannel". */
    String getIoEngine();

    long getStallMillis();

    long getSlowdownMillis();

    int getFrozenMemtables();

    int getOpenSnapshots();

    long getLeakedSnapshots();

    int getOpenCursors();

    /** {@link Stats#leakedCursors()}. */
    long getLeakedCursors();

    /** {@link Stats#readAheadBlocks()}. */
    long getReadAheadBlocks();

    /** {@link Stats#scanSkipped()}. */
    long getScanSkipped();

    /** {@link Stats#scanReturned()}. */
    long getScanReturned();

    /** {@link Stats#tombstones()}. */
    long getTombstones();

    /** {@link Stats#estimatedLiveKeys()}. */
    long getEstimatedLiveKeys();
}
