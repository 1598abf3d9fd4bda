package dev.remixdb.reliability.fault;

import dev.remixdb.reliability.fault.FaultyFileSystem.Kind;
import dev.remixdb.reliability.fault.FaultyFileSystem.Op;
import dev.remixdb.remix.CorruptionException;
import dev.remixdb.wal.ReplayResult;
import dev.remixdb.wal.WalOp;
import dev.remixdb.wal.WalReader;
import dev.remixdb.wal.WalWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Group commit: writes added while a sync's fsync runs are not covered by it, and writes added
 * after it returned must not share their record with them unmarked; the record saying the file
 * was synced comes right after the sync. A flipped bit in the synced record is then damage, not a
 * torn tail that drops the acknowledged write. (The first version of WAL format 3 let the next
 * writes join the record opened during the fsync, with no synced op anywhere.)
 */
class SyncRecordRaceTest {
    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRecordWrittenAfterASyncReturnedSaysSo() throws Exception {
        FaultyFileSystem fs = new FaultyFileSystem();
        Path dir = tmp.resolve("wal");
        Files.createDirectories(dir);
        Path wal = fs.wrap(dir).resolve("000001.wal");
        Path image = tmp.resolve("image.wal");
        try (WalWriter w = WalWriter.create(wal, 1)) {
            w.add(1, List.of(WalOp.put(b("a"), b("1"))));
            fs.slowOn(Op.FSYNC, Kind.WAL, 600);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread syncer = Thread.ofPlatform().start(() -> {
                try {
                    w.sync();  // the group commit of a's writer
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (w.bytesInFile() <= 24 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            Thread.sleep(100);  // in the slowed fsync now
            w.add(2, List.of(WalOp.put(b("b"), b("2"))));  // the next writer, during the fsync
            syncer.join();
            assertEquals(null, failure.get());
            fs.heal();
            // a is acknowledged durable now. The next writes, after the sync returned:
            w.add(3, List.of(WalOp.put(b("c"), b("3"))));
            w.flush();
            Files.copy(dir.resolve("000001.wal"), image);  // a kill now
        }
        byte[] bytes = Files.readAllBytes(image);
        bytes[24 + 12 + 12 + 3] ^= 1;  // bit rot in a's key
        Files.write(image, bytes);
        try {
            ReplayResult r = WalReader.replay(image, 1, true, (s, t, k, ko, kl, v, vo, vl) -> { });
            fail("a's record was synced and a whole record written after the sync follows it: damage; instead"
                    + " cut at " + r.validLength() + ", " + r.ops() + " ops replayed");
        } catch (CorruptionException expected) {
            // right
        }
    }
}
