package dev.remixdb.wal;

import dev.remixdb.remix.CorruptionException;
import dev.remixdb.util.Limits;
import dev.remixdb.wal.WalFixture.Replayed;
import dev.remixdb.wal.WalFixture.Written;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;

import static dev.remixdb.wal.WalFixture.assertSame;
import static dev.remixdb.wal.WalFixture.expected;
import static dev.remixdb.wal.WalFixture.replay;
import static dev.remixdb.wal.WalFixture.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WalTest {
    /** A mark record: 12 bytes of header, 12 of payload prefix, an op of 3 (type, two zero lengths). */
    /** The closing mark: a record of one synced op (12 + 12 + 15 bytes). */
    private static final int MARK_RECORD_BYTES = 39;

    @TempDir
    Path dir;

    /**
     * A close ends the WAL with a mark, after its records are synced: a damaged last record is then
     * followed by a good one and read as damage, where it used to be taken for a torn tail and
     * dropped (a flipped bit in a cleanly closed WAL lost a synced write). The mark alone damaged or
     * missing (a power cut during the close's last sync) is a torn tail that costs nothing.
     */
    @Test
    void aCloseEndsTheWalWithAMarkThatGuardsTheLastRecord() throws IOException {
        Path path = dir.resolve("000012.wal");
        List<WalOp> first = List.of(WalOp.put(new byte[] {1}, new byte[] {10}));
        List<WalOp> last = List.of(WalOp.put(new byte[] {2}, new byte[] {20}), WalOp.delete(new byte[] {3}));
        long lastAt;
        long lastLength;
        try (WalWriter w = WalWriter.create(path, 12)) {
            w.append(1, first);
            lastAt = w.bytesWritten();
            lastLength = w.append(2, last);
        }
        byte[] bytes = Files.readAllBytes(path);
        assertEquals(lastAt + lastLength + MARK_RECORD_BYTES, bytes.length);
        List<Replayed> all = new ArrayList<>();
        assertEquals(new ReplayResult(3, 3, 3, bytes.length, 0), replay(path, 12, false, all));
        assertEquals(3, all.size());

        for (long at = lastAt; at < lastAt + lastLength; at++) {
            byte[] damaged = bytes.clone();
            damaged[(int) at] ^= 0x04;
            Path p = dir.resolve("flip" + at + ".wal");
            Files.write(p, damaged);
            CorruptionException e = assertThrows(CorruptionException.class, () -> replay(p, 12, true, new ArrayList<>()),
                    "a flip at " + at + " of the last record");
            assertEquals(lastAt, e.offset(), e.getMessage());
        }
        for (int keep = 0; keep < MARK_RECORD_BYTES; keep++) {
            byte[] torn = Arrays.copyOf(bytes, (int) (lastAt + lastLength) + keep);
            Path p = dir.resolve("torn" + keep + ".wal");
            Files.write(p, torn);
            List<Replayed> replayed = new ArrayList<>();
            ReplayResult r = replay(p, 12, true, replayed);
            WalFixture.assertSame(all, replayed);
            assertEquals(keep, r.tornBytes());
        }
        byte[] zeroed = bytes.clone();
        Arrays.fill(zeroed, (int) (lastAt + lastLength), zeroed.length, (byte) 0);
        Path p = dir.resolve("zeroed.wal");
        Files.write(p, zeroed);
        List<Replayed> replayed = new ArrayList<>();
        replay(p, 12, true, replayed);
        WalFixture.assertSame(all, replayed);
    }

    @Test
    void replayGivesBackWhatWasAppended() throws IOException {
        Path path = dir.resolve("000007.wal");
        List<Written> records = write(path, 7, new Random(1), 300, 12, 3000);
        List<Replayed> replayed = new ArrayList<>();
        ReplayResult result = replay(path, 7, false, replayed);
        assertSame(expected(records), replayed);
        assertEquals(300, result.records());
        assertEquals(replayed.size(), result.ops());
        assertEquals(WalFixture.maxSeq(records), result.maxSeq());
        assertEquals(Files.size(path), result.validLength());
        assertEquals(0, result.tornBytes());
        assertFalse(result.torn());
    }

    @Test
    void emptyWalReplaysNothing() throws IOException {
        Path path = dir.resolve("1.wal");
        try (WalWriter w = WalWriter.create(path, 1)) {
            assertEquals(24, w.bytesWritten());
            assertEquals(path, w.path());
        }
        ReplayResult result = replay(path, 1, false, new ArrayList<>());
        assertEquals(new ReplayResult(0, 0, -1, 24, 0), result);
    }

    @Test
    void tornTailAtEveryByteOfTheLastRecordIsCut() throws IOException {
        Path original = dir.resolve("original.wal");
        List<Written> records = write(original, 3, new Random(2), 3, 4, 60);
        byte[] bytes = Files.readAllBytes(original);
        Written last = records.getLast();
        List<Replayed> survivors = expected(records.subList(0, 2));
        for (long cut = last.offset() + 1; cut < last.offset() + last.length(); cut++) {
            Path path = dir.resolve("cut" + cut + ".wal");
            Files.write(path, Arrays.copyOf(bytes, (int) cut));
            long at = cut;
            CorruptionException strict = assertThrows(CorruptionException.class, () -> replay(path, 3, false, new ArrayList<>()),
                    () -> "cut at " + at + " without tolerance");
            assertEquals(last.offset(), strict.offset());
            assertEquals(cut, Files.size(path), "a strict replay changes nothing");

            List<Replayed> replayed = new ArrayList<>();
            ReplayResult result = replay(path, 3, true, replayed);
            assertSame(survivors, replayed);
            assertEquals(last.offset(), result.validLength(), "cut at " + cut);
            assertEquals(cut - last.offset(), result.tornBytes(), "cut at " + cut);
            assertEquals(last.offset(), Files.size(path), "file truncated after a cut at " + cut);

            ReplayResult again = replay(path, 3, false, new ArrayList<>());
            assertEquals(new ReplayResult(2, survivors.size(), result.maxSeq(), last.offset(), 0), again);
        }
    }

    @Test
    void lastRecordZeroedFromAnyByteOnIsATornTail() throws IOException {
        Path original = dir.resolve("original.wal");
        List<Written> records = write(original, 3, new Random(3), 3, 4, 60);
        byte[] bytes = Files.readAllBytes(original);
        Written last = records.getLast();
        for (long from = last.offset(); from < last.offset() + last.length(); from++) {
            byte[] damaged = bytes.clone();
            Arrays.fill(damaged, (int) from, damaged.length, (byte) 0);
            Path path = dir.resolve("zeroed" + from + ".wal");
            Files.write(path, damaged);
            List<Replayed> replayed = new ArrayList<>();
            ReplayResult result = replay(path, 3, true, replayed);
            assertSame(expected(records.subList(0, 2)), replayed);
            assertEquals(last.length(), result.tornBytes(), "zeroed from " + from);
            assertEquals(last.offset(), Files.size(path));
        }
    }

    /** Records synced one by one: a later record says so, and a bad one before it is damage. */
    @Test
    void aFlippedByteInTheMiddleRecordIsCorruption() throws IOException {
        Path original = dir.resolve("original.wal");
        List<Written> records = write(original, 5, new Random(4), 3, 3, 40, true);
        byte[] bytes = Files.readAllBytes(original);
        Written middle = records.get(1);
        for (long at = middle.offset(); at < middle.offset() + middle.length(); at++) {
            byte[] damaged = bytes.clone();
            damaged[(int) at] ^= 0x10;
            Path path = dir.resolve("flip" + at + ".wal");
            Files.write(path, damaged);
            List<Replayed> replayed = new ArrayList<>();
            CorruptionException e = assertThrows(CorruptionException.class, () -> replay(path, 5, true, replayed));
            assertEquals(path, e.file());
            assertEquals(middle.offset(), e.offset(), e.getMessage());
            assertTrue(e.getMessage().contains(path.toString()) && e.getMessage().contains("checksum"), e.getMessage());
            assertSame(expected(records.subList(0, 1)), replayed);
            assertEquals(bytes.length, Files.size(path), "corruption is never truncated away");
        }
    }

    @Test
    void zeroFilledTailIsCut() throws IOException {
        for (int zeros : new int[] {1, 11, 12, 13, 4096, 3 << 20}) {
            Path path = dir.resolve("zeros" + zeros + ".wal");
            List<Written> records = write(path, 9, new Random(zeros), 20, 5, 100);
            long good = Files.size(path);
            Files.write(path, new byte[zeros], StandardOpenOption.APPEND);
            assertThrows(CorruptionException.class, () -> replay(path, 9, false, new ArrayList<>()));
            List<Replayed> replayed = new ArrayList<>();
            ReplayResult result = replay(path, 9, true, replayed);
            assertSame(expected(records), replayed);
            assertEquals(new ReplayResult(20, replayed.size(), WalFixture.maxSeq(records), good, zeros), result);
            assertEquals(good, Files.size(path));
        }
    }

    /**
     * Records never synced, the middle one damaged with good ones after it: what a power cut can
     * leave of unsynced writes (the disk kept a later page and not an earlier one). Nothing from the
     * bad record on was durable, so it is a torn tail: cut, and the log replays as the state after
     * the first record. Strict replay (an older WAL) still refuses it.
     */
    @Test
    void aBadRecordThatNoLaterRecordShowsSyncedIsATornTail() throws IOException {
        Path original = dir.resolve("unsynced.wal");
        List<Written> records = write(original, 5, new Random(4), 3, 3, 40);
        byte[] bytes = Files.readAllBytes(original);
        Written middle = records.get(1);
        for (long at = middle.offset(); at < middle.offset() + middle.length(); at++) {
            byte[] damaged = bytes.clone();
            damaged[(int) at] ^= 0x10;
            Path path = dir.resolve("flip" + at + ".wal");
            Files.write(path, damaged);
            assertThrows(CorruptionException.class, () -> replay(path, 5, false, new ArrayList<>()));
            List<Replayed> replayed = new ArrayList<>();
            ReplayResult r = replay(path, 5, true, replayed);
            assertSame(expected(records.subList(0, 1)), replayed);
            assertEquals(middle.offset(), r.validLength(), "flip at " + at);
            assertEquals(bytes.length - middle.offset(), r.tornBytes());
            assertEquals(middle.offset(), Files.size(path), "cut where the good records end");
        }
        // The page of the middle record lost whole (zeros), the last record's bytes kept.
        byte[] holed = bytes.clone();
        Arrays.fill(holed, (int) middle.offset(), (int) (middle.offset() + middle.length()), (byte) 0);
        Path path = dir.resolve("holed.wal");
        Files.write(path, holed);
        List<Replayed> replayed = new ArrayList<>();
        assertEquals(middle.offset(), replay(path, 5, true, replayed).validLength());
        assertSame(expected(records.subList(0, 1)), replayed);
    }

    /**
     * A WAL's header is durable from its first sync on: a header of zeros with records after it is a
     * WAL never synced of which a power cut kept later pages only (torn at 0, nothing replays),
     * unless a record says the file was synced (damage).
     */
    @Test
    void aZeroHeaderIsATornWalUnlessARecordShowsItSynced() throws IOException {
        for (boolean synced : new boolean[] {false, true}) {
            Path path = dir.resolve("zero-header-" + synced + ".wal");
            write(path, 8, new Random(9), 3, 3, 40, synced);
            byte[] bytes = Files.readAllBytes(path);
            Arrays.fill(bytes, 0, 24, (byte) 0);
            Files.write(path, bytes);
            if (synced) {
                CorruptionException e = assertThrows(CorruptionException.class, () -> replay(path, 8, true, new ArrayList<>()));
                assertEquals(0, e.offset(), e.getMessage());
                assertEquals(bytes.length, Files.size(path));
            } else {
                List<Replayed> replayed = new ArrayList<>();
                ReplayResult r = replay(path, 8, true, replayed);
                assertEquals(0, r.validLength());
                assertTrue(replayed.isEmpty());
                assertFalse(WalReader.holdsRecords(path, 8));
            }
        }
    }

    /**
     * The same in a WAL synced record by record (each followed by a record saying so), damaged in its
     * second record: later records say the file was synced past it, so it is damage, named at its
     * offset, and nothing is cut.
     */
    @Test
    void aBadRecordThatALaterRecordShowsSyncedIsCorruptionWhateverFollows() throws IOException {
        Path original = dir.resolve("synced.wal");
        List<Written> records = write(original, 6, new Random(7), 4, 3, 300, true);
        byte[] bytes = Files.readAllBytes(original);
        Written second = records.get(1);
        // Its header (the length: the reader must look for the next record at every offset) and its payload.
        for (long at : new long[] {second.offset(), second.offset() + 9, second.offset() + 20, second.offset() + second.length() - 1}) {
            byte[] damaged = bytes.clone();
            damaged[(int) at] ^= 0x40;
            // The last record's page lost too: the proof is in the third record, not at the end.
            Arrays.fill(damaged, (int) records.get(3).offset(), damaged.length, (byte) 0x5A);
            Path path = dir.resolve("flip" + at + ".wal");
            Files.write(path, damaged);
            CorruptionException e = assertThrows(CorruptionException.class, () -> replay(path, 6, true, new ArrayList<>()),
                    "flip at " + at);
            assertEquals(second.offset(), e.offset(), e.getMessage());
            // The record after the third says the file was synced through the third's end.
            long thirdEnd = records.get(2).offset() + records.get(2).length();
            assertTrue(e.getMessage().contains("synced through offset " + thirdEnd), e.getMessage());
            assertEquals(damaged.length, Files.size(path), "corruption is never truncated away");
        }
        // Damage in the last record: no record after it says it was synced (a crash before the next
        // write), so it is a torn tail although the sync had returned; the close's mark guards that case.
        byte[] damaged = bytes.clone();
        damaged[(int) records.get(3).offset() + 20] ^= 1;
        byte[] withGarbage = Arrays.copyOf(damaged, damaged.length + 100);
        withGarbage[withGarbage.length - 1] = 1;
        Path path = dir.resolve("last.wal");
        Files.write(path, withGarbage);
        List<Replayed> replayed = new ArrayList<>();
        assertEquals(records.get(3).offset(), replay(path, 6, true, replayed).validLength());
        assertSame(expected(records.subList(0, 3)), replayed);
    }

    /** Version 2 files (no synced ops) keep their rule: a bad record that non-zero bytes follow is damage. */
    @Test
    void nonZeroBytesAfterABadLastRecordAreCorruptionInAVersion2Wal() throws IOException {
        Path path = dir.resolve("garbage.wal");
        List<Written> records = write(path, 9, new Random(5), 3, 3, 40);
        byte[] bytes = Files.readAllBytes(path);
        System.arraycopy(WalFormat.fileHeader(9, WalFormat.VERSION_2), 0, bytes, 0, 24);
        Written last = records.getLast();
        bytes[(int) last.offset() + 14] ^= 1;  // payload
        byte[] withGarbage = Arrays.copyOf(bytes, bytes.length + 100);
        withGarbage[withGarbage.length - 1] = 1;
        Files.write(path, withGarbage);
        CorruptionException e = assertThrows(CorruptionException.class, () -> replay(path, 9, true, new ArrayList<>()));
        assertEquals(last.offset(), e.offset());

        Written middle = records.get(1);
        byte[] flipped = Files.readAllBytes(path);
        flipped[(int) last.offset() + 14] ^= 1;  // the last record whole again
        flipped[(int) middle.offset() + 14] ^= 1;
        Files.write(path, Arrays.copyOf(flipped, bytes.length));
        e = assertThrows(CorruptionException.class, () -> replay(path, 9, true, new ArrayList<>()));
        assertEquals(middle.offset(), e.offset());
    }

    @Test
    void badFileHeadersAreCorruption() throws IOException {
        Path path = dir.resolve("h.wal");
        write(path, 12, new Random(6), 2, 2, 10);
        byte[] good = Files.readAllBytes(path);

        CorruptionException wrongNumber = assertThrows(CorruptionException.class, () -> replay(path, 13, true, new ArrayList<>()));
        assertEquals(8, wrongNumber.offset());
        assertTrue(wrongNumber.getMessage().contains("12") && wrongNumber.getMessage().contains("13"), wrongNumber.getMessage());

        byte[] magic = good.clone();
        magic[0] = 'X';
        assertHeaderCorruption(path, magic, 0);

        byte[] checksum = good.clone();
        checksum[10] ^= 1;
        assertHeaderCorruption(path, checksum, 20);

        byte[] version = good.clone();
        version[6] = 4;
        patchInt(version, 20, crc(version, 0, 20));
        assertHeaderCorruption(path, version, 6);

        assertHeaderCorruption(path, "not a WAL at all, just text".getBytes(), 0);
        assertHeaderCorruption(path, "short junk".getBytes(), 0);
    }

    private void assertHeaderCorruption(Path path, byte[] content, long offset) throws IOException {
        Files.write(path, content);
        CorruptionException e = assertThrows(CorruptionException.class, () -> replay(path, 12, true, new ArrayList<>()));
        assertEquals(offset, e.offset(), e.getMessage());
        assertEquals(path, e.file());
        assertEquals(content.length, Files.size(path));
    }

    @Test
    void aWalCutInsideItsFileHeaderIsEmptyAndTorn() throws IOException {
        Path path = dir.resolve("h.wal");
        try (WalWriter w = WalWriter.create(path, 4)) {
            w.sync();
        }
        byte[] header = Files.readAllBytes(path);
        for (int len = 0; len < 24; len++) {
            Files.write(path, Arrays.copyOf(header, len));
            ReplayResult result = replay(path, 4, true, new ArrayList<>());
            assertEquals(new ReplayResult(0, 0, -1, 0, len), result);
            assertEquals(0, Files.size(path));
        }
        Files.write(path, new byte[100]);
        assertEquals(new ReplayResult(0, 0, -1, 0, 100), replay(path, 4, true, new ArrayList<>()));
        Files.write(path, Arrays.copyOf(header, 10));
        assertThrows(CorruptionException.class, () -> replay(path, 4, false, new ArrayList<>()));
        assertThrows(CorruptionException.class, () -> replay(path, 5, true, new ArrayList<>()), "not a prefix of WAL 5's header");
    }

    @Test
    void wellFramedButMalformedPayloadIsCorruption() throws IOException {
        Path path = dir.resolve("m.wal");
        List<Written> records = write(path, 1, new Random(7), 2, 1, 10);
        byte[] bytes = Files.readAllBytes(path);
        Written first = records.getFirst();
        int payload = (int) first.offset() + 12;
        bytes[payload + 12] = 9;  // the first op's type
        patchInt(bytes, (int) first.offset() + 4, crc(bytes, payload, (int) first.length() - 12));
        patchInt(bytes, (int) first.offset() + 8, crc(bytes, (int) first.offset(), 8));
        Files.write(path, bytes);
        List<Replayed> replayed = new ArrayList<>();
        CorruptionException e = assertThrows(CorruptionException.class, () -> replay(path, 1, true, replayed));
        assertEquals(payload + 12, e.offset(), e.getMessage());
        assertTrue(replayed.isEmpty(), "nothing of a malformed record is applied");
    }

    @Test
    void bigValueRecord() throws IOException {
        Path path = dir.resolve("big.wal");
        byte[] big = new byte[Limits.MAX_VALUE_BYTES];
        new Random(8).nextBytes(big);
        List<WalOp> ops = List.of(WalOp.put(new byte[] {1}, new byte[] {2}), WalOp.put(new byte[Limits.MAX_KEY_BYTES], big),
                WalOp.delete(new byte[] {3}));
        try (WalWriter w = WalWriter.create(path, 2)) {
            w.append(100, List.of(WalOp.put(new byte[] {0}, new byte[10])));
            w.append(101, ops);
            w.append(104, List.of(WalOp.delete(new byte[] {4})));
            w.sync();
        }
        long[] seen = new long[1];
        ReplayResult result = WalReader.replay(path, 2, false, (seq, delete, key, ko, kl, value, vo, vl) -> {
            seen[0]++;
            if (seq == 102) {
                assertEquals(Limits.MAX_KEY_BYTES, kl);
                assertEquals(-1, MemorySegment.ofArray(big).mismatch(value.asSlice(vo, vl)));
            } else {
                assertTrue(vl <= 10);
            }
        });
        assertEquals(new ReplayResult(3 + 1, 5, 104, Files.size(path), 0), result);  // + the closing mark
        assertEquals(5, seen[0]);
    }

    /**
     * Flushes write outside the writer's monitor while adds go on into a fresh buffer: with one thread
     * adding (its own flushes at a megabyte included), one flushing in a loop and one syncing, the log
     * must replay every op once, in order, and be exactly as long as the writer says.
     */
    @Test
    void addsDuringFlushesAndSyncsReplayInOrder() throws Exception {
        Path path = dir.resolve("f.wal");
        Random random = new Random(11);
        List<WalOp> all = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        long length;
        try (WalWriter w = WalWriter.create(path, 8)) {
            Runnable flusher = () -> {
                try {
                    while (!done.get()) {
                        w.flush();
                    }
                } catch (Throwable t) {
                    error.compareAndSet(null, t);
                }
            };
            Runnable syncer = () -> {
                try {
                    while (!done.get()) {
                        w.sync();
                        Thread.sleep(2);
                    }
                } catch (Throwable t) {
                    error.compareAndSet(null, t);
                }
            };
            Thread f = Thread.ofPlatform().start(flusher);
            Thread s = Thread.ofPlatform().start(syncer);
            long seq = 1;
            for (int i = 0; i < 6_000; i++) {
                List<WalOp> ops = WalFixture.randomOps(random, 4, i % 100 == 0 ? 300_000 : 2_000);
                w.add(seq, ops);
                all.addAll(ops);
                seq += ops.size();
            }
            done.set(true);
            f.join();
            s.join();
            length = w.bytesWritten();
        }
        if (error.get() != null) {
            throw new AssertionError("a flushing thread failed", error.get());
        }
        assertEquals(length + MARK_RECORD_BYTES, Files.size(path), "bytesWritten() counts every byte once (the close adds its mark)");
        List<Replayed> expected = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            WalOp op = all.get(i);
            expected.add(new Replayed(i + 1, op.delete(), op.key(), op.value()));
        }
        List<Replayed> replayed = new ArrayList<>();
        replay(path, 8, false, replayed);
        WalFixture.assertSame(expected, replayed);
    }

    /** An add that returned before or during close() is in the log; one after it fails and adds nothing. */
    @Test
    void addsRacingCloseAreKeptOrRefused() throws Exception {
        for (int round = 0; round < 20; round++) {
            Path path = dir.resolve("r" + round + ".wal");
            WalWriter w = WalWriter.create(path, 9);
            List<Long> acknowledged = Collections.synchronizedList(new ArrayList<>());
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            Thread adder = Thread.ofPlatform().start(() -> {
                for (long seq = 1; ; seq++) {
                    byte[] key = ByteBuffer.allocate(8).putLong(seq).array();
                    try {
                        w.add(seq, List.of(WalOp.put(key, new byte[(int) (seq % 3_000)])));
                    } catch (IllegalStateException closed) {
                        return;
                    } catch (Throwable t) {
                        unexpected.set(t);
                        return;
                    }
                    acknowledged.add(seq);
                }
            });
            Thread.sleep(round % 5);
            w.close();
            adder.join();
            if (unexpected.get() != null) {
                throw new AssertionError(unexpected.get());
            }
            List<Replayed> replayed = new ArrayList<>();
            replay(path, 9, false, replayed);
            assertEquals(acknowledged.size(), replayed.size(), "round " + round + ": every acknowledged add, nothing else");
            for (int i = 0; i < replayed.size(); i++) {
                assertEquals(i + 1, replayed.get(i).seq());
            }
        }
    }

    @Test
    void concurrentAppendsStayWhole() throws Exception {
        Path path = dir.resolve("c.wal");
        int threads = 3;
        int perThread = 200;
        try (WalWriter w = WalWriter.create(path, 6)) {
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long base = 1_000_000L * (t + 1);
                workers.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < perThread; i++) {
                            byte[] key = ByteBuffer.allocate(8).putLong(base + 2L * i).array();
                            w.append(base + 2L * i, List.of(WalOp.put(key, key), WalOp.put(key, new byte[i])));
                            if (i % 50 == 0) {
                                w.sync();
                            }
                        }
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (Thread t : workers) {
                t.join();
            }
        }
        List<Replayed> replayed = new ArrayList<>();
        ReplayResult result = replay(path, 6, false, replayed);
        // + the closing mark, and a record for each sync that found records not yet synced
        assertEquals(threads * perThread * 2, result.ops());
        assertTrue(result.records() > threads * perThread && result.records() <= threads * perThread + 1 + threads * 4,
                "records: " + result.records());
        for (int i = 0; i < replayed.size(); i += 2) {
            Replayed a = replayed.get(i);
            Replayed b = replayed.get(i + 1);
            assertEquals(a.seq() + 1, b.seq());
            assertEquals(a.seq(), ByteBuffer.wrap(a.key()).getLong());
            assertEquals(a.seq(), ByteBuffer.wrap(a.value()).getLong());
            assertEquals((a.seq() % 1_000_000) / 2, b.value().length);
        }
    }

    @Test
    void writerRefusesBadInput() throws IOException {
        Path path = dir.resolve("w.wal");
        try (WalWriter w = WalWriter.create(path, 1)) {
            assertThrows(IllegalArgumentException.class, () -> w.append(1, List.of()));
            assertThrows(IllegalArgumentException.class, () -> w.append(-1, List.of(WalOp.delete(new byte[0]))));
            assertThrows(IllegalArgumentException.class, () -> w.append(Long.MAX_VALUE, List.of(WalOp.delete(new byte[0]), WalOp.delete(new byte[0]))));
            assertEquals(24, w.bytesWritten());
            assertEquals(24, Files.size(path));
        }
        assertThrows(IllegalArgumentException.class, () -> new WalOp(WalOp.Type.DELETE, new byte[1], new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> WalOp.put(new byte[Limits.MAX_KEY_BYTES + 1], new byte[0]));
        assertThrows(NullPointerException.class, () -> WalOp.put(new byte[1], null));
        assertEquals(0, WalOp.delete(new byte[1]).value().length);
        assertThrows(FileAlreadyExistsException.class, () -> WalWriter.create(path, 1));
        WalWriter closed = WalWriter.create(dir.resolve("closed.wal"), 1);
        closed.close();
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.append(1, List.of(WalOp.delete(new byte[0]))));
        closed.sync();  // a clean close synced: nothing is left to make durable
    }

    /**
     * Consecutive writes share records: 10,000 single puts of 16-byte keys and 120-byte values cost
     * the file at most 5% over their key and value bytes (a record of its own each would cost 20%),
     * and replay gives every one back with its seq. A write whose seqs do not follow on starts a new
     * record; nothing is in the file before flush() (below a megabyte buffered).
     */
    @Test
    void consecutiveAddsShareRecordsAndReplayWhole() throws IOException {
        Path path = dir.resolve("000021.wal");
        Random random = new Random(21);
        List<Replayed> expected = new ArrayList<>();
        long userBytes = 0;
        try (WalWriter w = WalWriter.create(path, 21)) {
            long seq = 1;
            for (int i = 0; i < 10_000; i++) {
                byte[] key = new byte[16];
                byte[] value = new byte[120];
                random.nextBytes(key);
                random.nextBytes(value);
                w.add(seq, List.of(WalOp.put(key, value)));
                expected.add(new Replayed(seq, false, key, value));
                userBytes += 136;
                seq += i == 5_000 ? 7 : 1;  // a jump: the next write opens a record of its own
                if (i == 100) {
                    assertEquals(24, Files.size(path), "nothing reaches the file before a flush");
                    assertTrue(w.bufferedBytes() > 100 * 136);
                }
            }
            w.flush();
            assertEquals(0, w.bufferedBytes());
            assertEquals(Files.size(path), w.bytesWritten());
        }
        long framing = Files.size(path) - 24 - userBytes;
        assertTrue(framing <= userBytes / 20, "framing " + framing + " bytes over " + userBytes + " user bytes");
        List<Replayed> replayed = new ArrayList<>();
        replay(path, 21, false, replayed);
        assertSame(expected, replayed);
    }

    /**
     * A crash can cut the buffered log anywhere once written: what replays is always every write up to
     * some point, never a later write without an earlier one (records are whole or dropped).
     */
    @Test
    void aCutAnywhereReplaysAPrefixOfTheWrites() throws IOException {
        Path path = dir.resolve("000022.wal");
        Random random = new Random(22);
        List<Replayed> expected = new ArrayList<>();
        try (WalWriter w = WalWriter.create(path, 22)) {
            long seq = 1;
            for (int i = 0; i < 3000; i++) {
                List<WalOp> ops = WalFixture.randomOps(random, 3, 200);
                w.add(seq, ops);
                for (int j = 0; j < ops.size(); j++) {
                    expected.add(new Replayed(seq + j, ops.get(j).delete(), ops.get(j).key(), ops.get(j).value()));
                }
                seq += ops.size();
            }
        }
        byte[] whole = Files.readAllBytes(path);
        Path cut = dir.resolve("000023.wal");
        for (int end = 24; end <= whole.length; end += 1 + whole.length / 97) {
            Files.write(cut, Arrays.copyOf(whole, end));
            List<Replayed> replayed = new ArrayList<>();
            // The writer's file number is in the header: replay the copy under the original number.
            Path asOriginal = dir.resolve("cut").resolve("000022.wal");
            Files.createDirectories(asOriginal.getParent());
            Files.copy(cut, asOriginal, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            replay(asOriginal, 22, true, replayed);
            assertSame(expected.subList(0, replayed.size()), replayed);
        }
    }

    /**
     * A WAL created while older WALs are still being synced marks the records opened before they are
     * durable as early (recovery's test of a tear by a power cut); the question is not asked again
     * once it was answered yes.
     */
    @Test
    void recordsOpenedBeforeTheOlderWalsAreDurableAreEarly() throws IOException {
        Path path = dir.resolve("000030.wal");
        AtomicBoolean durable = new AtomicBoolean();
        int[] asked = {0};
        try (WalWriter w = WalWriter.create(path, 30, () -> {
            asked[0]++;
            return durable.get();
        })) {
            w.add(1, List.of(WalOp.put(new byte[] {1}, new byte[] {10})));
            w.add(2, List.of(WalOp.put(new byte[] {2}, new byte[] {20})));  // joins the open record
            w.flush();
            w.add(3, List.of(WalOp.delete(new byte[] {3})));
            w.flush();
            durable.set(true);
            w.add(4, List.of(WalOp.put(new byte[] {4}, new byte[0])));
            w.flush();
            w.add(5, List.of(WalOp.put(new byte[] {5}, new byte[] {50})));
        }
        assertEquals(3, asked[0]);
        List<Replayed> replayed = new ArrayList<>();
        ReplayResult r = replay(path, 30, false, replayed);
        assertEquals(new ReplayResult(4 + 1, 5, 5, Files.size(path), 0, 2), r);  // + the closing mark
        assertFalse(r.allEarly());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), replayed.stream().map(Replayed::seq).toList());
        assertTrue(replayed.get(2).delete());

        Path all = dir.resolve("000031.wal");
        try (WalWriter w = WalWriter.create(all, 31, () -> false)) {
            w.add(7, List.of(WalOp.put(new byte[] {7}, new byte[] {70})));
        }
        assertTrue(replay(all, 31, false, new ArrayList<>()).allEarly());
    }

    /**
     * A sync once the older WALs are durable settles the early records before it with a mark
     * record (not early, not replayed), so that a reader knows they may have been synced; a sync
     * before then, or with nothing early, adds none.
     */
    @Test
    void aSyncAfterTheOlderWalsAreDurableMarksTheEarlyRecordsSettled() throws IOException {
        Path path = dir.resolve("000033.wal");
        AtomicBoolean durable = new AtomicBoolean();
        try (WalWriter w = WalWriter.create(path, 33, durable::get)) {
            w.add(1, List.of(WalOp.put(new byte[] {1}, new byte[] {10})));
            w.sync();  // the older WALs are not durable: nothing to settle yet (the sync's own record is early too)
            ReplayResult early = replay(path, 33, false, new ArrayList<>());
            assertEquals(new ReplayResult(2, 1, 1, Files.size(path), 0, 2), early);
            assertTrue(early.allEarly());
            durable.set(true);
            w.sync();  // a mark: one record, not early, replaying nothing; then the sync's record
            assertEquals(new ReplayResult(4, 1, 1, Files.size(path), 0, 2), replay(path, 33, false, new ArrayList<>()));
            long size = Files.size(path);
            w.sync();  // settled already
            assertEquals(size, Files.size(path));
            w.add(2, List.of(WalOp.put(new byte[] {2}, new byte[] {20})));
        }
        List<Replayed> replayed = new ArrayList<>();
        ReplayResult r = replay(path, 33, false, replayed);
        assertEquals(new ReplayResult(5 + 1, 2, 2, Files.size(path), 0, 2), r);  // + the closing mark
        assertEquals(List.of(1L, 2L), replayed.stream().map(Replayed::seq).toList());

        Path closed = dir.resolve("000034.wal");
        AtomicBoolean later = new AtomicBoolean();
        WalWriter w = WalWriter.create(closed, 34, later::get);
        w.add(5, List.of(WalOp.put(new byte[] {5}, new byte[] {50})));
        later.set(true);
        w.close();  // a close syncs: it settles too, the early record still open included
        // The early record, the settling mark, the closing mark (a settling mark says nothing of a sync).
        assertEquals(new ReplayResult(3, 1, 5, Files.size(closed), 0, 1), replay(closed, 34, false, new ArrayList<>()));
    }

    /**
     * An interrupted thread that writes the log (any caller may lead a group commit) closed the
     * file channel for everyone, which failed the store. The writer clears the status for its I/O,
     * sets it again after, and reopens a channel an interrupt closed during a call.
     */
    @Test
    void interruptsOfWritingThreadsDoNotBreakTheLog() throws Exception {
        Path path = dir.resolve("000035.wal");
        List<Replayed> expected = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        try (WalWriter w = WalWriter.create(path, 35)) {
            Thread.currentThread().interrupt();
            w.add(1, List.of(WalOp.put(new byte[] {1}, new byte[] {1})));
            expected.add(new Replayed(1, false, new byte[] {1}, new byte[] {1}));
            w.sync();
            assertTrue(Thread.interrupted(), "the caller's interrupt status is kept");
            Random random = new Random(35);
            Thread writer = Thread.currentThread();
            Thread interrupter = new Thread(() -> {
                while (!stop.get()) {
                    writer.interrupt();
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                }
            });
            interrupter.start();
            long seq = 2;
            try {
                for (int i = 0; i < 2000; i++) {
                    byte[] value = new byte[random.nextInt(5000)];
                    random.nextBytes(value);
                    byte[] key = ("k" + i).getBytes();
                    w.add(seq, List.of(WalOp.put(key, value)));
                    expected.add(new Replayed(seq++, false, key, value));
                    if (i % 3 == 0) {
                        w.flush();
                    }
                    if (i % 50 == 0) {
                        w.sync();
                    }
                }
            } finally {
                stop.set(true);
                while (interrupter.isAlive()) {
                    try {
                        interrupter.join();
                    } catch (InterruptedException stillComing) {
                        // the interrupter's last ones
                    }
                }
                Thread.interrupted();
            }
            w.sync();
        }
        List<Replayed> replayed = new ArrayList<>();
        replay(path, 35, false, replayed);
        assertSame(expected, replayed);
    }

    /** Version 1 files (no early bit) still replay; in them, that bit is damage, as it always was. */
    @Test
    void versionOneWalsAreStillRead() throws IOException {
        Path path = dir.resolve("000032.wal");
        List<Written> records = write(path, 32, new Random(32), 20, 3, 100);
        byte[] bytes = Files.readAllBytes(path);
        System.arraycopy(WalFormat.fileHeader(32, WalFormat.VERSION_1), 0, bytes, 0, 24);
        Files.write(path, bytes);
        List<Replayed> replayed = new ArrayList<>();
        ReplayResult r = replay(path, 32, false, replayed);
        assertSame(expected(records), replayed);
        assertEquals(0, r.earlyRecords());

        Written first = records.getFirst();
        int payload = (int) first.offset() + 12;
        bytes[payload + 11] |= (byte) 0x80;  // the op count's top bit
        patchInt(bytes, (int) first.offset() + 4, crc(bytes, payload, (int) first.length() - 12));
        patchInt(bytes, (int) first.offset() + 8, crc(bytes, (int) first.offset(), 8));
        Files.write(path, bytes);
        CorruptionException e = assertThrows(CorruptionException.class, () -> replay(path, 32, true, new ArrayList<>()));
        assertEquals(first.offset() + 12, e.offset(), e.getMessage());
    }

    private static int crc(byte[] bytes, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(bytes, off, len);
        return (int) c.getValue();
    }

    private static void patchInt(byte[] bytes, int at, int v) {
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at, v);
    }
}
