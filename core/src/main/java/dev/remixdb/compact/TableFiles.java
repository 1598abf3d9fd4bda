package dev.remixdb.compact;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.engine.Counters;
import dev.remixdb.io.BlockReader;
import dev.remixdb.table.TableOptions;

import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * What a compaction job needs to write and open new files, and nothing more: the directory, new
 * file numbers, the table format, the target table size, the reader and cache new tables open with,
 * and the counters of bytes written.
 */
record TableFiles(Path dir, LongSupplier fileNumbers, TableOptions tableOptions, long tableBytes,
                  BlockReader reader, BlockCache cache, Counters counters) {}
