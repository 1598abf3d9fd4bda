package dev.remixdb.wal;

import dev.remixdb.remix.CorruptionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The scan for synced ops after a bad record looks for whole records at every offset, so a record
 * inside a value is found too. A value that holds the bytes of a WAL (another store's, a backup's:
 * the store keeps files) carries synced ops whose offsets are that file's, past the bad record
 * whenever that file is larger. Taken for proof, a power cut that kept a later page of the
 * never-synced tail and not an earlier one read as damage, and the store refused to open: the
 * nonce each log's synced ops repeat from its header rules them out. (From a review.)
 */
class SyncedOpInValueTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aWalStoredAsAValueDoesNotTurnAPowerCutIntoDamage() throws IOException {
        // Some other WAL, with syncs (so synced ops) in it: the user stores its bytes as a value.
        Path other = dir.resolve("000007.wal");
        try (WalWriter w = WalWriter.create(other, 7)) {
            for (int i = 1; i <= 6; i++) {
                byte[] v = new byte[2000];
                Arrays.fill(v, (byte) i);
                w.append(i, List.of(WalOp.put(b("o" + i), v)));
                w.sync();
            }
        }
        byte[] otherBytes = Files.readAllBytes(other);

        Path path = dir.resolve("000001.wal");
        long synced;
        long bAt;
        try (WalWriter w = WalWriter.create(path, 1)) {
            w.append(1, List.of(WalOp.put(b("a"), b("1"))));
            w.sync();  // a is durable; the sync's record follows it
            synced = w.bytesInFile();
            bAt = w.bytesWritten();
            byte[] big = new byte[5000];
            Arrays.fill(big, (byte) 'b');
            w.append(2, List.of(WalOp.put(b("b"), big)));               // never synced
            w.append(3, List.of(WalOp.put(b("file"), otherBytes)));      // never synced
            // The power goes now: nothing after 'synced' was forced. The disk kept a later page
            // and not page 1 (part of b and the start of the file's record).
        }
        byte[] bytes = Files.readAllBytes(path);
        bytes = Arrays.copyOf(bytes, bytes.length - 39);  // no closing mark: the power went first
        Arrays.fill(bytes, 4096, 8192, (byte) 0);
        Path image = dir.resolve("image.wal");
        Files.write(image, bytes);

        try {
            ReplayResult r = WalReader.replay(image, 1, true, (s, t, k, ko, kl, v, vo, vl) -> { });
            assertEquals(1, r.ops(), "a replays; b and the file, never synced, are the torn tail");
            assertEquals(bAt, r.validLength());
        } catch (CorruptionException e) {
            fail("nothing past offset " + synced + " was ever synced, yet the WAL reads as damaged (the store"
                    + " would refuse to open): " + e.getMessage());
        }
    }
}
