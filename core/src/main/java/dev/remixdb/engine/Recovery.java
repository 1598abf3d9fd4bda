package dev.remixdb.engine;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.files.FileNames;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.io.BlockReader;
import dev.remixdb.io.BlockReaders;
import dev.remixdb.memtable.Memtable;
import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixFile;
import dev.remixdb.table.Table;
import dev.remixdb.util.Closeables;
import dev.remixdb.version.Manifest;
import dev.remixdb.version.Partition;
import dev.remixdb.version.TableHandle;
import dev.remixdb.version.Version;
import dev.remixdb.wal.ReplayResult;
import dev.remixdb.wal.WalOp;
import dev.remixdb.wal.WalReader;
import dev.remixdb.wal.WalWriter;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Opening a store: lock the directory, read the MANIFEST (or create an empty store), open the
 * version's tables and REMIX files, delete files no version lists (left by a crash during a
 * compaction), replay the live WALs into a memtable and sync them (cutting a torn tail of the newest one that holds
 * records, or of an older one a power cut tore while it was being synced), and start a new WAL. What is damage and what a crash left is decided by {@link RecoveryRules}.
 */
public final class Recovery {
    /**
     * What the engine starts from. Each part is passed with one reference (or ownership): the
     * receiver closes or releases them.
     */
    public record Recovered(StoreDirectory dir, BlockReader reader, BlockCache cache, long nextFileNumber,
                            long lastSeq, WalWriter wal, MemtableRef mem, Version version) {}

    private Recovery() {}

    /** Opens (creating or recovering) the store in {@code dir}. */
    public static Recovered recover(Path dir, EngineConfig config) throws IOException {
        StoreDirectory directory = StoreDirectory.lockForOpen(dir);
        List<AutoCloseable> opened = new ArrayList<>();
        opened.add(directory);
        try {
            BlockReader reader = BlockReaders.open(config.ioEngine(), config.directIo(), dir);
            opened.add(reader);
            BlockCache cache = new BlockCache(config.blockCacheBytes());
            opened.add(cache);
            return recover(directory, reader, cache, opened);
        } catch (IOException | RuntimeException | Error e) {
            Closeables.closeAll(opened.reversed(), e);
            throw e;
        }
    }

    private static Recovered recover(StoreDirectory directory, BlockReader reader, BlockCache cache,
                                     List<AutoCloseable> opened) throws IOException {
        Path dir = directory.path();
        Manifest.Data data = Manifest.read(dir);
        Files.deleteIfExists(dir.resolve(FileNames.MANIFEST_TMP));
        StoreDirectory.Listing files = directory.list();
        if (data == null) {
            String damage = RecoveryRules.missingManifest(files);
            if (damage != null) {
                throw new CorruptionException(dir.resolve(FileNames.MANIFEST), 0, damage);
            }
            data = new Manifest.Data(1, 1, 0, 0, List.of(new Manifest.PartitionEntry(new byte[0], 0, new long[0])));
            Manifest.write(dir, data);
        }
        Version version = openVersion(dir, data, reader, cache);
        opened.add(version::release);

        deleteUnlisted(data, files);
        long next = Math.max(data.nextFileNumber(), files.maxNumber() + 1);

        Memtable memtable = new Memtable();
        long lastSeq;
        List<Long> wals = new ArrayList<>(files.wals().tailMap(data.firstLiveWal(), true).keySet());
        try {
            if (RecoveryRules.firstWalMissing(data, files)) {
                throw new CorruptionException(FileNames.wal(dir, data.firstLiveWal()), 0,
                        RecoveryRules.firstWalMissingMessage(dir));
            }
            List<Long> empty = new ArrayList<>();
            List<Long> dropped = new ArrayList<>();
            lastSeq = replay(dir, wals, data.lastSequence(), memtable, empty, dropped);
            wals.removeAll(dropped);  // replay deleted them already
            // Each open starts a new WAL; one that never got a record (an open and close with no
            // write, as the CLI's reads do) would otherwise stay until the memtable is compacted,
            // one more file per open to replay, checkpoint and back up. It holds nothing: delete it.
            // The first live WAL stays, since the MANIFEST names it; the directory sync below covers
            // the deletes.
            for (long number : empty) {
                Files.deleteIfExists(FileNames.wal(dir, number));
                wals.remove(Long.valueOf(number));
            }
        } catch (IOException | RuntimeException | Error e) {
            memtable.close();
            throw e;
        }
        long walNumber = next++;
        MemtableRef mem = new MemtableRef(memtable, wals.isEmpty() ? walNumber : wals.getFirst());
        opened.add(mem::release);
        WalWriter wal = WalWriter.create(FileNames.wal(dir, walNumber), walNumber);
        opened.add(wal);
        directory.sync();
        return new Recovered(directory, reader, cache, next, lastSeq, wal, mem, version);
    }

