package dev.remixdb;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A child JVM on this test's class path that reports progress on stdout as lines {@code "<tag> <n>"}
 * (n: the last operation it made durable) and is killed with SIGKILL when the test says so, as a
 * service under {@code kill -9} would be.
 */
final class KilledChild {
    private final Process process;
    private final Thread reader;
    private final AtomicLong last = new AtomicLong(-1);
    private final AtomicLong lines = new AtomicLong();

    private KilledChild(Class<?> main, String tag, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC",
                // The child reads through the engine this test run uses.
                "-Dremixdb.ioEngine=" + System.getProperty("remixdb.ioEngine", "AUTO"),
                "-Dremixdb.compactionPolicy=" + System.getProperty("remixdb.compactionPolicy", "remixdb"),
                "-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(List.of(args));
        process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String prefix = tag + " ";
        reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith(prefix)) {
                        last.set(Long.parseLong(line.substring(prefix.length())));
                        lines.incrementAndGet();
                    }
                }
            } catch (IOException e) {
                // Killed: the output ends here.
            }
        });
        reader.start();
    }

    /** Starts {@code main} with {@code args}; its progress lines start with {@code tag}. */
    static KilledChild start(Class<?> main, String tag, String... args) throws IOException {
        return new KilledChild(main, tag, args);
    }

    /** Progress lines read so far. */
    long lines() {
        return lines.get();
    }

    /**
     * Waits until {@code killNow} holds (at most 5 minutes: a slow CI disk makes children slow; or
     * until the child exits), then
     * {@code delayMillis} more, kills the child and returns the last number it reported; fails when
     * it reported none.
     */
    long killWhen(BooleanSupplier killNow, int delayMillis) throws InterruptedException {
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (process.isAlive() && !killNow.getAsBoolean() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            Thread.sleep(delayMillis);
            process.destroyForcibly();
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "child did not die");
        } finally {
            process.destroyForcibly();
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (last.get() < 0) {
            fail("the child made nothing durable; exit code " + process.exitValue());
        }
        return last.get();
    }

    /** Operation i of a child's sequence, applied to a model (the child applies it to its store). */
    @FunctionalInterface
    interface ModelOps {
        void apply(long i, java.util.NavigableMap<String, String> model) throws IOException;
    }

    /**
     * Asserts that the store in {@code store}, opened with {@code options} after the kill, holds the
     * state after some prefix of the child's operations that includes every synced one (up to
     * {@code synced}), as UTF-8 keys and values, and that it verifies clean.
     */
    static void assertSyncedPrefix(Path store, Options options, long synced, ModelOps ops, String where)
            throws IOException {
        java.util.NavigableMap<String, String> seen = new java.util.TreeMap<>();
        try (RemixDB db = RemixDB.open(store, options); Cursor c = db.cursor()) {
            for (c.seekToFirst(); c.isValid(); c.next()) {
                seen.put(new String(c.key(), StandardCharsets.UTF_8), new String(c.value(), StandardCharsets.UTF_8));
            }
        }
        java.util.NavigableMap<String, String> model = new java.util.TreeMap<>();
        long matched = -1;
        for (long i = 0; i <= synced + 2000 && matched < 0; i++) {
            ops.apply(i, model);
            if (i >= synced && model.equals(seen)) {
                matched = i;
            }
        }
        assertTrue(matched >= synced, where + ": the recovered store is no prefix of the operations"
                + " that includes the synced ones (synced up to " + synced + ")");
        assertTrue(RemixDB.verify(store).ok(), where + ": the store does not verify");
    }
}
