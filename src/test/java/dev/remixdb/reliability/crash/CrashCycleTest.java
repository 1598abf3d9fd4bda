package dev.remixdb.reliability.crash;

import dev.remixdb.RemixDB;
import dev.remixdb.VerifyReport;
import dev.remixdb.reliability.Counts;
import dev.remixdb.reliability.PrefixCheck;
import dev.remixdb.reliability.Workload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Crash cycles: a child JVM ({@link CrashCycleChild}) runs puts, deletes, batches and syncs on one
 * store with tiny memtables, and is killed with SIGKILL at a random moment: after a random delay,
 * or just as a compaction starts writing a new file. After each kill the store must open, pass
 * {@link RemixDB#verify}, and hold exactly the state after some operation at or past the last
 * synced one ({@link PrefixCheck}): no synced write lost, no batch half there, no delete undone.
 * The next child goes on from the first operation the store does not hold.
 *
 * <p>{@code remixdb.crash.cycles} cycles (CI: 20; {@code -Preliability-soak}: 500).
 */
class CrashCycleTest {
    private static final int CYCLES = Integer.getInteger("remixdb.crash.cycles", 20);
    private static final int KEYS = 3000;
    private static final Counts COUNTS = new Counts("crash");

    @TempDir
    Path dir;

    @AfterAll
    static void report() {
        COUNTS.report();
    }

    @Test
    void killNineAtRandomMoments() throws Exception {
        long seed = Long.getLong("remixdb.crash.seed", System.nanoTime());
        Random rnd = new Random(seed);
        Workload w = new Workload(seed, KEYS, 10);
        PrefixCheck check = new PrefixCheck(Map.of());
        long next = 0;
        long[] compactions = new long[4];
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            boolean duringCompaction = rnd.nextInt(3) == 0;
            int delayMillis = 30 + rnd.nextInt(1000);
            Child child = runChild(seed, next, duringCompaction, delayMillis);
            String where = "seed " + seed + " cycle " + cycle + " (from op " + next + ", synced through "
                    + child.lastSynced + ")";
            VerifyReport report = RemixDB.verify(dir);
            assertTrue(report.ok(), where + ": verify after the kill: " + report);
            Map<String, Long> state;
            try (RemixDB db = RemixDB.open(dir, CrashCycleChild.options())) {
                state = PrefixCheck.read(db);
            } catch (IOException | RuntimeException e) {
                COUNTS.add("failed opens", 1);
                throw new AssertionError(where + ": the store does not open after the kill", e);
            }
            long synced = child.lastSynced;
            long from = next;
            next = check.match(w, from, synced, Math.max(0, synced - from) + 50_000, state, where);
            COUNTS.add("cycles", 1);
            COUNTS.add(duringCompaction ? "killed while a compaction wrote a file" : "killed after a random delay", 1);
            COUNTS.add("synced ops checked", Math.max(0, synced + 1 - from));
            COUNTS.add("unsynced ops kept", Math.max(0, next - 1 - synced));
            COUNTS.add("torn WAL tails (cut at reopen)", report.tornWalTails());
            for (int k = 0; k < 4; k++) {
                compactions[k] += child.compactions.get(k);
            }
        }
        COUNTS.add("ops in the final store", next);
        COUNTS.add("lost synced writes", 0);
        COUNTS.add("failed opens", 0);
        COUNTS.add("compactions minor", compactions[0]);
        COUNTS.add("compactions major", compactions[1]);
        COUNTS.add("compactions split", compactions[2]);
        COUNTS.add("compactions abort", compactions[3]);
        if (CYCLES >= 20) {
            // The cycles must have crashed through every kind of compaction, or they tested less.
            assertTrue(compactions[0] > 0 && compactions[1] > 0 && compactions[2] > 0,
                    "seed " + seed + ": compactions minor/major/split " + compactions[0] + "/" + compactions[1] + "/" + compactions[2]);
        }
    }

    /** What a killed child reported. */
    private record Child(long lastSynced, AtomicLongArray compactions) {}

    private Child runChild(long seed, long start, boolean duringCompaction, int delayMillis) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                // The child compacts under the policy this test run uses.
                "-Dremixdb.compactionPolicy=" + System.getProperty("remixdb.compactionPolicy", "remixdb"),
                "-cp", System.getProperty("java.class.path"), CrashCycleChild.class.getName(),
                dir.toString(), Long.toString(seed), Integer.toString(KEYS), "10", Long.toString(start)));
        Set<String> filesBefore = dataFiles();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        AtomicLong lastSynced = new AtomicLong(start - 1);
        AtomicLong ready = new AtomicLong(-1);
        AtomicLongArray compactions = new AtomicLongArray(4);
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith("S ")) {
                        lastSynced.set(Long.parseLong(line.substring(2)));
                    } else if (line.startsWith("C ")) {
                        String[] f = line.split(" ");
                        for (int k = 0; k < 4; k++) {
                            compactions.set(k, Long.parseLong(f[k + 1]));
                        }
                    } else if (line.equals("READY")) {
                        ready.set(System.nanoTime());
                    }
                }
            } catch (IOException e) {
                // Killed: its output ends here.
            }
        });
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (p.isAlive() && System.nanoTime() < deadline) {
                long t = ready.get();
                if (t >= 0 && (duringCompaction
                        ? lastSynced.get() >= start && !filesBefore.containsAll(dataFiles())
                        : System.nanoTime() - t > TimeUnit.MILLISECONDS.toNanos(delayMillis))) {
                    break;
                }
                Thread.sleep(1);
            }
            if (!p.isAlive()) {
                fail("the child exited by itself with code " + p.exitValue());
            }
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the child did not die");
        } finally {
            p.destroyForcibly();
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertTrue(ready.get() >= 0, "the child never opened the store");
        return new Child(lastSynced.get(), compactions);
    }

    private Set<String> dataFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".tbl") || n.endsWith(".rmx") || n.startsWith("MANIFEST"))
                    .collect(Collectors.toSet());
        }
    }
}