    /**
     * Replays the live WALs in order into {@code memtable} and syncs each; returns the largest
     * sequence number. Adds to {@code empty} the WALs after the first that ended cleanly without a
     * record, and to {@code dropped} those a power cut left after a torn WAL (see
     * {@link RecoveryRules#notLostToPowerCut}), which it has deleted.
     */
    private static long replay(Path dir, List<Long> wals, long manifestSeq, Memtable memtable, List<Long> empty,
                               List<Long> dropped) throws IOException {
        long lastSeq = manifestSeq;
        RecoveryRules.SequenceCheck seqs = new RecoveryRules.SequenceCheck(manifestSeq);
        int lastWithRecords = RecoveryRules.lastWalWithRecords(dir, wals);
        for (int i = 0; i < wals.size(); i++) {
            long number = wals.get(i);
            Path path = FileNames.wal(dir, number);
            boolean tail = i >= lastWithRecords;
            int index = i;
            boolean[] firstOp = {true};
            WalReader.Visitor apply = (seq, type, key, koff, klen, value, voff, vlen) -> {
                        String gap = seqs.next(seq);
                        if (gap != null) {
                            throw seqGap(dir, wals, index, firstOp[0], gap);
                        }
                        firstOp[0] = false;
                        if (type == WalOp.Type.RANGE_DELETE) {
                            memtable.deleteRange(seq, key.asSlice(koff, klen).toArray(ValueLayout.JAVA_BYTE),
                                    vlen == 0 ? null : value.asSlice(voff, vlen).toArray(ValueLayout.JAVA_BYTE));
                            return;
                        }
                        long node = memtable.find(key, koff, klen, seq);
                        if (node >= 0 && memtable.seq(node) == seq) {
                            // A version an abort re-logged: already there from an older WAL.
                            return;
                        }
                        memtable.add(seq, key, koff, klen, value, voff, vlen, type == WalOp.Type.DELETE);
                    };
            // A torn tail is cut only where a crash can leave one; an older WAL is read as it is first.
            ReplayResult r = tail ? WalReader.replay(path, number, true, apply) : WalReader.check(path, number, apply);
            lastSeq = Math.max(lastSeq, r.maxSeq());
            if (tail && r.torn()) {
                // A kill leaves a few bytes of a write; a power cut that kept later pages of the
                // unsynced tail and not earlier ones, a hole with good records after it: worth a warning.
                System.getLogger(Recovery.class.getName()).log(
                        r.tornBytes() >= 4096 ? System.Logger.Level.WARNING : System.Logger.Level.INFO,
                        "{0}: cut a torn tail of {1} bytes at offset {2}, after the last whole record (never synced)",
                        path, r.tornBytes(), r.validLength());
            }
            if (r.torn() && !tail) {
                List<Long> later = wals.subList(i + 1, wals.size());
                String damage = RecoveryRules.notLostToPowerCut(dir, later);
                if (damage != null) {
                    throw new CorruptionException(path, r.validLength(), "torn record of " + r.tornBytes()
                            + " bytes in a WAL followed by WALs that hold records: " + damage);
                }
                // The later WALs go first, durably: cut first, a crash before their deletion would
                // leave a clean WAL followed by records past its end, which no open accepts.
                for (long n : later) {
                    Files.deleteIfExists(FileNames.wal(dir, n));
                }
                StoreDirectory.sync(dir);
                WalReader.cut(path, r.validLength());
                dropped.addAll(later);
                System.getLogger(Recovery.class.getName()).log(System.Logger.Level.WARNING,
                        "{0} was torn at offset {1} while its sync was under way when the power went; the"
                                + " records of the {2} WAL(s) after it, never synced, are dropped to keep the writes"
                                + " a prefix: {3}", path, r.validLength(), later.size(), later);
                break;
            }
            // Writes acknowledged before a kill may still be only in the page cache: made durable
            // here, since writes after this open may be synced and must not outlive them (a WAL
            // whose torn tail was cut is synced by the cut).
            if (!r.torn()) {
                WalReader.sync(path);
            }
            // The newest log's records are durable now: a record saying so makes damage in them
            // read as damage later, not as a torn, never synced, tail to cut. Only after the sync
            // above: written with the records, a power cut could keep it and lose a page of them,
            // and the next open would refuse a log none of whose records had been synced.
            // Not into a file another directory shares: a checkpoint links the older WALs, and its
            // open must not write into the store's.
            if (tail && r.records() > 0 && r.maxSeq() >= 0 && !linkedElsewhere(path)
                    && WalWriter.appendSyncedMark(path, r.maxSeq())) {
                WalReader.sync(path);
            }
            if (i > 0 && r.records() == 0 && r.tornBytes() == 0) {
                empty.add(number);
            }
        }
        return lastSeq;
    }

