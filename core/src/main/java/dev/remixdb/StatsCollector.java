package dev.remixdb;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.engine.Counters;
import dev.remixdb.engine.MemtableRef;
import dev.remixdb.engine.ReadState;
import dev.remixdb.files.FileNames;
import dev.remixdb.version.Partition;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Gathers {@link Stats} from a read state, the engine's counters and the directory. */
final class StatsCollector {
    private StatsCollector() {}

    static Stats collect(ReadState s, Counters c, BlockCache cache, Path dir, int openSnapshots, int openCursors,
                         String ioEngine, long readAheadBlocks) {
        long keys = 0;
        long tombstones = 0;
        // A memtable counts each key's newest version (a tombstone there usually hides a version
        // below); a table's tombstone may hide nothing (its put was merged away with it). See
        // Stats.estimatedLiveKeys.
        long live = 0;
        long offHeap = cache.memoryBytes();
        List<MemtableRef> memtables = new ArrayList<>(s.frozen());
        memtables.add(s.mem());
        for (MemtableRef m : memtables) {
            long n = m.memtable().entryCount();
            long t = m.memtable().tombstoneCount();
            keys += n;
            tombstones += t;
            live += m.memtable().liveEstimate();
            offHeap += m.memtable().memoryBytes();
        }
        long disk = 0;
        long scanSkipped = 0;
        long scanReturned = 0;
        for (Partition p : s.version().partitions()) {
            long n = p.keyCount();
            long t = p.tombstoneCount();
            keys += n;
            tombstones += t;
            live += n - t;
            scanSkipped += p.scanHidden();
            scanReturned += p.scanVisible();
            offHeap += p.memoryBytes();
            disk += p.diskBytes();
        }
        disk += walAndManifestBytes(dir);
        return new Stats(keys, disk, s.version().tableCount(), s.version().partitionCount(), c.userBytes.sum(),
                c.walBytes.sum(), c.tableBytes.sum(), c.manifestBytes.sum(),
                new Stats.Compactions(c.minor.sum(), c.major.sum(), c.split.sum(), c.abort.sum(), c.idle.sum(),
                        c.optionalBytes.sum(), c.rounds.sum(), c.roundMemtables.sum()),
                offHeap, cache.memoryBytes(), c.stallNanos.sum(), c.slowdownNanos.sum(), s.frozen().size(),
                openSnapshots, c.leakedSnapshots.sum(), openCursors, c.leakedCursors.sum(), ioEngine, readAheadBlocks, scanSkipped,
                scanReturned, tombstones, Math.max(0, live));
    }

    private static long walAndManifestBytes(Path dir) {
        long sum = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.endsWith(FileNames.WAL) || name.equals(FileNames.MANIFEST)) {
                    try {
                        sum += Files.size(f);
                    } catch (java.nio.file.NoSuchFileException e) {
                        // Deleted by a compaction while we listed: no longer part of the store.
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
        return sum;
    }
}
