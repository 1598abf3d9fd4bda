package dev.remixdb.reliability;

import dev.remixdb.RemixDB;
import dev.remixdb.VerifyReport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM that verifies a store and prints "ok", "damaged" or "refused: " and the error's
 * message: {@code RemixDB.verify} from another process than the one that may hold the store open.
 */
public final class VerifyProbe {
    private VerifyProbe() {}

    public static void main(String[] args) {
        try {
            VerifyReport r = RemixDB.verify(Path.of(args[0]));
            System.out.print(r.ok() ? "ok" : "damaged");
        } catch (IOException | RuntimeException e) {
            System.out.print("refused: " + e.getMessage());
        }
    }

    /** Runs the probe on {@code dir} in a child JVM and returns what it printed. */
    static String run(Path dir) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), VerifyProbe.class.getName(), dir.toString())
                .redirectErrorStream(false).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("verify probe did not finish in 120 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.exitValue() != 0) {
            throw new IOException("verify probe failed: " + out + " / "
                    + new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        return out;
    }
}
