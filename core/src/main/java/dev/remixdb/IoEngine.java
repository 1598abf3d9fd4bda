package dev.remixdb;

/**
 * How a store reads its table files ({@link Options.Builder#ioEngine}). {@link RemixDB#stats()}
 * reports the engine in use, and opening a store logs it once.
 */
public enum IoEngine {
    /**
     * io_uring where it can run (Linux x86-64, a kernel that allows it, native access enabled for
     * this library: {@code --enable-native-access=ALL-UNNAMED} on the class path; on the module path
     * {@code --enable-native-access=dev.remixdb.core,io.netty.common} and
     * {@code --add-modules io.netty.transport.io_uring.linux.x86_64}, the module holding the ring's
     * native library, which nothing requires), else {@link #FILE_CHANNEL}. The default; the system property
     * {@code remixdb.ioEngine} (a constant name) changes the default without code changes, as the
     * test suites do to run each engine.
     */
    AUTO,
    /**
     * io_uring, through Netty's io_uring transport: batches of block reads (a scan's next blocks,
     * {@link RemixDB#multiGet}) and asynchronous reads ({@link RemixDB#getAsync}) go to one ring and
     * run in parallel in the kernel; a single blocking read is a {@code pread} on the caller's
     * thread. Opening a store fails when io_uring cannot run here.
     */
    IO_URING,
    /**
     * Positional {@link java.nio.channels.FileChannel} reads on the calling thread; batches are read
     * one block after another, and asynchronous reads complete before they are returned. Portable.
     */
    FILE_CHANNEL
}
