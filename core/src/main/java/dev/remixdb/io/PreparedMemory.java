package dev.remixdb.io;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A block of {@link PageMemory} allocated and faulted in by a background thread before its owner
 * needs it: a memtable's next chunk, a point index's next table.
 *
 * <p>Why: the first write into a fresh huge page makes the kernel zero 2 MiB while the writing thread
 * waits, 1.5-5 ms on the virtual machines we measure on. A memtable fills a 2 MiB chunk every twelve
 * thousand puts of 136 bytes, so a writer that faults its own chunks stops for milliseconds hundreds
 * of times per million puts (a quarter of its time in a micro1 load, measured 2026-11-25). Prepared
 * here, the chunk is ready when the writer reaches it.
 *
 * <p>{@link #take()} returns the memory: at once when it is ready, after a wait when the background
 * thread is faulting it in (it has the head start), and allocated by the caller itself when the
 * background thread has not started on it (a backlog), so a caller never waits behind other owners'
 * work. {@link #cancel()} gives it up. The memory belongs to {@code arena} in every case: closing
 * the arena frees it, even when it closes while the memory is being prepared.
 *
 * <p>One daemon thread for the JVM does the work: faulting memory in is bound by the kernel's page
 * zeroing, which more threads would only share. It runs while any owner of memory to prepare is
 * open: owners {@link #register()} when they open and {@link #unregister()} when they close, and
 * the thread ends with the last one, so a store's close() leaves no thread of ours behind. A
 * preparation asked for while no owner is registered is done by {@link #take()} itself.
 */
public final class PreparedMemory {
    /** The background thread's executor while owners are registered, else null (guarded by the class). */
    private static ThreadPoolExecutor worker;
    private static int owners;
    /** Bytes faulted in per turn of the background thread. */
    private static final long STEP = 4L << 20;

    private enum State { QUEUED, RUNNING, DONE, TAKEN }

    private final Arena arena;
    private final long bytes;
    private State state = State.QUEUED;
    private MemorySegment memory;

    private PreparedMemory(Arena arena, long bytes) {
        this.arena = arena;
        this.bytes = bytes;
    }

    /** Starts preparing {@code bytes} of zero-filled memory owned by {@code arena} (a shared arena). */
    public static PreparedMemory prepare(Arena arena, long bytes) {
        PreparedMemory p = new PreparedMemory(arena, bytes);
        submit(p::run);
        return p;
    }

    /** Queues {@code task} for the background thread; false when there is none (no owner is registered). */
    private static synchronized boolean submit(Runnable task) {
        if (worker == null) {
            return false;
        }
        worker.execute(task);
        return true;
    }

    /** Owners registered now (tests). */
    static synchronized int owners() {
        return owners;
    }

    /** An owner of memory to prepare opened: the background thread runs until every owner has unregistered. */
    public static synchronized void register() {
        if (owners++ == 0) {
            // The thread is made by whichever caller submits first: it takes none of that caller's
            // inheritable thread locals or class loader with it.
            worker = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = Thread.ofPlatform().name("remixdb-prepare-memory").daemon(true)
                        .inheritInheritableThreadLocals(false).unstarted(r);
                t.setContextClassLoader(PreparedMemory.class.getClassLoader());
                return t;
            });
        }
    }

    /**
     * An owner closed (once per {@link #register()}). With the last one the background thread ends,
     * after the work queued, which for closed owners fails at once and is dropped.
     */
    public static synchronized void unregister() {
        if (owners == 0) {
            throw new IllegalStateException("unregister() without register()");
        }
        if (--owners == 0) {
            worker.shutdown();
            worker = null;
        }
    }

    /** The size asked for. */
    public long bytes() {
        return bytes;
    }

    private void run() {
        synchronized (this) {
            if (state != State.QUEUED) {
                return;  // taken or cancelled before this thread came to it
            }
            state = State.RUNNING;
        }
        MemorySegment m;
        try {
            m = PageMemory.allocate(arena, bytes);
        } catch (Throwable t) {
            // The arena closed (IllegalStateException) or memory ran out: take() allocates for
            // itself and meets the same condition in its owner's thread, where it is reported.
            finish(null);
            return;
        }
        touchFrom(m, 0);
    }

    /**
     * Faults {@code m} in from {@code at}, a step at a time: a large block (a point index's next
     * table, tens of megabytes) goes back in the queue after each step, so that the chunks other
     * writers wait for are not stuck behind it. Whatever happens, the preparation ends (a waiting
     * take() must never wait for a step that will not come).
     */
    private void touchFrom(MemorySegment m, long at) {
        MemorySegment result = m;
        try {
            long end = Math.min(m.byteSize(), at + STEP);
            PageMemory.touch(m.asSlice(at, end - at));
            if (end < m.byteSize() && running() && submit(() -> touchFrom(m, end))) {
                return;  // the next step finishes it
            }
            // All of it faulted in; or cancelled (finish leaves it so); or no background thread any
            // more (the last owner closed): the memory is valid, only not all faulted in.
        } catch (IllegalStateException e) {
            result = null;  // the arena closed: the memory went with it
        } catch (Throwable t) {
            // Anything else (out of memory for the next step's task): the memory is still usable.
        }
        finish(result);
    }

    private synchronized boolean running() {
        return state == State.RUNNING;
    }

    private synchronized void finish(MemorySegment m) {
        if (state == State.RUNNING) {  // else cancelled meanwhile: the arena keeps the memory
            memory = m;
            state = State.DONE;
        }
        notifyAll();
    }

    /**
     * The memory, zero-filled, of {@link #bytes()} bytes, owned by the arena. Once only: a second
     * call, one after {@link #cancel()}, or one after the arena closed throws {@link IllegalStateException}.
     */
    public MemorySegment take() {
        MemorySegment m;
        synchronized (this) {
            boolean interrupted = false;
            while (state == State.RUNNING) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    // The wait is for memory being zeroed, a few milliseconds: finish it, keep the flag.
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (state == State.TAKEN) {
                throw new IllegalStateException("prepared memory already taken or cancelled");
            }
            m = state == State.DONE ? memory : null;
            state = State.TAKEN;
            memory = null;
        }
        if (!arena.scope().isAlive()) {
            throw new IllegalStateException("the arena of this prepared memory is closed");
        }
        return m != null ? m : PageMemory.allocate(arena, bytes);
    }

    /**
     * Gives the memory up: not prepared if the background thread has not started on it; otherwise
     * it stays in the arena, freed when that closes.
     */
    public synchronized void cancel() {
        state = State.TAKEN;
        memory = null;
    }
}
