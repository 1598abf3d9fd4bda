package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.BenchMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts one store's child JVM ({@link DbChildCommand}) and collects its results. The child is the
 * same java binary with the same class path (the shaded jar, or the test class path), the Vector API
 * module and native access, {@code -Xmx} from {@code --heap} and {@code --jvm-opts}: so the stores
 * share no heap, JIT profile or cache with each other or with the parent. Its stderr (progress,
 * logs, errors) goes straight to ours; its stdout is read for result lines, other lines are echoed.
 */
final class ChildLauncher {
    private ChildLauncher() {}

    /** What one child did. */
    record ChildRun(String store, int exitCode, List<PhaseResult> results, double seconds,
                    List<String> command) {}

    /** The child's command line; with a memory limit, a shell that enters the cgroup and then runs Java. */
    static List<String> command(String store, DbOptions o, Path storeDir, String progress) {
        return command(store, o, storeDir, progress, null);
    }

    static List<String> command(String store, DbOptions o, Path storeDir, String progress, MemoryLimit limit) {
        List<String> cmd = new ArrayList<>();
        if (limit != null) {
            cmd.addAll(limit.enterThenExec());
        }
        cmd.add(javaBinary());
        cmd.add("--add-modules");
        cmd.add("jdk.incubator.vector");
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Xmx" + o.heap());
        cmd.addAll(o.jvmOpts());
        cmd.add("-Djava.awt.headless=true");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(BenchMain.class.getName());
        cmd.add("db-child");
        cmd.add("--store");
        cmd.add(store);
        cmd.add("--store-dir");
        cmd.add(storeDir.toAbsolutePath().toString());
        cmd.add("--progress");
        cmd.add(progress);
        cmd.addAll(o.childArgs());
        return cmd;
    }

    /** Runs the child to its end; {@code echo} gets its stdout lines that are not results. */
    static ChildRun run(String store, DbOptions o, Path storeDir, String progress, PrintStream echo)
            throws IOException, InterruptedException {
        try (MemoryLimit limit = o.memoryLimitBytes() > 0 ? MemoryLimit.create(store, o.memoryLimitBytes()) : null) {
            return run(store, o, storeDir, progress, echo, limit);
        }
    }

    private static ChildRun run(String store, DbOptions o, Path storeDir, String progress, PrintStream echo,
                                MemoryLimit limit) throws IOException, InterruptedException {
        List<String> cmd = command(store, o, storeDir, progress, limit);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        long t0 = System.nanoTime();
        Process p = pb.start();
        // A parent stopped by Ctrl-C must not leave the child loading a store in the background.
        Thread reaper = new Thread(p::destroy, "db-child-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        List<PhaseResult> results = new ArrayList<>();
        try {
            p.getOutputStream().close();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (ResultLine.matches(line)) {
                        results.add(ResultLine.decode(line));
                    } else {
                        echo.println(line);
                    }
                }
            }
            int rc = p.waitFor();
            return new ChildRun(store, rc, results, (System.nanoTime() - t0) / 1e9, cmd);
        } finally {
            p.destroy();
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException shuttingDown) {
                // The hook runs anyway.
            }
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
