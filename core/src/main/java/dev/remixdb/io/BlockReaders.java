package dev.remixdb.io;

import java.io.IOException;
import java.lang.System.Logger.Level;

/** Chooses and opens a store's {@link BlockReader}. */
public final class BlockReaders {
    private static final System.Logger LOG = System.getLogger("dev.remixdb.io");

    /** The engines a store can ask for; {@link #AUTO} takes io_uring when it can run. */
    public enum Kind { AUTO, IO_URING, FILE_CHANNEL }

    private BlockReaders() {}

    /**
     * A reader of the kind asked for. {@link Kind#AUTO} falls back to the FileChannel reader, with
     * the reason in the log line; {@link Kind#IO_URING} fails when io_uring cannot run. With
     * {@code direct}, the io_uring reader opens files with {@code O_DIRECT}; the FileChannel reader
     * cannot, and says so.
     */
    public static BlockReader open(Kind kind, boolean direct, java.nio.file.Path dir) throws IOException {
        String d = direct ? " with direct I/O" : "";
        if (kind != Kind.FILE_CHANNEL && dir.getFileSystem() != java.nio.file.FileSystems.getDefault()) {
            // io_uring reads files the kernel opened by name: a store on another java.nio.file file
            // system (an in-memory one, a fault-injecting one in tests) is read through its channels.
            if (kind == Kind.IO_URING) {
                throw new UnsupportedOperationException("ioEngine IO_URING needs a store on the default file system: "
                        + dir + " is on " + dir.getFileSystem());
            }
            LOG.log(Level.INFO, "block reads through FileChannel: " + dir + " is not on the default file system");
            return new FileChannelBlockReader();
        }
        switch (kind) {
            case FILE_CHANNEL -> {
                LOG.log(direct ? Level.WARNING : Level.DEBUG, "block reads through FileChannel (asked for)"
                        + (direct ? "; direct I/O needs io_uring, so reads go through the page cache" : ""));
                return new FileChannelBlockReader();
            }
            case IO_URING -> {
                String why = IoUringBlockReader.unavailableReason();
                if (why != null) {
                    throw new UnsupportedOperationException("ioEngine IO_URING cannot run here: " + why);
                }
                LOG.log(Level.INFO, "block reads through io_uring" + d + " (asked for)");
                return new IoUringBlockReader(direct);
            }
            default -> {
                String why = IoUringBlockReader.unavailableReason();
                if (why == null) {
                    try {
                        BlockReader r = new IoUringBlockReader(direct);
                        LOG.log(Level.INFO, "block reads through io_uring" + d);
                        return r;
                    } catch (IOException | RuntimeException e) {
                        why = "the ring did not start: " + e.getMessage();
                    }
                }
                LOG.log(direct ? Level.WARNING : Level.INFO, "block reads through FileChannel: io_uring not used ("
                        + why + ")" + (direct ? "; direct I/O needs io_uring, so reads go through the page cache" : ""));
                return new FileChannelBlockReader();
            }
        }
    }
}
