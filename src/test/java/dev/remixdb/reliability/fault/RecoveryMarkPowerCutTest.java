package dev.remixdb.reliability.fault;

import dev.remixdb.Options;
import dev.remixdb.RemixDB;
import dev.remixdb.reliability.fault.FaultyFileSystem.Kind;
import dev.remixdb.reliability.fault.FaultyFileSystem.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A kill leaves the newest WAL's records in the page cache only; the next open replays them and
 * appends a record saying the file is synced through its end. The first version of WAL format 3
 * appended it before it forced the file: a power cut during that open could keep the page of that
 * record and not an earlier page of the (never synced) records, and the open after it found a bad
 * record followed by a synced op past it and refused the store as damaged. No bit rot, only a kill
 * and a power cut. Appended after the fsync, the hole is a torn, never synced tail, cut, and the
 * store opens with a prefix of the writes. (From a review.)
 */
class RecoveryMarkPowerCutTest {
    private static final int TRIALS = 24;
    private static final int PUTS = 6;

    @TempDir
    Path tmp;

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[3000];
        Arrays.fill(v, (byte) ('a' + i));
        return v;
    }

    private static Options options() {
        // Each write reaches the file at once (a record each), none synced.
        return Options.builder().walFlushMillis(0).syncWrites(false).build();
    }

    @Test
    void aPowerCutDuringTheOpenAfterAKillDoesNotMakeTheStoreUnopenable() throws Exception {
        List<String> refused = new ArrayList<>();
        for (int trial = 0; trial < TRIALS; trial++) {
            Path real = tmp.resolve("db" + trial);
            Files.createDirectories(real);
            FaultyFileSystem fs = new FaultyFileSystem();
            fs.watchPowerCuts(real);
            try {
                // 1. Writes, not synced, then a kill (the disk keeps what was written, not forced).
                RemixDB db = RemixDB.open(fs.wrap(real), options());
                for (int i = 0; i < PUTS; i++) {
                    db.put(key(i), value(i));
                }
                fs.cutPower();
                try {
                    db.close();
                } catch (IOException expected) {
                    // the killed process writes nothing more
                }
                fs.resumeAfterKill();

                // 2. The next open; the power goes at its first WAL fsync (after Recovery appended
                // its synced op to the replayed WAL).
                fs.failOn(Op.FSYNC, Kind.WAL, 0, true);
                IOException e = assertThrows(IOException.class, () -> RemixDB.open(fs.wrap(real), options()).close());
                assertTrue(String.valueOf(e.getMessage()).contains(FaultyFileSystem.INJECTED), String.valueOf(e));
                fs.heal();
                fs.cutPower();
                List<String> lost = fs.restorePower(new Random(trial));

                // 3. The open after the power cut: a prefix of the (never synced) puts, never a refusal.
                try (RemixDB again = RemixDB.open(real, options())) {
                    boolean gap = false;
                    for (int i = 0; i < PUTS; i++) {
                        byte[] v = again.get(key(i));
                        if (v == null) {
                            gap = true;
                        } else {
                            assertTrue(!gap && Arrays.equals(value(i), v), "trial " + trial + ": not a prefix");
                        }
                    }
                } catch (dev.remixdb.CorruptionException | dev.remixdb.remix.CorruptionException c) {
                    refused.add("trial " + trial + " (" + lost + "): " + c.getMessage());
                }
            } finally {
                fs.discardImage();
            }
        }
        assertTrue(refused.isEmpty(), refused.size() + " of " + TRIALS
                + " power cuts during an open after a kill left a store that refuses to open:\n"
                + String.join("\n", refused));
    }
}
