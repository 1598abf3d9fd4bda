package dev.remixdb;

import dev.remixdb.files.FileNames;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Damaged files on disk: one flipped byte at a random offset of a table, a REMIX file, the
 * MANIFEST, the newest WAL and an older WAL, each on a fresh copy of one store; then truncated and
 * missing files. Every trial opens the copy and reads everything (a get of every key ever written
 * and a full scan) and must end in exactly one of:
 * <ul>
 *   <li>{@link Outcome#CORRUPTION}: a {@link CorruptionException} (at open or at a read) whose
 *       {@link CorruptionException#file()} is the damaged file, and every value read before it right;</li>
 *   <li>{@link Outcome#INTACT}: everything equal to the model (possible only where a byte is covered
 *       by no checksum because it is never read: table padding between blocks, the compressed keys
 *       block that only compaction reads);</li>
 *   <li>{@link Outcome#TAIL_CUT}, for the newest WAL only: everything equal to the model without the
 *       last write. The WAL reader treats a record whose payload checksum fails as a torn tail only
 *       when nothing but zero bytes follows it (see {@link dev.remixdb.wal.WalReader}); one flipped
 *       byte damages one record, and any record but the last is followed by the next record's
 *       non-zero header. Since a close ends a WAL with a mark record, the last record of this
 *       cleanly closed store is that mark: a flip in its payload cuts the mark alone (INTACT), and no
 *       flip cuts a write. The last write is a put of a key written nowhere else, so a cut would show.</li>
 * </ul>
 * Wrong data and any other exception type (an {@link java.io.UncheckedIOException} wrapping the
 * corruption included) fail the test.
 */
class CorruptionTest {
    /** Trials per kind of file; each opens a store and reads all of it (tens of milliseconds). */
    private static final int TRIALS = Integer.getInteger("remixdb.corruption.trials", 30);

    /** The mark record a close ends a WAL with, one synced op (see {@link dev.remixdb.wal.WalWriter}). */
    private static final int MARK_RECORD_BYTES = 39;

    /** Every write in the WAL file at once (walFlushMillis 0): the test cuts the WAL at known record ends. */
    private static final Options OPTIONS = Options.builder().memtableBytes(16 * 1024).tableBytes(8 * 1024)
            .blockCacheBytes(256 * 1024).walFlushMillis(0).build();

    @TempDir
    static Path root;

    private static long seed;
    private static Path pristine;
    /** The store's contents after the last write. */
    private static NavigableMap<byte[], byte[]> model;
    /** The contents before the last write (a put of a fresh key, the last record of the newest WAL). */
    private static NavigableMap<byte[], byte[]> modelBeforeLast;
    /** Every key ever written or deleted: gets of deleted keys must say absent. */
    private static NavigableSet<byte[]> touched;
    private static Path newestWal;
    private static Path olderWal;
    /** The newest WAL's last record is [lastRecordStart, lastRecordEnd) of the file. */
    private static long lastRecordStart;
    private static long lastRecordEnd;

    /**
     * The newest WAL's history: after its first k writes the store held {@code newestStates.get(k)},
     * and the WAL was {@code newestEnds.get(k)} bytes long (k = 0: just its 24-byte header).
     */
    private static final List<NavigableMap<byte[], byte[]>> newestStates = new ArrayList<>();
    private static final List<Long> newestEnds = new ArrayList<>();

    private static final AtomicInteger copies = new AtomicInteger();

    enum Outcome { CORRUPTION, INTACT, TAIL_CUT }

    /**
     * Builds the store: session 1 writes a few thousand keys (tiny memtables, so many compactions),
     * compacts, then writes more into its WAL; session 2 replays that WAL (which stays live: the
     * memtable holding it is not flushed) and writes more into a new WAL, ending with a put of a
     * fresh key. Closed, it holds tables, REMIX files, the MANIFEST, an older and a newest WAL.
     */
    @BeforeAll
    static void buildStore() throws Exception {
        // -Dremixdb.corruption.seed=N replays a failed run (every message names its seed).
        seed = Long.getLong("remixdb.corruption.seed", System.nanoTime());
        Random rnd = new Random(seed);
        pristine = root.resolve("pristine");
        model = new TreeMap<>(Arrays::compareUnsigned);
        touched = new TreeSet<>(Arrays::compareUnsigned);
        try (RemixDB db = RemixDB.open(pristine, OPTIONS)) {
            for (int i = 0; i < 3000; i++) {
                randomWrite(db, rnd, 1200, rnd.nextInt(20) == 0 ? 400 : 60);
            }
            db.compactMemtable();
            for (int i = 0; i < 60; i++) {
                randomWrite(db, rnd, 1200, 40);
            }
        }
        try (RemixDB db = RemixDB.open(pristine, OPTIONS)) {
            Path wal = files(pristine, FileNames.WAL).getLast();
            newestStates.add(new TreeMap<>(model));
            newestEnds.add(Files.size(wal));
            for (int i = 0; i < 59; i++) {
                randomWrite(db, rnd, 1200, 40);
                newestStates.add(new TreeMap<>(model));
                newestEnds.add(Files.size(wal));
            }
            modelBeforeLast = new TreeMap<>(model);
            lastRecordStart = Files.size(wal);
            byte[] key = "zz-last-write".getBytes(StandardCharsets.UTF_8);
            byte[] value = new byte[30];
            rnd.nextBytes(value);
            db.put(key, value);
            model.put(key, value);
            touched.add(key);
            lastRecordEnd = Files.size(wal);
            newestStates.add(new TreeMap<>(model));
            newestEnds.add(lastRecordEnd);
        }
        List<Path> wals = files(pristine, FileNames.WAL);
        assertEquals(2, wals.size(), "seed " + seed + ": an older and a newest WAL: " + wals);
        olderWal = wals.get(0).getFileName();
        newestWal = wals.get(1).getFileName();
        // The close ended the WAL with a mark (27 bytes, replaying nothing): the same state again.
        long closed = Files.size(pristine.resolve(newestWal));
        assertTrue(lastRecordEnd > lastRecordStart && closed == lastRecordEnd + MARK_RECORD_BYTES,
                "seed " + seed + ": the last put is the newest WAL's last record before the closing mark");
        newestStates.add(new TreeMap<>(model));
        newestEnds.add(closed);
        assertTrue(Files.size(pristine.resolve(olderWal)) > 1000, "seed " + seed + ": the older WAL holds records");
        assertTrue(files(pristine, FileNames.TABLE).size() >= 3, "seed " + seed + ": tables");
        assertTrue(!files(pristine, FileNames.REMIX).isEmpty(), "seed " + seed + ": REMIX files");
        assertTrue(Files.exists(pristine.resolve(FileNames.MANIFEST)));
        // The pristine store reads back as the model (and stays so: trials only touch copies).
        assertEquals(Outcome.INTACT, trial(copy(), null, -1, false, "seed " + seed + " undamaged copy"));
    }

    private static void randomWrite(RemixDB db, Random rnd, int keys, int maxValue) throws IOException {
        byte[] key = String.format("key-%05d", rnd.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
        touched.add(key);
        if (rnd.nextInt(6) == 0) {
            db.delete(key);
            model.remove(key);
        } else {
            byte[] value = new byte[rnd.nextInt(maxValue)];
            rnd.nextBytes(value);
            db.put(key, value);
            model.put(key, value);
        }
    }

    // ------------------------------------------------------------------ byte flips

    @Test
    void flippedByteInATableIsDetectedOrHarmless() throws Exception {
        Random rnd = new Random(seed + 1);
        List<Path> tables = files(pristine, FileNames.TABLE);
        Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
        int shadowed = 0;
        for (int t = 0; t < TRIALS; t++) {
            Path name = tables.get(rnd.nextInt(tables.size())).getFileName();
            long size = Files.size(pristine.resolve(name));
            // Half anywhere (mostly data blocks), half in the metadata and footer at the end.
            long offset = t % 2 == 0 ? rnd.nextLong(size) : size - 1 - rnd.nextLong(Math.min(size, 600));
            String region = tableRegion(Files.readAllBytes(pristine.resolve(name)), offset);
            Outcome o = flipTrial(name, offset, rnd, false, "table " + name + " (" + region + ")", t);
            outcomes.merge(o, 1, Integer::sum);
            // Table: "every byte that is read is covered by a CRC32C, checked before use"; padding and the
            // keys block are not read by gets and scans.
            // keys block are not read by gets and scans; nor, perhaps, a data block all of whose entries
            // are stale versions.
            Outcome expected = region.equals("padding") || region.equals("keys block") ? Outcome.INTACT : Outcome.CORRUPTION;
            if (o == Outcome.INTACT && expected == Outcome.CORRUPTION && region.equals("data block")
                    && dataBlockIsShadowed(name, Files.readAllBytes(pristine.resolve(name)), offset)) {
                expected = Outcome.INTACT;
                shadowed++;
            }
            assertEquals(expected, o, "seed " + seed + " trial " + t + ": " + name + " offset " + offset + " in " + region);
        }
        System.out.println("CorruptionTest seed " + seed + " tables: " + outcomes + ", " + shadowed
                + " unseen flips in data blocks of stale versions only");
        assertTrue(outcomes.getOrDefault(Outcome.CORRUPTION, 0) > 0, "seed " + seed + ": some flips were detected: " + outcomes);
    }

    /**
     * Whether every entry of the data block holding {@code offset} also has a newer version in a
     * later table of its partition (the tables of a partition are listed oldest first). The REMIX
     * marks such entries stale: a full scan steps over them by their selector bit and a get stops at
     * the newest version, so the block may never be read and a flip in it may go unseen.
     */
    private static boolean dataBlockIsShadowed(Path name, byte[] file, long offset) throws IOException {
        int block = dataBlockNumber(file, offset);
        long id = Long.parseLong(name.getFileName().toString().replaceAll("\\D", ""));
        List<Long> newer = null;
        for (var partition : dev.remixdb.version.Manifest.read(pristine).partitions()) {
            long[] ids = partition.tables();
            for (int i = 0; i < ids.length; i++) {
                if (ids[i] == id) {
                    newer = new ArrayList<>();
                    for (int j = i + 1; j < ids.length; j++) {
                        newer.add(ids[j]);
                    }
                }
            }
        }
        assertTrue(newer != null, "seed " + seed + ": " + name + " is in no partition of the MANIFEST");
        List<byte[]> keys = new ArrayList<>();
        try (var reader = dev.remixdb.io.BlockReaders.open(dev.remixdb.io.BlockReaders.Kind.FILE_CHANNEL, false, pristine);
             var cache = new dev.remixdb.cache.BlockCache(1 << 20);
             var table = dev.remixdb.table.Table.open(id, pristine.resolve(name), reader, cache);
             var cursor = table.newCursor()) {
            cursor.seekTo(dev.remixdb.remix.RunAddress.of(block, 0));
            for (int i = 0; i < table.keyCount(block); i++, cursor.next()) {
                keys.add(cursor.keySegment().asSlice(cursor.keyOffset(), cursor.keyLength())
                        .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
            // Each key must have a version in one of the newer tables.
            List<byte[]> shadowed = new ArrayList<>();
            for (long newerId : newer) {
                try (var t = dev.remixdb.table.Table.open(newerId, FileNames.table(pristine, newerId), reader, cache);
                     var c = t.newCursor()) {
                    for (byte[] key : keys) {
                        MemorySegment k = MemorySegment.ofArray(key);
                        c.seek(k, 0, key.length);
                        if (c.isValid() && c.compareKey(k, 0, key.length) == 0) {
                            shadowed.add(key);
                        }
                    }
                }
                keys.removeAll(shadowed);
            }
            return keys.isEmpty();
        }
    }

    /** The number of the data block that holds {@code offset} (its record's index), or -1 if none does. */
    private static int dataBlockNumber(byte[] file, long offset) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int footer = file.length - 128;
        long recordsAt = b.getLong(footer + 40);
        long recordsLength = b.getLong(footer + 48);
        for (long r = recordsAt; r < recordsAt + recordsLength; r += 24) {
            long blockAt = b.getLong((int) r);
            long stored = Integer.toUnsignedLong(b.getInt((int) r + 8));
            if (offset >= blockAt && offset < blockAt + stored) {
                return (int) ((r - recordsAt) / 24);
            }
        }
        return -1;
    }

    /**
     * What the byte at {@code offset} of a table belongs to, from the layout in {@link dev.remixdb.table.Table}'s
     * Javadoc: "footer", "block records", "block index", "keys block", "data block" or "padding".
     */
    private static String tableRegion(byte[] file, long offset) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        int footer = file.length - 128;
        long recordsAt = b.getLong(footer + 40);
        long indexAt = b.getLong(footer + 56);
        long keysAt = b.getLong(footer + 72);
        long keysLength = b.getLong(footer + 80);
        if (offset >= footer) {
            return "footer";
        }
        if (offset >= keysAt) {
            assertTrue(offset < keysAt + keysLength);
            return "keys block";
        }
        if (offset >= indexAt) {
            return "block index";
        }
        if (offset >= recordsAt) {
            return "block records";
        }
        return dataBlockNumber(file, offset) >= 0 ? "data block" : "padding";
    }

    @Test
    void flippedByteInARemixFileIsAlwaysDetected() throws Exception {
        Random rnd = new Random(seed + 2);
        List<Path> remixes = files(pristine, FileNames.REMIX);
        for (int t = 0; t < TRIALS; t++) {
            Path name = remixes.get(rnd.nextInt(remixes.size())).getFileName();
            long offset = rnd.nextLong(Files.size(pristine.resolve(name)));
            // RemixFile: every byte is in a section covered by a CRC32C, and the file is read whole at open.
            assertEquals(Outcome.CORRUPTION, flipTrial(name, offset, rnd, false, "REMIX " + name, t),
                    "seed " + seed + " trial " + t + ": " + name + " offset " + offset);
        }
    }

    @Test
    void flippedByteInTheManifestIsAlwaysDetected() throws Exception {
        Random rnd = new Random(seed + 3);
        Path name = Path.of(FileNames.MANIFEST);
        long size = Files.size(pristine.resolve(name));
        for (int t = 0; t < TRIALS; t++) {
            long offset = t < size && t < TRIALS / 3 ? t : rnd.nextLong(size);
            // Manifest: one CRC32C over the whole file, read whole at open.
            assertEquals(Outcome.CORRUPTION, flipTrial(name, offset, rnd, false, "MANIFEST", t),
                    "seed " + seed + " trial " + t + ": MANIFEST offset " + offset);
        }
    }

    /**
     * A cleanly closed WAL ends with a mark saying that the records before it were synced: a flip in
     * its last write's record is damage like a flip anywhere else (it used to be taken for a torn
     * tail, and the synced write was dropped); a flip in the mark, header or payload, is a torn mark,
     * which loses nothing (no later record says the mark itself was synced).
     */
    @Test
    void flippedByteInTheNewestWalIsDetectedUnlessInItsClosingMark() throws Exception {
        Random rnd = new Random(seed + 4);
        long size = Files.size(pristine.resolve(newestWal));
        long markPayload = lastRecordEnd + 12;
        int inMarkPayload = 0;
        int inMarkHeader = 0;
        for (int t = 0; t < TRIALS; t++) {
            // A third in the last record, a sixth in the mark, the rest anywhere. The mark's trials
            // alternate between its header and its payload so that both are always covered: drawn
            // over the whole mark, five trials missed the payload in about 1 run of 60.
            long offset = t % 3 == 0 ? lastRecordStart + rnd.nextLong(lastRecordEnd - lastRecordStart)
                    : t % 12 == 1 ? markPayload + rnd.nextLong(lastRecordEnd + MARK_RECORD_BYTES - markPayload)
                    : t % 12 == 7 ? lastRecordEnd + rnd.nextLong(markPayload - lastRecordEnd)
                    : rnd.nextLong(size);
            Outcome o = flipTrial(newestWal, offset, rnd, true, "newest WAL " + newestWal, t);
            String where = "seed " + seed + " trial " + t + ": newest WAL offset " + offset + " (last record "
                    + lastRecordStart + ".." + lastRecordEnd + ", then the mark, its payload from " + markPayload + ")";
            assertEquals(offset >= lastRecordEnd ? Outcome.INTACT : Outcome.CORRUPTION, o, where);
            inMarkPayload += offset >= markPayload ? 1 : 0;
            inMarkHeader += offset >= lastRecordEnd && offset < markPayload ? 1 : 0;
        }
        assertTrue(inMarkPayload > 0 && inMarkHeader > 0, "seed " + seed + ": trials flipped the mark's header ("
                + inMarkHeader + ") and payload (" + inMarkPayload + ")");
    }

    @Test
    void flippedByteInAnOlderWalIsAlwaysDetected() throws Exception {
        Random rnd = new Random(seed + 5);
        long size = Files.size(pristine.resolve(olderWal));
        for (int t = 0; t < TRIALS; t++) {
            // Anywhere, and a few in its last record: only the newest WAL may have a torn tail.
            long offset = t % 4 == 0 ? size - 1 - rnd.nextLong(Math.min(size, 40)) : rnd.nextLong(size);
            assertEquals(Outcome.CORRUPTION, flipTrial(olderWal, offset, rnd, false, "older WAL " + olderWal, t),
                    "seed " + seed + " trial " + t + ": older WAL offset " + offset);
        }
    }

    /** Copies the store, flips the byte at {@code offset} of {@code name}, and runs a trial. */
    private static Outcome flipTrial(Path name, long offset, Random rnd, boolean tailCutAllowed, String what, int t)
            throws Exception {
        Path copy = copy();
        Path damaged = copy.resolve(name);
        byte[] bytes = Files.readAllBytes(damaged);
        bytes[(int) offset] ^= (byte) (1 + rnd.nextInt(255));
        Files.write(damaged, bytes);
        return trial(copy, damaged, offset, tailCutAllowed,
                "seed " + seed + " trial " + t + ": " + what + " flipped at offset " + offset + " of " + bytes.length);
    }

    /**
     * A damaged data block is not read at open, but compaction merges it sooner or later: the
     * compaction fails, and from then on writes (and {@link RemixDB#compactMemtable()}) throw an
     * IOException whose causes include the CorruptionException naming the table; reads go on, close
     * works, and every acknowledged write survives a reopen: it reads back as written, or, when its
     * REMIX segment also holds keys of a damaged block (a point read may compare the key with its
     * neighbours), the read throws a CorruptionException naming a damaged table. Never a wrong or
     * missing value. (Minor compactions read the old tables' keys blocks, not their data blocks, so
     * new keys can reach tables next to damaged blocks before a major compaction meets them.)
     */
    @Test
    void damagedTableMetByCompactionStopsWritesNamingTheFile() throws Exception {
        Path copy = copy();
        List<Path> tables = files(copy, FileNames.TABLE);
        for (Path table : tables) {
            byte[] bytes = Files.readAllBytes(table);
            assertEquals("data block", tableRegion(bytes, 10));
            bytes[10] ^= 0x5A;
            Files.write(table, bytes);
        }
        String where = "seed " + seed + ": every table's first data block damaged";
        int acknowledged = -1;
        IOException failure = null;
        try (RemixDB db = RemixDB.open(copy, OPTIONS)) {
            for (int i = 0; i < 20_000 && failure == null; i++) {
                try {
                    db.put(String.format("new-%05d", i).getBytes(StandardCharsets.UTF_8), new byte[40]);
                    acknowledged = i;
                } catch (IOException e) {
                    failure = e;
                }
            }
            assertTrue(failure != null, where + ": 20000 puts and no compaction read a damaged block");
            CorruptionException cause = corruptionCause(failure);
            assertTrue(cause != null, where + ": the write error carries the corruption: " + failure);
            assertTrue(tables.contains(cause.file()), where + ": names a damaged table: " + cause.file());
            IOException again = assertThrows(IOException.class, db::compactMemtable);
            assertTrue(corruptionCause(again) != null, where + ": compactMemtable reports the failure: " + again);
            assertArrayEquals(new byte[40], db.get("new-00000".getBytes(StandardCharsets.UTF_8)), where + ": reads go on");
        }
        int readBack = 0;
        try (RemixDB db = RemixDB.open(copy, OPTIONS)) {
            for (int i = 0; i <= acknowledged; i++) {
                String what = where + ": acknowledged put " + i + " of " + acknowledged + " after reopen";
                byte[] value;
                try {
                    value = db.get(String.format("new-%05d", i).getBytes(StandardCharsets.UTF_8));
                } catch (CorruptionException e) {
                    assertTrue(tables.contains(e.file()), what + ": names a damaged table: " + e.file());
                    continue;
                }
                assertArrayEquals(new byte[40], value, what);
                readBack++;
            }
        }
        assertTrue(readBack > acknowledged / 2, where + ": only " + readBack + " of " + (acknowledged + 1)
                + " acknowledged puts read back; the rest met damaged blocks");
    }

    private static CorruptionException corruptionCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof CorruptionException e) {
                return e;
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ truncated and missing files

    @Test
    void truncatedTableIsCorruptionAtOpen() throws Exception {
        Path name = files(pristine, FileNames.TABLE).getFirst().getFileName();
        long size = Files.size(pristine.resolve(name));
        for (long keep : new long[] {size - 1, size - 128, size / 2, 1, 0}) {
            Path copy = copy();
            Path table = copy.resolve(name);
            truncate(table, keep);
            String where = "seed " + seed + ": " + name + " cut to " + keep + " of " + size + " bytes";
            assertCorruptAtOpen(copy, table, where);
            assertRepairedStoreOpens(copy, name, where);
        }
    }

    /**
     * A crash can leave the newest WAL cut anywhere: the store opens without error and holds exactly
     * the writes whose records are whole, none of the rest (the torn-tail rule of WalReader; a header
     * cut short is a WAL being created).
     */
    @Test
    void truncatedNewestWalLosesExactlyTheRecordsCut() throws Exception {
        Random rnd = new Random(seed + 6);
        long size = Files.size(pristine.resolve(newestWal));
        assertEquals(size, (long) newestEnds.getLast());
        for (int t = 0; t < 20; t++) {
            long keep = t == 0 ? 0 : t == 1 ? 10 : t == 2 ? newestEnds.get(30) : rnd.nextLong(size);
            int whole = 0;
            while (whole + 1 < newestEnds.size() && newestEnds.get(whole + 1) <= keep) {
                whole++;
            }
            Path copy = copy();
            truncate(copy.resolve(newestWal), keep);
            String where = "seed " + seed + " trial " + t + ": newest WAL cut to " + keep + " of " + size
                    + " bytes, " + whole + " whole writes";
            try (RemixDB db = RemixDB.open(copy, OPTIONS)) {
                assertTrue(readAll(db, List.of(newestStates.get(whole)), where) == newestStates.get(whole), where);
            } catch (IOException | RuntimeException e) {
                throw new AssertionError(where + ": " + e, e);
            }
        }
    }

    /**
     * An older WAL cut exactly at a record boundary, or deleted, still replays cleanly on its own; but
     * the writes it lost come before those of the newest WAL, and showing the later writes without the
     * earlier ones is wrong data. The gap in the sequence numbers gives it away.
     */
    @Test
    void olderWalCutAtARecordBoundaryOrDeletedIsCorruptionAtOpen() throws Exception {
        List<Long> ends = recordEnds(Files.readAllBytes(pristine.resolve(olderWal)));
        assertTrue(ends.size() > 10, "seed " + seed + ": records in the older WAL: " + ends.size());
        // Its last record is the closing mark: without it, nothing is lost.
        long beforeMark = ends.get(ends.size() - 2);
        assertEquals(ends.getLast() - MARK_RECORD_BYTES, beforeMark, "seed " + seed + ": the older WAL ends with a mark");
        Path unmarked = copy();
        truncate(unmarked.resolve(olderWal), beforeMark);
        assertEquals(Outcome.INTACT, trial(unmarked, null, -1, false, "seed " + seed + ": the older WAL without its mark"));
        for (long keep : new long[] {ends.get(ends.size() - 3), ends.get(ends.size() / 2), 24}) {
            Path copy = copy();
            truncate(copy.resolve(olderWal), keep);
            String where = "seed " + seed + ": " + olderWal + " cut at a record boundary, " + keep + " of "
                    + ends.getLast() + " bytes";
            assertCorruptAtOpen(copy, copy.resolve(olderWal), where);
            assertRepairedStoreOpens(copy, olderWal, where);
        }
        Path copy = copy();
        Files.delete(copy.resolve(olderWal));
        String where = "seed " + seed + ": " + olderWal + " deleted";
        assertCorruptAtOpen(copy, copy.resolve(olderWal), where);
        assertRepairedStoreOpens(copy, olderWal, where);
    }

    /**
     * A write that failed when the disk filled up can tear the last record of a WAL after a memtable
     * switch created the next WAL, which then never gets a record (the store stops taking writes).
     * That torn record is a torn tail, not damage: with the WALs after it holding no record (a bare
     * header, a header cut short, or nothing), the store verifies clean, opens, and holds what it
     * would hold had those WALs never been created. With a record in a later WAL it stays damage
     * ({@link #truncatedRemixManifestOrOlderWalIsCorruptionAtOpen}).
     */
    @Test
    void olderWalTornAndFollowedOnlyByWalsWithoutRecordsOpens() throws Exception {
        List<Long> ends = recordEnds(Files.readAllBytes(pristine.resolve(olderWal)));
        long number = Long.parseLong(newestWal.toString().replace(FileNames.WAL, ""));
        Random rnd = new Random(seed + 8);
        for (int t = 0; t < 3; t++) {
            int k = 1 + rnd.nextInt(ends.size() - 1);
            long keep = ends.get(k - 1) + 1 + rnd.nextLong(ends.get(k) - ends.get(k - 1) - 1);
            String where = "seed " + seed + " trial " + t + ": " + olderWal + " torn at " + keep + ", " + newestWal;
            Path expected = copy();
            truncate(expected.resolve(olderWal), keep);
            Files.delete(expected.resolve(newestWal));
            Map<String, String> want = contents(expected, where + " deleted");

            Path copy = copy();
            truncate(copy.resolve(olderWal), keep);
            Path newest = copy.resolve(newestWal);
            Files.delete(newest);
            String shape;
            switch (t) {
                case 0 -> {
                    dev.remixdb.wal.WalWriter.create(newest, number).close();
                    shape = " a bare header";
                }
                case 1 -> {
                    dev.remixdb.wal.WalWriter.create(newest, number).close();
                    truncate(newest, 10);
                    shape = " a header cut short";
                }
                default -> {
                    Files.createFile(newest);
                    shape = " an empty file";
                }
            }
            VerifyReport report = RemixDB.verify(copy);
            assertTrue(report.ok(), where + shape + ": " + report);
            assertEquals(want, contents(copy, where + shape), where + shape);
            assertEquals(want, contents(copy, where + shape + ", opened again"), where + shape + ", opened again");
        }
    }

    /** Every key and value of the store in {@code dir}, read by a cursor. */
    private static Map<String, String> contents(Path dir, String where) {
        Map<String, String> out = new TreeMap<>();
        try (RemixDB db = RemixDB.open(dir, OPTIONS); Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                out.put(new String(c.key(), StandardCharsets.ISO_8859_1), new String(c.value(), StandardCharsets.ISO_8859_1));
            }
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(where + ": " + e, e);
        }
        return out;
    }

    /**
     * The one state in which the first live WAL may be absent: a store that crashed while being
     * created, after its first MANIFEST and before its first WAL. It opens, empty, and works.
     */
    @Test
    void newStoreWithoutItsFirstWalOpens() throws Exception {
        Path fresh = root.resolve("fresh-" + copies.incrementAndGet());
        RemixDB.open(fresh, OPTIONS).close();
        for (Path wal : files(fresh, FileNames.WAL)) {
            Files.delete(wal);
        }
        try (RemixDB db = RemixDB.open(fresh, OPTIONS)) {
            try (Cursor c = db.cursor()) {
                c.seekToFirst();
                assertFalse(c.isValid(), "seed " + seed + ": empty");
            }
            db.put(new byte[] {1}, new byte[] {2});
        }
        try (RemixDB db = RemixDB.open(fresh, OPTIONS)) {
            assertArrayEquals(new byte[] {2}, db.get(new byte[] {1}));
        }
    }

    /** The end offsets of a WAL's records (layout in {@link dev.remixdb.wal.WalWriter}: 24-byte header, then u32 length + 8 + payload). */
    private static List<Long> recordEnds(byte[] wal) {
        ByteBuffer b = ByteBuffer.wrap(wal).order(ByteOrder.LITTLE_ENDIAN);
        List<Long> ends = new ArrayList<>();
        long at = 24;
        while (at < wal.length) {
            at += 12 + Integer.toUnsignedLong(b.getInt((int) at));
            ends.add(at);
        }
        assertEquals(wal.length, at, "records fill the WAL");
        return ends;
    }

    /** Cut short, any other file is corruption: only the newest WAL can be torn by a crash. */
    @Test
    void truncatedRemixManifestOrOlderWalIsCorruptionAtOpen() throws Exception {
        Random rnd = new Random(seed + 7);
        for (Path name : List.of(files(pristine, FileNames.REMIX).getFirst().getFileName(), Path.of(FileNames.MANIFEST), olderWal)) {
            long size = Files.size(pristine.resolve(name));
            for (long keep : new long[] {size - 1, 1 + rnd.nextLong(size - 1), 30}) {
                Path copy = copy();
                truncate(copy.resolve(name), keep);
                String where = "seed " + seed + ": " + name + " cut to " + keep + " of " + size + " bytes";
                assertCorruptAtOpen(copy, copy.resolve(name), where);
            }
        }
    }

    @Test
    void missingTableIsCorruptionAtOpen() throws Exception {
        for (Path file : List.of(files(pristine, FileNames.TABLE).getLast(), files(pristine, FileNames.REMIX).getFirst())) {
            Path name = file.getFileName();
            Path copy = copy();
            Files.delete(copy.resolve(name));
            String where = "seed " + seed + ": " + name + " deleted";
            CorruptionException e = assertCorruptAtOpen(copy, copy.resolve(name), where);
            assertTrue(e.getMessage().contains("missing"), where + ": says missing: " + e.getMessage());
            assertRepairedStoreOpens(copy, name, where);
        }
    }

    @Test
    void missingManifestWithTablesPresentIsCorruptionAtOpen() throws Exception {
        Path copy = copy();
        Path manifest = copy.resolve(FileNames.MANIFEST);
        Files.delete(manifest);
        String where = "seed " + seed + ": MANIFEST deleted";
        CorruptionException e = assertCorruptAtOpen(copy, manifest, where);
        assertTrue(e.getMessage().contains("MANIFEST is missing"), where + ": " + e.getMessage());
        assertTrue(Files.notExists(manifest), where + ": a failed open must not create an empty MANIFEST");
        assertEquals(files(pristine, FileNames.TABLE).size(), files(copy, FileNames.TABLE).size(),
                where + ": a failed open must not delete tables");
        assertRepairedStoreOpens(copy, Path.of(FileNames.MANIFEST), where);
    }

    @Test
    void emptyManifestIsCorruptionAtOpen() throws Exception {
        Path copy = copy();
        Path manifest = copy.resolve(FileNames.MANIFEST);
        Files.write(manifest, new byte[0]);
        String where = "seed " + seed + ": MANIFEST emptied";
        assertCorruptAtOpen(copy, manifest, where);
        assertRepairedStoreOpens(copy, Path.of(FileNames.MANIFEST), where);
    }

    private static CorruptionException assertCorruptAtOpen(Path copy, Path damaged, String where) {
        try (RemixDB db = RemixDB.open(copy, OPTIONS)) {
            fail(where + ": open succeeded: " + db);
            return null;
        } catch (CorruptionException e) {
            assertNamesFile(e, damaged, where);
            return e;
        } catch (Throwable t) {
            throw new AssertionError(where + ": expected a CorruptionException at open, got " + t, t);
        }
    }

    /**
     * Puts the pristine file back and opens again: the failed open released the lock and every file,
     * and changed nothing that matters.
     */
    private static void assertRepairedStoreOpens(Path copy, Path name, String where) throws Exception {
        Files.copy(pristine.resolve(name), copy.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        assertEquals(Outcome.INTACT, trial(copy, null, -1, false, where + ", then repaired"));
    }

    // ------------------------------------------------------------------ one trial

    /**
     * Opens {@code copy} and reads everything; returns what happened, failing on wrong data and on
     * any exception but a {@link CorruptionException} naming {@code damaged}.
     */
    private static Outcome trial(Path copy, Path damaged, long offset, boolean tailCutAllowed, String where) {
        List<NavigableMap<byte[], byte[]>> candidates = new ArrayList<>();
        candidates.add(model);
        if (tailCutAllowed) {
            candidates.add(modelBeforeLast);
        }
        RemixDB db;
        try {
            db = RemixDB.open(copy, OPTIONS);
        } catch (CorruptionException e) {
            assertNamesFile(e, damaged, where + " (at open)");
            return Outcome.CORRUPTION;
        } catch (Throwable t) {
            throw new AssertionError(where + ": open threw " + t + " instead of a CorruptionException", t);
        }
        Outcome outcome;
        try {
            outcome = readAll(db, candidates, where) == model ? Outcome.INTACT : Outcome.TAIL_CUT;
        } catch (CorruptionException e) {
            assertNamesFile(e, damaged, where + " (at a read)");
            outcome = Outcome.CORRUPTION;
        } catch (AssertionError e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(where + ": a read threw " + t + " instead of a CorruptionException", t);
        } finally {
            try {
                db.close();
            } catch (Throwable t) {
                throw new AssertionError(where + ": close threw " + t, t);
            }
        }
        if (outcome == Outcome.TAIL_CUT) {
            // The cut is made on disk (the WAL is truncated): a second open sees the same and no error.
            try (RemixDB again = RemixDB.open(copy, OPTIONS)) {
                readAll(again, List.of(modelBeforeLast), where + " reopened");
            } catch (IOException e) {
                throw new AssertionError(where + ": reopen after the cut threw " + e, e);
            }
        }
        return outcome;
    }

    /**
     * Scans, then gets every key ever written. Each candidate state the data disagrees with is dropped;
     * none left is wrong data. Returns the first candidate left. A CorruptionException passes
     * through, after everything read before it was found to agree with a candidate.
     */
    private static NavigableMap<byte[], byte[]> readAll(RemixDB db, List<NavigableMap<byte[], byte[]>> candidates, String where) {
        List<NavigableMap<byte[], byte[]>> alive = new ArrayList<>(candidates);
        List<Iterator<Map.Entry<byte[], byte[]>>> its = new ArrayList<>();
        for (NavigableMap<byte[], byte[]> c : alive) {
            its.add(c.entrySet().iterator());
        }
        try (Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                byte[] key = c.key();
                byte[] value = c.value();
                for (int i = alive.size() - 1; i >= 0; i--) {
                    Iterator<Map.Entry<byte[], byte[]>> it = its.get(i);
                    Map.Entry<byte[], byte[]> want = it.hasNext() ? it.next() : null;
                    if (want == null || !Arrays.equals(want.getKey(), key) || !Arrays.equals(want.getValue(), value)) {
                        alive.remove(i);
                        its.remove(i);
                    }
                }
                if (alive.isEmpty()) {
                    fail(where + ": WRONG DATA: the scan shows " + show(key) + " = " + value.length + " bytes, which no accepted state has");
                }
            }
        }
        for (int i = alive.size() - 1; i >= 0; i--) {
            if (its.get(i).hasNext()) {
                alive.remove(i);
            }
        }
        if (alive.isEmpty()) {
            fail(where + ": WRONG DATA: the scan ended early");
        }
        for (byte[] key : touched) {
            byte[] got = db.get(key);
            alive.removeIf(m -> !Arrays.equals(m.get(key), got));
            if (alive.isEmpty()) {
                fail(where + ": WRONG DATA: get " + show(key) + " = " + (got == null ? "absent" : got.length + " bytes"));
            }
        }
        return alive.getFirst();
    }

    private static void assertNamesFile(CorruptionException e, Path damaged, String where) {
        if (damaged == null) {
            throw new AssertionError(where + ": undamaged store reported corruption: " + e, e);
        }
        assertEquals(damaged.toAbsolutePath().normalize(), e.file().toAbsolutePath().normalize(),
                where + ": the exception names the damaged file: " + e.getMessage());
        assertTrue(e.getMessage().contains(damaged.getFileName().toString()), where + ": message names the file: " + e.getMessage());
        assertTrue(e.offset() >= 0, where + ": offset " + e.offset());
    }

    private static String show(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ files

    /** A fresh copy of the pristine store (it is small: a few hundred KiB). */
    private static Path copy() throws IOException {
        Path copy = root.resolve("copy-" + copies.incrementAndGet());
        Files.createDirectories(copy);
        try (DirectoryStream<Path> s = Files.newDirectoryStream(pristine)) {
            for (Path f : s) {
                if (Files.isRegularFile(f)) {
                    Files.copy(f, copy.resolve(f.getFileName()));
                }
            }
        }
        return copy;
    }

    private static void truncate(Path file, long length) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(length);
        }
    }

    /** The files of {@code dir} with {@code suffix}, by number. */
    private static List<Path> files(Path dir, String suffix) throws IOException {
        TreeMap<Long, Path> byNumber = new TreeMap<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path f : s) {
                FileNames.number(f.getFileName().toString(), suffix).ifPresent(n -> byNumber.put(n, f));
            }
        }
        return new ArrayList<>(byNumber.values());
    }
}