    /** Whether {@code file} has other hard links (where the file system tells; false where it does not). */
    private static boolean linkedElsewhere(Path file) {
        try {
            return ((Number) Files.getAttribute(file, "unix:nlink")).intValue() > 1;
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
            return false;
        }
    }

    /** The corruption behind a sequence gap met in WAL {@code wals[i]}. */
    private static CorruptionException seqGap(Path dir, List<Long> wals, int i, boolean firstOp, String gap) {
        if (firstOp && i > 0) {
            Path before = FileNames.wal(dir, wals.get(i - 1));
            return new CorruptionException(before, sizeOrZero(before), gap
                    + ": this WAL was cut short at a record boundary, or a WAL after it was deleted");
        }
        return new CorruptionException(FileNames.wal(dir, wals.get(i)), 0, gap + " (inside this WAL)");
    }

    private static long sizeOrZero(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    private static Version openVersion(Path dir, Manifest.Data data, BlockReader reader, BlockCache cache)
            throws IOException {
        List<Partition> partitions = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        try {
            for (Manifest.PartitionEntry e : data.partitions()) {
                partitions.add(openPartition(dir, e, reader, cache, seen));
            }
            return new Version(partitions, data.versionSequence());
        } catch (IOException | RuntimeException | Error e) {
            for (Partition p : partitions) {
                p.release();
            }
            throw e;
        }
    }

    private static Partition openPartition(Path dir, Manifest.PartitionEntry e, BlockReader reader, BlockCache cache,
                                           Set<Long> seen) throws IOException {
        if (e.tables().length == 0) {
            return Partition.empty(e.lower());
        }
        List<TableHandle> tables = new ArrayList<>();
        Remix remix = null;
        try {
            for (long number : e.tables()) {
                if (!seen.add(number)) {
                    throw new CorruptionException(dir.resolve(FileNames.MANIFEST), 0,
                            "table " + number + " is listed twice");
                }
                tables.add(new TableHandle(Table.open(number, existing(dir, FileNames.table(dir, number)), reader, cache)));
            }
            List<Table> runs = new ArrayList<>();
            for (TableHandle t : tables) {
                runs.add(t.table());
            }
            Path remixPath = existing(dir, FileNames.remix(dir, e.remixFile()));
            remix = RemixFile.read(remixPath, runs);
            return new Partition(e.lower(), tables, remix, e.remixFile(), remixPath);
        } catch (IOException | RuntimeException | Error x) {
            if (remix != null) {
                remix.close();
            }
            for (TableHandle t : tables) {
                t.release();
            }
            throw x;
        }
    }

    private static Path existing(Path dir, Path file) {
        if (!Files.exists(file)) {
            throw new CorruptionException(file, 0, "file listed in " + dir.resolve(FileNames.MANIFEST) + " is missing");
        }
        return file;
    }

    /** Deletes tables and REMIX files the MANIFEST does not list and WALs older than its first live one. */
    private static void deleteUnlisted(Manifest.Data data, StoreDirectory.Listing files) throws IOException {
        Set<Long> listed = new HashSet<>();
        for (Manifest.PartitionEntry e : data.partitions()) {
            listed.add(e.remixFile());
            for (long t : e.tables()) {
                listed.add(t);
            }
        }
        for (TreeMap<Long, Path> kind : List.of(files.tables(), files.remixes())) {
            for (Map.Entry<Long, Path> f : kind.entrySet()) {
                if (!listed.contains(f.getKey())) {
                    StoreDirectory.deleteIfExists(f.getValue());
                }
            }
        }
        for (Path f : files.wals().headMap(data.firstLiveWal(), false).values()) {
            StoreDirectory.deleteIfExists(f);
        }
    }
}
