package dev.remixdb.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code open(2)}, {@code close(2)} and {@code fstat}'s size through FFM downcalls, for the
 * io_uring reader, which needs a raw descriptor. Netty's own {@code FileDescriptor.from(path)} is not
 * used: it opens with {@code O_CREAT | O_TRUNC} and would empty the table it was asked to read.
 *
 * <p>Available on Linux x86-64 and AArch64 (the flag values below are theirs) when native access is
 * enabled for this module; {@link #unavailableReason()} says why not otherwise.
 */
final class NativeFiles {
    static final int O_RDONLY = 0;
    static final int O_CLOEXEC = 0x80000;
    private static final int O_DIRECT_X86 = 0x4000;
    private static final int O_DIRECT_ARM = 0x10000;
    private static final int SEEK_END = 2;

    private static final StructLayout ERRNO_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = ERRNO_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle OPEN;
    private static final MethodHandle CLOSE;
    private static final MethodHandle LSEEK;
    private static final MethodHandle STRERROR;
    private static final MethodHandle PREAD;
    private static final String UNAVAILABLE;

    static {
        MethodHandle open = null;
        MethodHandle close = null;
        MethodHandle lseek = null;
        MethodHandle strerror = null;
        MethodHandle pread = null;
        String why = null;
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.startsWith("linux")) {
            why = "not Linux (" + os + ")";
        } else if (!(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            why = "unsupported architecture " + arch;
        } else if (!NativeFiles.class.getModule().isNativeAccessEnabled()) {
            why = "native access is not enabled for " + moduleName()
                    + " (add --enable-native-access=" + moduleName() + ")";
        } else {
            try {
                Linker linker = Linker.nativeLinker();
                var libc = linker.defaultLookup();
                Linker.Option errno = Linker.Option.captureCallState("errno");
                open = linker.downcallHandle(libc.find("open").orElseThrow(), FunctionDescriptor.of(
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), errno,
                        Linker.Option.firstVariadicArg(2));
                close = linker.downcallHandle(libc.find("close").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), errno);
                lseek = linker.downcallHandle(libc.find("lseek").orElseThrow(), FunctionDescriptor.of(
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), errno);
                pread = linker.downcallHandle(libc.find("pread").orElseThrow(), FunctionDescriptor.of(
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG), errno);
                strerror = linker.downcallHandle(libc.find("strerror").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            } catch (RuntimeException e) {
                why = "libc downcalls failed: " + e;
                open = null;
            }
        }
        OPEN = open;
        CLOSE = close;
        LSEEK = lseek;
        STRERROR = strerror;
        PREAD = pread;
        UNAVAILABLE = why;
    }

    private NativeFiles() {}

    private static String moduleName() {
        Module m = NativeFiles.class.getModule();
        return m.isNamed() ? m.getName() : "ALL-UNNAMED";
    }

    /** Null when descriptors can be opened here; else why not. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    static int directFlag() {
        return System.getProperty("os.arch", "").equals("aarch64") ? O_DIRECT_ARM : O_DIRECT_X86;
    }

    /** Opens {@code path} read-only ({@code O_CLOEXEC}, plus {@code extraFlags}); returns the descriptor. */
    static int openReadOnly(Path path, int extraFlags) throws IOException {
        check();
        try (Arena arena = Arena.ofConfined()) {
            byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
            MemorySegment cName = arena.allocate(name.length + 1L);
            MemorySegment.copy(name, 0, cName, ValueLayout.JAVA_BYTE, 0, name.length);
            MemorySegment state = arena.allocate(ERRNO_STATE);
            int fd = (int) OPEN.invokeExact(state, cName, O_RDONLY | O_CLOEXEC | extraFlags);
            if (fd < 0) {
                int e = (int) ERRNO.get(state, 0L);
                throw Errno.exception(e, path + ": open failed: " + describe(e));
            }
            return fd;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The size of the file behind {@code fd} (by seeking to its end; reads are positional). */
    static long size(int fd, Path path) throws IOException {
        check();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(ERRNO_STATE);
            long size = (long) LSEEK.invokeExact(state, fd, 0L, SEEK_END);
            if (size < 0) {
                int e = (int) ERRNO.get(state, 0L);
                throw new IOException(path + ": size failed: " + describe(e));
            }
            return size;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * One {@code pread(2)} into native memory on the calling thread: the bytes read (fewer at the end
     * of the file, 0 past it), retried on {@code EINTR}.
     */
    static long pread(int fd, MemorySegment dst, long offset, MemorySegment errnoState, Path path) throws IOException {
        while (true) {
            long n;
            try {
                n = (long) PREAD.invokeExact(errnoState, fd, dst, dst.byteSize(), offset);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
            if (n >= 0) {
                return n;
            }
            int e = (int) ERRNO.get(errnoState, 0L);
            if (e != Errno.EINTR) {
                throw new IOException(path + ": read of " + dst.byteSize() + " bytes at offset " + offset
                        + " failed: " + describe(e));
            }
        }
    }

    /** Room for {@link #pread}'s errno, from {@code arena}. */
    static MemorySegment errnoState(Arena arena) {
        return arena.allocate(ERRNO_STATE);
    }

    /** Closes {@code fd}; a failure is reported, since a read-only descriptor has nothing to lose. */
    static void close(int fd, Path path) {
        check();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(ERRNO_STATE);
            int r = (int) CLOSE.invokeExact(state, fd);
            if (r < 0) {
                int e = (int) ERRNO.get(state, 0L);
                throw new UncheckedIOException(new IOException(path + ": close failed: " + describe(e)));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** "ENOENT (No such file or directory)"-style text for an errno value. */
    static String describe(int errno) {
        String text = null;
        if (STRERROR != null) {
            try {
                MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
                text = s.reinterpret(4096).getString(0);
            } catch (Throwable t) {
                text = null;
            }
        }
        return "errno " + errno + (text == null ? "" : " (" + text + ")");
    }

    private static void check() {
        if (UNAVAILABLE != null) {
            throw new UnsupportedOperationException("native file access unavailable: " + UNAVAILABLE);
        }
    }

    /** Exceptions for errno values that have a Java type of their own. */
    static final class Errno {
        static final int ENOENT = 2;
        static final int EINTR = 4;
        static final int EAGAIN = 11;
        static final int ECANCELED = 125;

        private Errno() {}

        static IOException exception(int errno, String message) {
            if (errno == ENOENT) {
                return new java.nio.file.NoSuchFileException(message);
            }
            return new IOException(message);
        }
    }
}
