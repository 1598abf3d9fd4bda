package dev.remixdb.reliability;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM that tries the OS lock of a store's LOCK file and prints "locked" (another process
 * holds it) or "free". It only tries the lock, never opens the store, so a store wrongly left
 * unlocked is not touched. The file name is the one of {@code dev.remixdb.files.FileNames.LOCK}.
 */
public final class LockProbe {
    private LockProbe() {}

    public static void main(String[] args) throws IOException {
        try (FileChannel ch = FileChannel.open(Path.of(args[0]).resolve("LOCK"), StandardOpenOption.WRITE)) {
            FileLock lock = ch.tryLock();
            System.out.print(lock == null ? "locked" : "free");
        }
    }

    /** Runs the probe on {@code dir} in a child JVM: "locked" or "free". */
    static String run(Path dir) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LockProbe.class.getName(),
                dir.toString()).redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("lock probe did not finish in 60 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.exitValue() != 0) {
            throw new IOException("lock probe failed: " + out);
        }
        return out;
    }
}
