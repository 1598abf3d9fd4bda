package dev.remixdb;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.engine.RecoveryRules;
import dev.remixdb.files.FileNames;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.io.FileChannelBlockReader;
import dev.remixdb.remix.CorruptionException;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixFile;
import dev.remixdb.table.Table;
import dev.remixdb.version.Manifest;
import dev.remixdb.wal.ReplayResult;
import dev.remixdb.wal.WalReader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks every checksum of a closed store without changing it: the MANIFEST, each table it lists
 * (every block, the padding between blocks, the keys block), each partition's REMIX against its
 * tables, and the live WALs record by record (sequence numbers included). Holds the store's LOCK
 * meanwhile, so the store cannot be opened while it runs, and refuses a store that is open.
 */
final class StoreVerifier {
    private final Path dir;
    /** One reader and an empty cache for every file the run opens (blocks are checked, not kept). */
    private final FileChannelBlockReader reader = new FileChannelBlockReader();
    private final BlockCache cache = new BlockCache(0);
    private final List<VerifyReport.Problem> problems = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private int files;
    private long bytes;
    private int tornTails;

    private StoreVerifier(Path dir) {
        this.dir = dir;
    }

    static VerifyReport verify(Path dir) throws IOException {
        try (StoreDirectory held = StoreDirectory.lockForCheck(dir)) {
            StoreVerifier v = new StoreVerifier(dir);
            try (v.reader; v.cache) {
                return v.run(held.list());
            }
        }
    }

    private VerifyReport run(StoreDirectory.Listing listing) throws IOException {
        TreeMap<Long, Path> tables = listing.tables();
        TreeMap<Long, Path> remixes = listing.remixes();
        TreeMap<Long, Path> wals = listing.wals();
        Path manifestFile = dir.resolve(FileNames.MANIFEST);
        Manifest.Data manifest = null;
        try {
            manifest = Manifest.read(dir);
            if (manifest == null) {
                String damage = RecoveryRules.missingManifest(listing);
                if (damage != null) {
                    problem(manifestFile, 0, damage);
                } else {
                    notes.add("no MANIFEST and no data files: an empty or never-opened store");
                }
            } else {
                count(manifestFile);
            }
        } catch (CorruptionException e) {
            problem(e);
        }
        Set<Long> listed = new HashSet<>();
        if (manifest != null) {
            for (Manifest.PartitionEntry p : manifest.partitions()) {
                checkPartition(p, listed);
            }
            if (RecoveryRules.firstWalMissing(manifest, listing)) {
                problem(FileNames.wal(dir, manifest.firstLiveWal()), 0, RecoveryRules.firstWalMissingMessage(dir));
            }
            checkWals(wals, manifest.firstLiveWal(), manifest.lastSequence());
        } else {
            // Without a MANIFEST nothing says which files are live: check each on its own.
            for (var e : tables.entrySet()) {
                checkTableAlone(e.getKey(), e.getValue());
            }
            checkWals(wals, wals.isEmpty() ? 0 : wals.firstKey(), -1);
        }
        for (TreeMap<Long, Path> kind : List.of(tables, remixes)) {
            for (var e : kind.entrySet()) {
                if (manifest != null && !listed.contains(e.getKey())) {
                    notes.add(e.getValue().getFileName() + " is listed by no version (left by a crash during a "
                            + "compaction; deleted at the next open)");
                }
            }
        }
        return new VerifyReport(problems, notes, files, bytes, tornTails);
    }

    private void checkPartition(Manifest.PartitionEntry p, Set<Long> listed) throws IOException {
        if (p.tables().length == 0) {
            return;
        }
        List<Table> runs = new ArrayList<>();
        try {
            boolean allTables = true;
            for (long number : p.tables()) {
                listed.add(number);
                Path path = FileNames.table(dir, number);
                Table t = openTable(number, path);
                if (t == null) {
                    allTables = false;
                    continue;
                }
                runs.add(t);
                try {
                    t.verify();
                } catch (CorruptionException e) {
                    problem(e);
                }
            }
            listed.add(p.remixFile());
            Path remixPath = FileNames.remix(dir, p.remixFile());
            if (!Files.exists(remixPath)) {
                problem(remixPath, 0, "REMIX file listed in the MANIFEST is missing");
            } else if (allTables) {
                count(remixPath);
                try (Remix remix = RemixFile.read(remixPath, runs)) {
                    remix.runCount();
                } catch (CorruptionException e) {
                    problem(e);
                }
            } else {
                count(remixPath);
                notes.add(remixPath.getFileName() + " not checked: a table of its partition cannot be opened");
            }
        } finally {
            for (Table t : runs) {
                t.close();
            }
        }
    }

