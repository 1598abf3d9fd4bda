package dev.remixdb.engine;

import dev.remixdb.Options;
import dev.remixdb.cache.BlockCache;
import dev.remixdb.io.BlockReader;
import dev.remixdb.io.FileChannelBlockReader;
import dev.remixdb.memtable.Memtable;
import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixFile;
import dev.remixdb.table.Table;
import dev.remixdb.table.TableOptions;
import dev.remixdb.version.FileNames;
import dev.remixdb.version.Manifest;
import dev.remixdb.version.Partition;
import dev.remixdb.version.TableHandle;
import dev.remixdb.version.Version;
import dev.remixdb.wal.ReplayResult;
import dev.remixdb.wal.WalReader;
import dev.remixdb.wal.WalWriter;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Opening a store: lock the directory, read the MANIFEST (or create an empty store), open the
 * version's tables and REMIX files, delete files no version lists (left by a crash during a
 * compaction), replay the live WALs into a memtable (cutting a torn tail of the newest one), and
 * start a new WAL.
 */
final class Recovery {
    /** What {@link Engine} starts from. Each reference-counted part is passed with one reference. */
    record State(Path dir, Options options, TableOptions tableOptions, BlockReader reader, BlockCache cache,
                 FileChannel lockChannel, FileLock fileLock, long nextFileNumber, long lastSeq, WalWriter wal,
                 MemtableRef mem, Version version, String claim) {}

    private Recovery() {}

