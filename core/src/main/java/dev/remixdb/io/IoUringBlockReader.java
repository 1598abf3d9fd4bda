package dev.remixdb.io;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoEvent;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.channel.uring.IoUringIoOps;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link BlockReader} on io_uring, through Netty's io_uring transport: one ring, served by one
 * event-loop thread ({@code remixdb-io_uring}), which submits every read of a batch with one
 * {@code io_uring_enter} and completes the batch's future when the last of them is done. Reads run
 * in parallel in the kernel, so a batch of reads that miss the page cache costs about one device
 * latency, not one per read.
 *
 * <p>Lifetime rules, which make it as safe as the blocking reader:
 * <ul>
 *   <li>A batch's future completes only after every read of the batch has ended (done or failed), so
 *       the caller may free a destination as soon as the future completes, also on failure.</li>
 *   <li>A file's descriptor is closed when the file is closed <em>and</em> no read of it is in the
 *       ring: a read never lands on a descriptor number that was reused for another file.</li>
 *   <li>{@link #close()} fails the reads not yet submitted, waits for those in the kernel, then
 *       stops the ring.</li>
 * </ul>
 *
 * <p>Destinations are best native: the kernel writes into them directly. A heap destination is read
 * through a native buffer and copied. With direct I/O ({@code O_DIRECT}: the page cache is
 * bypassed, so the block cache is the only cache) the file offset, length and memory of a read must
 * be page-aligned; a read that is not (a table block at any offset) reads the pages around it into
 * an aligned buffer and copies its bytes out. Short reads are continued; a read past the end of the file
 * fails with an {@link EOFException}; other failures are {@link IOException}s naming the file, the
 * offset and the errno.
 *
 * <p>A blocking read ({@link #readFully}) is a {@code pread} on the calling thread (see there why),
 * so it is safe anywhere, also in a completion callback on the ring thread; such callbacks should
 * still be short, since the ring serves every read while one runs.
 */
public final class IoUringBlockReader implements BlockReader {
    /**
     * Reads in the kernel at most; more wait in a queue on the ring thread. Completions handled in
     * one pass may submit as many new reads, which can complete before the pass ends, so the
     * completion queue holds four times this.
     */
    static final int MAX_IN_FLIGHT = 256;
    private static final byte IORING_OP_READ = 22;
    private static final int RING_SIZE = 256;

    private final MultiThreadIoEventLoopGroup group;
    private final IoEventLoop loop;
    private final IoRegistration registration;
    private final int openFlags;
    private final boolean direct;
    private final BouncePool bounces = new BouncePool();
    /** Each thread's room for pread's errno: one allocation per thread, not one per read. */
    private static final ThreadLocal<MemorySegment> ERRNO =
            ThreadLocal.withInitial(() -> NativeFiles.errnoState(Arena.ofAuto()));
    /** Blocking reads running now: close() waits for them before it frees the bounce buffers. */
    private final AtomicInteger blockingReads = new AtomicInteger();

    // Ring-thread state.
    private final Read[] inFlight = new Read[MAX_IN_FLIGHT];
    private final int[] freeSlots = new int[MAX_IN_FLIGHT];
    private int freeCount;
    private final ArrayDeque<Read> waiting = new ArrayDeque<>();
    private boolean stopping;

    private volatile boolean closed;
    private final AtomicInteger pending = new AtomicInteger();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    /** Null when io_uring can be used here, else why not (for the engine's log line). */
    public static String unavailableReason() {
        String why = NativeFiles.unavailableReason();
        if (why != null) {
            return why;
        }
        try {
            if (!IoUring.isAvailable()) {
                Throwable cause = IoUring.unavailabilityCause();
                return "io_uring unavailable: " + (cause == null ? "unknown" : cause.toString());
            }
        } catch (LinkageError e) {
            return "Netty io_uring transport missing: " + e;
        }
        return null;
    }

    /** A reader on a new ring; {@code direct} opens files with {@code O_DIRECT}. */
    public IoUringBlockReader(boolean direct) throws IOException {
        String why = unavailableReason();
        if (why != null) {
            throw new UnsupportedOperationException(why);
        }
        this.direct = direct;
        this.openFlags = direct ? NativeFiles.directFlag() : 0;
        for (int i = 0; i < MAX_IN_FLIGHT; i++) {
            freeSlots[i] = MAX_IN_FLIGHT - 1 - i;
        }
        freeCount = MAX_IN_FLIGHT;
        IoUringIoHandlerConfig config = new IoUringIoHandlerConfig().setRingSize(RING_SIZE)
                .setCqSize(MAX_IN_FLIGHT * 4).setMaxBoundedWorker(64).setMaxUnboundedWorker(64);
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("remixdb-io_uring", true),
                IoUringIoHandler.newFactory(config));
        loop = group.next();
        try {
            registration = loop.register(new Handle()).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while starting the io_uring reader");
        } catch (ExecutionException | TimeoutException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw new IOException("io_uring reader failed to start: " + e, e);
        }
    }

    @Override
    public String name() {
        return "io_uring";
    }

    @Override
    public boolean parallel() {
        return true;
    }

    @Override
    public BlockFile open(Path path) throws IOException {
        checkOpen();
        int fd = NativeFiles.openReadOnly(path, openFlags);
        try {
            return new RingFile(path, fd, NativeFiles.size(fd, path));
        } catch (IOException | RuntimeException e) {
            NativeFiles.close(fd, path);
            throw e;
        }
    }

    @Override
    public CompletableFuture<Void> read(List<BlockRead> batch) {
        if (batch.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Batch b = new Batch(batch.size());
        Read[] reads = new Read[batch.size()];
        int acquired = 0;
        try {
            checkOpen();
            for (BlockRead r : batch) {
                if (!(r.file() instanceof RingFile f)) {
                    throw new IllegalArgumentException("not a file of this reader: " + r.file());
                }
                f.acquire();
                reads[acquired++] = new Read(b, f, r.offset(), r.dst(), direct);
            }
        } catch (IOException | RuntimeException e) {
            for (int i = 0; i < acquired; i++) {
                reads[i].file.release();
            }
            return CompletableFuture.failedFuture(e);
        }
        pending.addAndGet(reads.length);
        if (loop.inEventLoop()) {
            enqueue(reads);
        } else {
            try {
                loop.execute(() -> enqueue(reads));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // The reader closed after the check above: nothing was queued, so undo and fail.
                for (Read r : reads) {
                    r.file.release();
                }
                pending.addAndGet(-reads.length);
                return CompletableFuture.failedFuture(new IOException("block reader is closed", e));
            }
        }
        return b.future;
    }

    /**
     * A single blocking read is a {@code pread(2)} on the calling thread, not a trip through the
     * ring: handing one read to the ring thread and parking until it is done adds two thread
     * switches (measured on 2 vCPUs: 0.7x the reads per second of a plain pread at one read in
     * flight), and gains nothing when nothing else is in flight. Batches and asynchronous reads
     * ({@link #read}) go to the ring.
     */
    @Override
    public void readFully(BlockFile file, long offset, MemorySegment dst) throws IOException {
        checkOpen();
        if (!(file instanceof RingFile f)) {
            throw new IllegalArgumentException("not a file of this reader: " + file);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset + " in " + f.path);
        }
        long length = dst.byteSize();
        if (length == 0) {
            return;
        }
        f.acquire();
        blockingReads.incrementAndGet();
        Window w = new Window(offset, dst, direct);
        MemorySegment buffer = w.bounced ? bounces.take(w.length) : dst;
        try {
            MemorySegment state = ERRNO.get();
            long done = 0;
            while (done < w.needed) {
                long n = NativeFiles.pread(f.fd, buffer.asSlice(done, w.length - done), w.start + done, state, f.path);
                if (n == 0) {
                    throw new EOFException(f.path + ": end of file at offset " + (w.start + done) + " while reading "
                            + length + " bytes at offset " + offset + " (file size " + f.size + ")");
                }
                done += n;
            }
            if (w.bounced) {
                MemorySegment.copy(buffer, w.skip, dst, 0, length);
            }
        } finally {
            if (w.bounced) {
                bounces.give(buffer);
            }
            blockingReads.decrementAndGet();
            f.release();
        }
    }

    /**
     * The part of the file a read of {@code dst.byteSize()} bytes at {@code offset} reads: the same
     * bytes straight into {@code dst} when it can take them, else into a bounce buffer, widened to
     * whole pages for direct I/O. Of the window, {@code needed} bytes must be read (the rest may lie
     * past the end of the file), and the destination's bytes start {@code skip} bytes into it.
     */
    private static final class Window {
        final long start;
        final long length;
        final long skip;
        final long needed;
        final boolean bounced;

        Window(long offset, MemorySegment dst, boolean direct) {
            long n = dst.byteSize();
            boolean aligned = !direct || (offset % BouncePool.ALIGN == 0 && n % BouncePool.ALIGN == 0
                    && dst.isNative() && dst.address() % BouncePool.ALIGN == 0);
            if (aligned && dst.isNative()) {
                start = offset;
                length = n;
                skip = 0;
                bounced = false;
            } else if (!direct) {
                start = offset;
                length = n;
                skip = 0;
                bounced = true;
            } else {
                start = BouncePool.alignDown(offset);
                length = BouncePool.alignUp(offset + n) - start;
                skip = offset - start;
                bounced = true;
            }
            needed = skip + n;
        }
    }

    // ------------------------------------------------------------------ ring thread

    private void enqueue(Read[] reads) {
        for (Read r : reads) {
            if (r.dst.byteSize() == 0) {
                finish(r, null);
            } else if (stopping) {
                finish(r, new IOException("block reader is closed: " + r.describe()));
            } else if (freeCount > 0) {
                submit(r);
            } else {
                waiting.add(r);
            }
        }
    }

    private void submit(Read r) {
        int slot = freeSlots[--freeCount];
        inFlight[slot] = r;
        if (r.buffer == null) {
            r.buffer = r.window.bounced ? bounces.take(r.window.length) : r.dst;
        }
        int length = (int) Math.min(r.window.length - r.done, 1 << 30);
        IoUringIoOps op = new IoUringIoOps(IORING_OP_READ, (byte) 0, (short) 0, r.file.fd, r.window.start + r.done,
                r.buffer.address() + r.done, length, 0, slot, (short) 0, (short) 0, 0, 0L);
        registration.submit(op);
    }

    private void complete(IoUringIoEvent event) {
        int slot = event.data();
        Read r = inFlight[slot];
        inFlight[slot] = null;
        freeSlots[freeCount++] = slot;
        int res = event.res();
        if (res > 0) {
            r.done += res;
            if (r.done < r.window.needed) {
                submit(r);  // a short read: continue where it stopped
            } else {
                finish(r, null);
            }
        } else if (res == 0) {
            finish(r, new EOFException(r.file.path + ": end of file at offset " + (r.window.start + r.done)
                    + " while reading " + r.dst.byteSize() + " bytes at offset " + r.offset
                    + " (file size " + r.file.size + ")"));
        } else if (-res == NativeFiles.Errno.EINTR || -res == NativeFiles.Errno.EAGAIN) {
            submit(r);
        } else {
            finish(r, new IOException(r.file.path + ": read of " + r.dst.byteSize() + " bytes at offset "
                    + r.offset + " failed: " + NativeFiles.describe(-res)));
        }
        while (freeCount > 0 && !waiting.isEmpty()) {
            submit(waiting.poll());
        }
    }

    private void finish(Read r, IOException error) {
        try {
            if (error == null && r.window.bounced) {
                try {
                    MemorySegment.copy(r.buffer, r.window.skip, writable(r.dst), 0, r.dst.byteSize());
                } catch (RuntimeException e) {
                    error = new IOException(r.describe() + ": the read bytes could not be copied out: " + e, e);
                }
            }
        } finally {
            if (r.window.bounced && r.buffer != null) {
                bounces.give(r.buffer);
            }
            r.file.release();
        }
        r.batch.done(error);
        if (pending.decrementAndGet() == 0 && stopping) {
            drained.complete(null);
        }
    }

    /**
     * {@code dst} as this thread may write it. A native destination may belong to a confined arena
     * of the thread that asked for the read; the kernel writes such memory by address, and so does
     * this copy: the contract of {@link #read} (the destination lives until the future completes)
     * is what keeps both safe.
     */
    private static MemorySegment writable(MemorySegment dst) {
        return dst.isNative() ? MemorySegment.ofAddress(dst.address()).reinterpret(dst.byteSize()) : dst;
    }

    private final class Handle implements IoUringIoHandle {
        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            complete((IoUringIoEvent) event);
        }

        @Override
        public void close() {
            // The registration lives as long as the reader; reads are failed by close(), not here.
        }
    }

    // ------------------------------------------------------------------ closing

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("block reader is closed");
        }
    }

    @Override
    public boolean onOwnThread() {
        return loop.inEventLoop();
    }

    /** Fails reads not yet submitted, waits (up to a minute) for those in the kernel, stops the ring. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (loop.inEventLoop()) {
            throw new IllegalStateException("the io_uring reader cannot be closed from its own thread");
        }
        loop.execute(() -> {
            stopping = true;
            while (!waiting.isEmpty()) {
                Read r = waiting.poll();
                finish(r, new IOException("block reader is closed: " + r.describe()));
            }
            if (pending.get() == 0) {
                drained.complete(null);
            }
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    drained.get(1, TimeUnit.MINUTES);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    break;  // reads stuck in the kernel for a minute: stop anyway, the ring's close cancels them
                }
            }
            registration.cancel();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (blockingReads.get() > 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                Thread.yield();
            }
            if (blockingReads.get() == 0) {
                bounces.close();
            }  // else a read hangs in the kernel: leave the buffers to it rather than free them under it
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ------------------------------------------------------------------ state of reads

    /** The reads of one {@link #read} call; the future completes when the last of them ends. */
    private static final class Batch {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        private int remaining;
        private IOException error;

        Batch(int reads) {
            this.remaining = reads;
        }

        /** Ring thread only. */
        void done(IOException e) {
            if (e != null && error == null) {
                error = e;
            }
            if (--remaining == 0) {
                if (error != null) {
                    future.completeExceptionally(error);
                } else {
                    future.complete(null);
                }
            }
        }
    }

    /** One read: where it goes, how much is done. Ring thread only once enqueued. */
    private static final class Read {
        final Batch batch;
        final RingFile file;
        final long offset;
        final MemorySegment dst;
        final Window window;
        /** Where the kernel writes: {@code dst}, or a bounce buffer; set when first submitted. */
        MemorySegment buffer;
        long done;

        Read(Batch batch, RingFile file, long offset, MemorySegment dst, boolean direct) {
            this.batch = batch;
            this.file = file;
            this.offset = offset;
            this.dst = dst;
            this.window = new Window(offset, dst, direct);
        }

        String describe() {
            return file.path + " at offset " + offset + " (" + dst.byteSize() + " bytes)";
        }
    }

    /**
     * An open descriptor with a reference count: one for being open, one per read in the ring. The
     * descriptor is closed when the count reaches zero.
     */
    private static final class RingFile implements BlockFile {
        final Path path;
        final int fd;
        final long size;
        private final AtomicInteger refs = new AtomicInteger(1);
        private final AtomicInteger openRef = new AtomicInteger(1);

        RingFile(Path path, int fd, long size) {
            this.path = path;
            this.fd = fd;
            this.size = size;
        }

        void acquire() throws IOException {
            while (true) {
                int n = refs.get();
                if (n == 0 || openRef.get() == 0) {
                    throw new IOException(path + " is closed");
                }
                if (refs.compareAndSet(n, n + 1)) {
                    return;
                }
            }
        }

        void release() {
            if (refs.decrementAndGet() == 0) {
                NativeFiles.close(fd, path);
            }
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public void close() {
            if (openRef.compareAndSet(1, 0)) {
                release();
            }
        }

        @Override
        public String toString() {
            return "BlockFile[" + path + ", io_uring]";
        }
    }
}
