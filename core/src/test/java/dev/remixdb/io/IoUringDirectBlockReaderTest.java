package dev.remixdb.io;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite on the io_uring reader with direct I/O: every read there is unaligned or
 * lands in unaligned memory unless it happens not to, so this runs the page-widening path. Skipped
 * with the reason where io_uring or {@code O_DIRECT} (some file systems, tmpfs) is unavailable.
 */
class IoUringDirectBlockReaderTest extends BlockReaderConformance {
    @BeforeAll
    static void directAvailable(@TempDir Path probeDir) throws IOException {
        String why = IoUringBlockReader.unavailableReason();
        assumeTrue(why == null, () -> "io_uring reader not tested here: " + why);
        Path probe = Files.write(probeDir.resolve("probe"), new byte[8192]);
        try (BlockReader r = new IoUringBlockReader(true)) {
            r.open(probe).close();
        } catch (IOException e) {
            assumeTrue(false, () -> "O_DIRECT not supported on " + probeDir + ": " + e.getMessage());
        }
    }

    @Override
    BlockReader newReader() throws IOException {
        return new IoUringBlockReader(true);
    }
}