    private Table openTable(long number, Path path) throws IOException {
        if (!Files.exists(path)) {
            problem(path, 0, "table listed in the MANIFEST is missing");
            return null;
        }
        count(path);
        try {
            return Table.open(number, path, reader, cache);
        } catch (CorruptionException e) {
            problem(e);
            return null;
        }
    }

    private void checkTableAlone(long number, Path path) throws IOException {
        Table t = openTable(number, path);
        if (t != null) {
            try (t) {
                t.verify();
            } catch (CorruptionException e) {
                problem(e);
            }
        }
    }

    /**
     * The live WALs: each record's checksums, and sequence numbers without gaps (as recovery checks;
     * {@code manifestSeq} negative when there is no MANIFEST to start from).
     */
    private void checkWals(TreeMap<Long, Path> wals, long firstLive, long manifestSeq) throws IOException {
        List<Long> live = new ArrayList<>(wals.tailMap(firstLive, true).keySet());
        // Without a MANIFEST the sequence numbers are checked from the first one met.
        RecoveryRules.SequenceCheck[] seqs = {manifestSeq < 0 ? null : new RecoveryRules.SequenceCheck(manifestSeq)};
        int lastWithRecords = RecoveryRules.lastWalWithRecords(dir, live);
        boolean dropped = false;
        for (int i = 0; i < live.size(); i++) {
            long number = live.get(i);
            Path path = wals.get(number);
            count(path);
            if (dropped) {
                continue;  // after a WAL a power cut tore mid-sync: the next open drops it
            }
            String[] gap = {null};
            try {
                ReplayResult r = WalReader.check(path, number, (seq, type, key, ko, kl, value, vo, vl) -> {
                    if (seqs[0] == null) {
                        seqs[0] = new RecoveryRules.SequenceCheck(seq - 1);
                    }
                    String g = seqs[0].next(seq);
                    if (g != null && gap[0] == null) {
                        gap[0] = g;
                    }
                });
                if (gap[0] != null) {
                    problem(path, 0, gap[0]);
                }
                if (r.torn()) {
                    if (i >= lastWithRecords) {
                        tornTails++;
                        notes.add(path.getFileName() + " ends in a torn record of " + r.tornBytes() + " bytes at offset "
                                + r.validLength() + " (a crash mid-append; cut at the next open)");
                    } else {
                        String damage = RecoveryRules.notLostToPowerCut(dir, live.subList(i + 1, live.size()));
                        if (damage == null) {
                            tornTails++;
                            notes.add(path.getFileName() + " ends in a torn record of " + r.tornBytes() + " bytes at offset "
                                    + r.validLength() + ", torn by a power cut while it was being synced; the next open cuts"
                                    + " it and drops the records of the " + (live.size() - i - 1) + " WAL(s) after it,"
                                    + " none of which was ever synced");
                            dropped = true;
                            continue;
                        }
                        problem(path, r.validLength(), "torn record of " + r.tornBytes()
                                + " bytes in a WAL followed by WALs that hold records: " + damage);
                    }
                }
            } catch (CorruptionException e) {
                problem(e);
            }
        }
    }

    private void count(Path f) throws IOException {
        files++;
        bytes += Files.size(f);
    }

    private void problem(CorruptionException e) {
        String prefix = e.file() + " at offset " + e.offset() + ": ";
        String what = e.getMessage().startsWith(prefix) ? e.getMessage().substring(prefix.length()) : e.getMessage();
        problems.add(new VerifyReport.Problem(e.file(), e.offset(), what));
    }

    private void problem(Path file, long offset, String what) {
        problems.add(new VerifyReport.Problem(file, offset, what));
    }

}
