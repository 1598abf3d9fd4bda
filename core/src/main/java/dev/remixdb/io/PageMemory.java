package dev.remixdb.io;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Large off-heap buffers (the block cache's slot chunks) as anonymous memory mappings on transparent
 * huge pages, owned by an {@link Arena}: the mapping is removed when the arena closes.
 *
 * <p>Why not {@link Arena#allocate}: it zero-fills the memory in Java, a pass over every byte before
 * first use, and the memory comes in 4 KiB pages, so filling a 1 GiB cache costs 262,144 page faults
 * and every random read of a cached block a likely TLB miss. An anonymous {@code mmap} is zero-filled
 * by the kernel on first touch, and {@code madvise(MADV_HUGEPAGE)} on a 2 MiB-aligned range lets the
 * kernel back it with 2 MiB pages (when transparent huge pages are set to {@code madvise} or
 * {@code always}; otherwise the advice is ignored and 4 KiB pages are used).
 *
 * <p>Falls back to {@link Arena#allocate} when the mapping is not available: not Linux on x86-64 or
 * AArch64 (the flag values below are theirs), native access not enabled for this module (so no
 * "restricted method" warning is ever printed on our account), {@code -Dremixdb.hugePages=false},
 * a request under 2 MiB, or a failed {@code mmap}.
 */
public final class PageMemory {
    /** Size and alignment of a huge page, and the smallest request that is mapped. */
    public static final long HUGE_PAGE = 2L << 20;

    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final int MADV_HUGEPAGE = 14;

    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle MADVISE;
    /** Bytes mapped now (invisible to Native Memory Tracking, so counted here). */
    private static final java.util.concurrent.atomic.AtomicLong MAPPED = new java.util.concurrent.atomic.AtomicLong();

    static {
        MethodHandle mmap = null;
        MethodHandle munmap = null;
        MethodHandle madvise = null;
        if (supported()) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
                madvise = linker.downcallHandle(libc.find("madvise").orElseThrow(), FunctionDescriptor.of(
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            } catch (RuntimeException e) {
                mmap = null;
            }
        }
        MMAP = mmap;
        MUNMAP = munmap;
        MADVISE = madvise;
    }

    private PageMemory() {}

    private static boolean supported() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))
                && PageMemory.class.getModule().isNativeAccessEnabled()
                && !"false".equals(System.getProperty("remixdb.hugePages"));
    }

    /** Bytes of all mappings made here and not yet removed, in this JVM. */
    public static long mappedBytes() {
        return MAPPED.get();
    }

    /** Whether requests of {@link #HUGE_PAGE} and more are mapped (else they come from the arena). */
    public static boolean mapping() {
        return MMAP != null;
    }

    /**
     * {@code bytes} of zero-filled memory, aligned to 4 KiB at least, freed when {@code arena} closes.
     * Requests of 2 MiB and more are mapped 2 MiB-aligned with huge pages advised when
     * {@link #mapping()}; others come from {@code arena.allocate}.
     */
    public static MemorySegment allocate(Arena arena, long bytes) {
        if (bytes < HUGE_PAGE || MMAP == null) {
            return arena.allocate(bytes, 4096);
        }
        long length = (bytes + HUGE_PAGE - 1) & -HUGE_PAGE;
        long mapped = length + HUGE_PAGE;  // room to cut the mapping down to a 2 MiB boundary
        long start;
        try {
            start = ((MemorySegment) MMAP.invokeExact(MemorySegment.NULL, mapped, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS, -1, 0L)).address();
        } catch (Throwable t) {
            return arena.allocate(bytes, 4096);
        }
        if (start == -1L) {  // MAP_FAILED: let the arena try, and fail with Java's own OutOfMemoryError
            return arena.allocate(bytes, 4096);
        }
        long aligned = (start + HUGE_PAGE - 1) & -HUGE_PAGE;
        unmap(start, aligned - start);
        unmap(aligned + length, start + mapped - (aligned + length));
        try {
            int ignored = (int) MADVISE.invokeExact(MemorySegment.ofAddress(aligned), length, MADV_HUGEPAGE);
        } catch (Throwable t) {
            // Only advice: the mapping works with 4 KiB pages.
        }
        MemorySegment segment;
        try {
            segment = MemorySegment.ofAddress(aligned).reinterpret(bytes, arena, s -> {
                unmap(aligned, length);
                MAPPED.addAndGet(-length);
            });
        } catch (RuntimeException e) {
            // The arena closed meanwhile (a background preparation racing a close): nothing owns
            // the mapping, so it goes now.
            unmap(aligned, length);
            throw e;
        }
        MAPPED.addAndGet(length);
        return segment;
    }

    /** Bytes between two writes of {@link #touch}: the smallest page size. */
    private static final long SMALL_PAGE = 4096;

    /**
     * Writes a zero into every 4 KiB page of {@code segment} (zero-filled memory nobody uses yet), so
     * that the kernel backs all of it now: page faults, and the zeroing of a whole huge page at its
     * first touch (milliseconds on a virtual machine), are then paid by the caller's thread, not by
     * whoever writes into the memory first.
     */
    public static void touch(MemorySegment segment) {
        long size = segment.byteSize();
        for (long at = 0; at < size; at += SMALL_PAGE) {
            segment.set(ValueLayout.JAVA_BYTE, at, (byte) 0);
        }
    }

    private static void unmap(long address, long length) {
        if (length == 0) {
            return;
        }
        try {
            int ignored = (int) MUNMAP.invokeExact(MemorySegment.ofAddress(address), length);
        } catch (Throwable t) {
            // munmap of a range we mapped fails only on a bad argument: nothing to recover.
        }
    }
}
