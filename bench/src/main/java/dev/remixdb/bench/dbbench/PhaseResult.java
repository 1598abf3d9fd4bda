package dev.remixdb.bench.dbbench;

import java.util.List;

/**
 * What one phase measured on one store: the child sends it to the parent as a JSON line
 * ({@link ResultLine}), typed field by field, so the parent reads back exactly what was measured.
 * The fields every phase has come first, in the order of the JSON report; a {@code Double} is null
 * where the number does not apply (e.g. the write amplification of a read phase). The nested parts
 * are null where they do not apply: {@code scan} for seek phases, {@code writer} for
 * readwhilewriting, and the store's own counters under its name.
 *
 * @param phase   the phase's label (unique in the run)
 * @param store   {@code remixdb} or {@code rocksdb}
 * @param kind    the phase kind in lower case ({@link PhaseSpec.Kind})
 * @param found   gets that returned a value; seeks that landed on their exact key
 * @param errors  wrong answers
 * @param bytesWritten bytes written to storage during the phase and its wait until idle; -1 unknown
 * @param bytesRead    bytes read from storage (page cache misses); -1 unknown
 */
public record PhaseResult(String phase, String store, String kind, int threads, long ops, double seconds,
                          double opsPerSec, double p50Micros, double p99Micros, double p999Micros, double maxMicros,
                          double meanMicros, long found, long errors, long bytesWritten, long bytesRead,
                          long userBytes, Double writeAmplification, Double settleSeconds, Double opsPerSecWithSettle,
                          double cpuSeconds, long diskBytes, long liveKeys, Double spaceAmplification,
                          long peakRssBytes, long rssBytes, long offHeapBytes, Scan scan, Writer writer,
                          RemixCounters remixdb, RocksCounters rocksdb) {

    /** Seek phases: entries copied per scan, and in all. */
    public record Scan(int scanLength, long entries) {}

    /** readwhilewriting: what its writer thread did meanwhile. */
    public record Writer(long writerOps, double writerOpsPerSec, double writerP99Micros) {}

    /** A store's own counters after a phase ({@link Store#counters()}): one record type per store. */
    public sealed interface StoreCounters permits RemixCounters, RocksCounters {}

    /**
     * RemixDB's own counters after the phase ({@link dev.remixdb.Stats}), since the store opened.
     *
     * @param walBytesPerUserByte WAL bytes written per byte of keys and values written: 1 plus the
     *                            WAL's framing
     */
    public record RemixCounters(double storeWriteAmplification, double walBytesPerUserByte, long blockCacheBytes,
                                int partitions, int tables,
                                long compactionsMinor, long compactionsMajor, long compactionsSplit,
                                long compactionsAbort, long compactionsIdle, long optionalBytes,
                                double stallSeconds, double slowdownSeconds)
            implements StoreCounters {}

    /**
     * RocksDB's properties after the phase.
     *
     * @param filesPerLevel table files at levels 0 to 6
     */
    public record RocksCounters(List<Long> filesPerLevel, long liveSstBytes, long blockCacheBytes)
            implements StoreCounters {
        public RocksCounters {
            filesPerLevel = List.copyOf(filesPerLevel);
        }
    }
}
