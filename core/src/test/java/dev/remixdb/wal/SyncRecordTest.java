package dev.remixdb.wal;

import dev.remixdb.remix.CorruptionException;
import dev.remixdb.wal.WalFixture.Replayed;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

import static dev.remixdb.wal.WalFixture.replay;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Synced ops (WAL format 3) where they are easy to get wrong: the records one sync covered, when
 * nothing follows them; a record hidden inside another's value; the cost of the scan for them.
 * (From a review of the first version, which recorded a sync only in the next record opened.)
 */
class SyncRecordTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Writes flushed in several records (the periodic flusher, or a group over 256 KiB), then one
     * sync that returns: all of them are acknowledged durable, and a kill before any further write
     * must still leave a record saying so. A flipped bit in the first of those records is damage.
     */
    @Test
    void aRecordTheLastSyncCoveredIsDamageWhenAWholeRecordFollowsIt() throws IOException {
        Path path = dir.resolve("000041.wal");
        Path image = dir.resolve("image.wal");
        long second;
        try (WalWriter w = WalWriter.create(path, 41)) {
            w.add(1, List.of(WalOp.put(b("a"), b("1"))));
            w.flush();  // the flusher wrote it out
            second = w.bytesInFile();
            w.add(2, List.of(WalOp.put(b("b"), b("2"))));
            w.flush();
            w.sync();  // returns: a and b are acknowledged durable
            Files.copy(path, image);  // what a kill now leaves (and a power cut too: all of it is synced)
        }
        byte[] bytes = Files.readAllBytes(image);
        assertEquals(second + (second - 24) + 39, bytes.length, "two whole records of the same size, then the sync's record");
        bytes[24 + 12 + 14] ^= 1;  // bit rot in the first record's payload (its key)
        Files.write(image, bytes);
        List<Replayed> replayed = new ArrayList<>();
        try {
            ReplayResult r = replay(image, 41, true, replayed);
            org.junit.jupiter.api.Assertions.fail("a synced record followed by a whole record is damage; instead the log"
                    + " was cut at " + r.validLength() + " (" + r.tornBytes() + " bytes) and " + replayed.size()
                    + " ops replayed");
        } catch (CorruptionException expected) {
            // right
        }
    }

    /**
     * Bit rot in a synced record whose value holds a well-formed record that spans the record after
     * it (the one saying the damaged one was synced): a scan that jumped over every record it found
     * would never see that proof, and would drop the synced record as a torn tail.
     */
    @Test
    void aRecordFoundInsideTheDamagedRecordDoesNotHideTheProofAfterIt() throws IOException {
        Path path = dir.resolve("000043.wal");
        byte[] value = new byte[300];
        new Random(1).nextBytes(value);
        long firstEnd;
        try (WalWriter w = WalWriter.create(path, 43)) {
            w.append(1, List.of(WalOp.put(b("key-a"), value)));
            firstEnd = w.bytesInFile();
            w.sync();  // acknowledged; the record saying so follows, 39 bytes
            w.append(2, List.of(WalOp.put(b("b"), b("2"))));
            w.append(3, List.of(WalOp.put(b("c"), b("3"))));
            w.flush();
        }
        byte[] bytes = Files.readAllBytes(path);
        bytes = Arrays.copyOf(bytes, bytes.length - 39);  // no closing mark: a kill
        // Inside the first record's value, at its offset 100: a record header whose payload runs to
        // the end of the sync's record (the proof), with the right checksums.
        int first = 24;
        int valueAt = first + 12 + 12 + 1 + 1 + 2 + 5;  // header, prefix, type, key len, value len (2 bytes), key
        int fakeAt = valueAt + 100;
        int fakeLength = (int) (firstEnd + 39 - (fakeAt + 12));
        ByteBuffer bb = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        bb.putInt(fakeAt, fakeLength);
        bb.putInt(fakeAt + 4, crc(bytes, fakeAt + 12, fakeLength));
        bb.putInt(fakeAt + 8, crc(bytes, fakeAt, 8));
        // The first record's own checksums over the value as the user wrote it.
        int firstPayload = (int) (firstEnd - first - 12);
        bb.putInt(first + 4, crc(bytes, first + 12, firstPayload));
        bb.putInt(first + 8, crc(bytes, first, 8));
        Path clean = dir.resolve("clean.wal");
        Files.write(clean, bytes);
        assertEquals(3, replay(clean, 43, false, new ArrayList<>()).ops(), "a sound log as written");

        bytes[first + 12 + 12 + 4] ^= 1;  // bit rot in the first record's key (synced, acknowledged)
        Path rotten = dir.resolve("rotten.wal");
        Files.write(rotten, bytes);
        assertThrows(CorruptionException.class, () -> replay(rotten, 43, true, new ArrayList<>()),
                "the sync's record says the first was synced");
    }

    /** The scan that looks for synced ops after damage, on a 64 MiB log: how long it takes. */
    @Test
    void theScanOfA64MiBLogIsFast() throws IOException {
        Path path = dir.resolve("000044.wal");
        Random rnd = new Random(44);
        try (WalWriter w = WalWriter.create(path, 44)) {
            long seq = 1;
            while (w.bytesWritten() < 64 << 20) {
                byte[] v = new byte[rnd.nextInt(4000)];
                rnd.nextBytes(v);
                w.add(seq++, List.of(WalOp.put(b("k" + seq), v)));
                if (seq % 64 == 0) {
                    w.flush();
                }
            }
        }
        byte[] bytes = Files.readAllBytes(path);
        bytes[24 + 30] ^= 1;
        Path rotten = dir.resolve("rotten.wal");
        Files.write(rotten, bytes);
        long t0 = System.nanoTime();
        assertThrows(CorruptionException.class, () -> WalReader.check(rotten, 44, (s, t, k, ko, kl, v, vo, vl) -> { }));
        long many = (System.nanoTime() - t0) / 1_000_000;

        // One record of 60 MiB, damaged at its start: the whole payload is scanned byte by byte.
        Path big = dir.resolve("000045.wal");
        byte[] v = new byte[60 << 20];
        rnd.nextBytes(v);
        try (WalWriter w = WalWriter.create(big, 45)) {
            w.append(1, List.of(WalOp.put(b("big"), v)));
            w.append(2, List.of(WalOp.put(b("after"), b("x"))));
            w.flush();
        }
        bytes = Files.readAllBytes(big);
        bytes = Arrays.copyOf(bytes, bytes.length - 39);
        bytes[24 + 40] ^= 1;
        Files.write(big, bytes);
        t0 = System.nanoTime();
        ReplayResult r = WalReader.check(big, 45, (s, t, k, ko, kl, vv, vo, vl) -> { });
        long one = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("scan: 64 MiB of records " + many + " ms; one 60 MiB record " + one + " ms");
        assertTrue(r.torn());
        assertTrue(many < 10_000 && one < 10_000, many + " / " + one + " ms");
    }

    private static int crc(byte[] bytes, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(bytes, off, len);
        return (int) c.getValue();
    }
}