    static State recover(Path dir, Options options) throws IOException {
        Files.createDirectories(dir);
        String claim = StoreLocks.claim(dir);
        List<AutoCloseable> opened = new ArrayList<>();
        opened.add(() -> StoreLocks.release(claim));
        try {
            FileChannel lockChannel = FileChannel.open(dir.resolve(FileNames.LOCK), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            opened.add(lockChannel);
            FileLock fileLock;
            try {
                fileLock = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                fileLock = null;
            }
            if (fileLock == null) {
                throw new IOException("the store at " + dir + " is already open in another process");
            }
            opened.add(fileLock);
            BlockReader reader = new FileChannelBlockReader();
            opened.add(reader);
            BlockCache cache = new BlockCache(options.blockCacheBytes());
            opened.add(cache);
            return recover(dir, options, claim, lockChannel, fileLock, reader, cache, opened);
        } catch (IOException | RuntimeException | Error e) {
            closeAll(opened, e);
            throw e;
        }
    }

    private static State recover(Path dir, Options options, String claim, FileChannel lockChannel, FileLock fileLock,
                                 BlockReader reader, BlockCache cache, List<AutoCloseable> opened) throws IOException {
        Manifest.Data data = Manifest.read(dir);
        Files.deleteIfExists(dir.resolve(FileNames.MANIFEST_TMP));
        Map<String, TreeMap<Long, Path>> files = listFiles(dir);
        if (data == null) {
            if (!files.get(FileNames.TABLE).isEmpty() || !files.get(FileNames.WAL).isEmpty()) {
                throw new CorruptionException(dir.resolve(FileNames.MANIFEST), 0,
                        "MANIFEST is missing but the directory holds tables or WALs");
            }
            data = new Manifest.Data(1, 1, 0, 0, List.of(new Manifest.PartitionEntry(new byte[0], 0, new long[0])));
            Manifest.write(dir, data);
        }
        Version version = openVersion(dir, data, reader, cache);
        opened.add(version::release);

        deleteUnlisted(data, files);
        long maxNumber = 0;
        for (TreeMap<Long, Path> byNumber : files.values()) {
            if (!byNumber.isEmpty()) {
                maxNumber = Math.max(maxNumber, byNumber.lastKey());
            }
        }
        long next = Math.max(data.nextFileNumber(), maxNumber + 1);

        Memtable memtable = new Memtable();
        MemtableRef mem;
        long lastSeq = data.lastSequence();
        List<Long> wals = new ArrayList<>(files.get(FileNames.WAL).tailMap(data.firstLiveWal(), true).keySet());
        // Seqs are handed out in increasing order across the WALs, so no op's seq is more than one
        // past every seq before it (the MANIFEST's last sequence bounds what the tables hold; an abort
        // re-logs older seqs, which only go down). A jump means writes are missing from the middle of
        // the log, where no crash can tear it: a WAL cut short at a record boundary, or a WAL deleted.
        // Replaying on would show later writes without earlier ones: wrong data, so it is corruption.
        long[] maxSeq = {data.lastSequence()};
        try {
            // The first live WAL is durable before any MANIFEST names it and is deleted only after one names
            // a later WAL, so it can be absent only in a store that crashed while being created (the first
            // MANIFEST is written before the first WAL): no writes, no later WAL. Otherwise its writes,
            // which no table holds, would be lost without a word.
            if (!files.get(FileNames.WAL).containsKey(data.firstLiveWal()) && (data.lastSequence() > 0 || !wals.isEmpty())) {
                throw new CorruptionException(FileNames.wal(dir, data.firstLiveWal()), 0, "the first live WAL named by "
                        + dir.resolve(FileNames.MANIFEST) + " is missing");
            }
            for (int i = 0; i < wals.size(); i++) {
                long number = wals.get(i);
                int index = i;
                boolean[] firstOp = {true};
                ReplayResult r = WalReader.replay(FileNames.wal(dir, number), number, i == wals.size() - 1,
                        (seq, delete, key, koff, klen, value, voff, vlen) -> {
                            if (seq > maxSeq[0] + 1) {
                                throw seqGap(dir, wals, index, firstOp[0], seq, maxSeq[0]);
                            }
                            firstOp[0] = false;
                            maxSeq[0] = Math.max(maxSeq[0], seq);
                            long node = memtable.find(key, koff, klen, seq);
                            if (node >= 0 && memtable.seq(node) == seq) {
                                // A version an abort re-logged: already there from an older WAL.
                                return;
                            }
                            memtable.add(seq, key, koff, klen, value, voff, vlen, delete);
                        });
                lastSeq = Math.max(lastSeq, r.maxSeq());
            }
        } catch (IOException | RuntimeException | Error e) {
            memtable.close();
            throw e;
        }
        long walNumber = next++;
        mem = new MemtableRef(memtable, wals.isEmpty() ? walNumber : wals.getFirst());
        opened.add(mem::release);
        WalWriter wal = WalWriter.create(FileNames.wal(dir, walNumber), walNumber);
        opened.add(wal);
        Manifest.syncDirectory(dir);
        TableOptions tableOptions = new TableOptions(TableOptions.DEFAULT.blockBytes(), options.compression(),
                TableOptions.DEFAULT.keysBlock());
        return new State(dir, options, tableOptions, reader, cache, lockChannel, fileLock, next, lastSeq, wal, mem,
                version, claim);
    }

    private static long sizeOrZero(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    /** The corruption behind a jump from seq {@code max} to {@code seq} in WAL {@code wals[i]}. */
    private static CorruptionException seqGap(Path dir, List<Long> wals, int i, boolean firstOp, long seq, long max) {
        String missing = "seq " + seq + " follows seq " + max + ", the writes between are missing";
        if (firstOp && i > 0) {
            Path before = FileNames.wal(dir, wals.get(i - 1));
            return new CorruptionException(before, sizeOrZero(before), missing
                    + ": this WAL was cut short at a record boundary, or a WAL after it was deleted");
        }
        return new CorruptionException(FileNames.wal(dir, wals.get(i)), 0, missing + " (inside this WAL)");
    }

    /** The numbered files of the directory by suffix, then number. */
    private static Map<String, TreeMap<Long, Path>> listFiles(Path dir) throws IOException {
        Map<String, TreeMap<Long, Path>> out = new HashMap<>();
        for (String suffix : List.of(FileNames.TABLE, FileNames.REMIX, FileNames.WAL)) {
            out.put(suffix, new TreeMap<>());
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path f : stream) {
                String name = f.getFileName().toString();
                for (Map.Entry<String, TreeMap<Long, Path>> e : out.entrySet()) {
                    OptionalLong n = FileNames.number(name, e.getKey());
                    if (n.isPresent()) {
                        e.getValue().put(n.getAsLong(), f);
                    }
                }
            }
        }
        return out;
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
    private static void deleteUnlisted(Manifest.Data data, Map<String, TreeMap<Long, Path>> files) throws IOException {
        Set<Long> listed = new HashSet<>();
        for (Manifest.PartitionEntry e : data.partitions()) {
            listed.add(e.remixFile());
            for (long t : e.tables()) {
                listed.add(t);
            }
        }
        for (String suffix : List.of(FileNames.TABLE, FileNames.REMIX)) {
            for (Map.Entry<Long, Path> f : files.get(suffix).entrySet()) {
                if (!listed.contains(f.getKey())) {
                    deleteQuietly(f.getValue());
                }
            }
        }
        for (Path f : files.get(FileNames.WAL).headMap(data.firstLiveWal(), false).values()) {
            deleteQuietly(f);
        }
    }

    private static void deleteQuietly(Path f) throws IOException {
        try {
            Files.delete(f);
        } catch (NoSuchFileException e) {
            // Already gone: what we wanted.
        }
    }

    private static void closeAll(List<AutoCloseable> opened, Throwable failure) {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }
}
