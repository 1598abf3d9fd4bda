package dev.remixdb.engine;

import dev.remixdb.compaction.CompactionPolicy;
import dev.remixdb.io.BlockReaders;
import dev.remixdb.table.TableOptions;

/**
 * The settings the engine's parts read, taken from the user's options when the store opens.
 *
 * @param memtableBytes     user bytes a memtable takes before it is frozen
 * @param syncWrites        whether every write waits for its WAL record to reach the disk
 * @param compactionThreads threads that compact partitions in parallel
 * @param tableBytes        size at which compaction cuts table files
 * @param tableOptions      block size, compression and keys block of new tables
 * @param policy            what each partition's compaction does
 * @param abortFraction     fraction of the memtable that aborted compactions may keep in memory
 * @param blockCacheBytes   the block cache's budget
 * @param walFlushMillis    how long a write not synced may wait in the WAL's buffer; 0: written before
 *                          the call returns
 * @param maxFrozenMemtables full memtables that may wait for compaction at once before writers stall
 * @param frozenInCacheRoom  whether more may wait in the block cache's unused room (see {@code Options})
 * @param ioEngine          how table files are read
 * @param directIo          whether table files are read past the page cache (io_uring only)
 */
public record EngineConfig(long memtableBytes, boolean syncWrites, int compactionThreads, long tableBytes,
                           TableOptions tableOptions, CompactionPolicy policy, double abortFraction,
                           long blockCacheBytes, long walFlushMillis, int maxFrozenMemtables,
                           boolean frozenInCacheRoom, BlockReaders.Kind ioEngine, boolean directIo) {}
