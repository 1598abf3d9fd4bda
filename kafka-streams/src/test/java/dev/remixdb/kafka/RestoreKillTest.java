package dev.remixdb.kafka;

import dev.remixdb.RemixDB;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * kill -9 during a restore (which writes without RemixDB's WAL, commits included): after every kill
 * the store opens, every changelog record up to its committed offset is in it, and the offset is at
 * least that of the last durable commit (one after a processing write) the child saw return. Then
 * the next round resumes from it, as Kafka would.
 */
class RestoreKillTest {
    @TempDir
    Path dir;

    @Test
    void aRestoreKilledAnywhereReopensWithItsOffsetsBehindItsData() throws Exception {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        long lastDurable = -1;
        long maxCommitted = -1;
        for (int round = 0; round < 6; round++) {
            String where = "seed " + seed + " round " + round;
            long[] seen = runChild(1 + rnd.nextInt(8), 1 + rnd.nextInt(4), 2 + rnd.nextInt(10), rnd.nextInt(60));
            lastDurable = Math.max(lastDurable, seen[1]);
            RemixKeyValueStore store = new StoreFixture(dir.toFile(), RestoreKillChild.props()).open("kv");
            try {
                Long stored = store.committedOffset(RestoreKillChild.CHANGELOG);
                long committed = stored == null ? -1 : stored;
                assertTrue(committed >= lastDurable, where + ": offset " + committed + " behind the durable commit " + lastDurable);
                for (long o = 0; o <= committed; o++) {
                    assertArrayEquals(RestoreKillChild.value(o), store.get(Bytes.wrap(RestoreKillChild.key(o))),
                            where + ": record " + o + " at or below the committed offset " + committed);
                }
                // The next round restores from here; a lost unlogged commit means restoring more.
                lastDurable = committed;
                maxCommitted = Math.max(maxCommitted, seen[0]);
            } finally {
                store.close();
            }
            assertTrue(RemixDB.verify(dir.resolve("kv")).ok(), where + ": the store verifies");
        }
        assertTrue(maxCommitted > 0, "the child committed");
    }

    /**
     * Runs the child until it has committed {@code commits} times and {@code delayMillis} more (so
     * kills also land inside a commit), kills it, and returns the last offsets it saw committed and
     * committed durably (-1: none).
     */
    private long[] runChild(int commitEvery, int durableEvery, int commits, int delayMillis) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED", "-Xmx384m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), RestoreKillChild.class.getName(),
                dir.toString(), Integer.toString(commitEvery), Integer.toString(durableEvery)));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        AtomicLong last = new AtomicLong(-1);
        AtomicLong durable = new AtomicLong(-1);
        AtomicLong count = new AtomicLong();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith("C ") || line.startsWith("D ")) {
                        long offset = Long.parseLong(line.substring(2));
                        last.set(offset);
                        if (line.startsWith("D ")) {
                            durable.set(offset);
                        }
                        count.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                // Killed: the output ends here.
            }
        });
        reader.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (p.isAlive() && count.get() < commits && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            Thread.sleep(delayMillis);
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "child did not die");
        } finally {
            p.destroyForcibly();
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (last.get() < 0) {
            fail("the child committed nothing; exit code " + p.exitValue());
        }
        return new long[] {last.get(), durable.get()};
    }
}
