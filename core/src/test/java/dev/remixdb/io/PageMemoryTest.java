package dev.remixdb.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class PageMemoryTest {
    /** The tests run with native access enabled on Linux x86-64, where mapping must be on. */
    @Test
    void mapsHugePageAlignedZeroFilledMemoryThatClosingTheArenaFrees() {
        if (System.getProperty("os.name", "").startsWith("Linux")) {
            assertTrue(PageMemory.mapping(), "mmap is available on Linux with native access enabled");
        }
        MemorySegment m;
        try (Arena arena = Arena.ofShared()) {
            long bytes = 3 * PageMemory.HUGE_PAGE + 4096;
            m = PageMemory.allocate(arena, bytes);
            assertEquals(bytes, m.byteSize());
            if (PageMemory.mapping()) {
                assertEquals(0, m.address() % PageMemory.HUGE_PAGE);
            }
            for (long at = 0; at < bytes; at += 4096) {
                assertEquals(0, m.get(ValueLayout.JAVA_LONG, at), "zero-filled at " + at);
                m.set(ValueLayout.JAVA_LONG, at, at ^ 0x5A5A);
            }
            for (long at = 0; at < bytes; at += 4096) {
                assertEquals(at ^ 0x5A5A, m.get(ValueLayout.JAVA_LONG, at));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> m.get(ValueLayout.JAVA_BYTE, bytes));
        }
        assertThrows(IllegalStateException.class, () -> m.get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void smallRequestsComeFromTheArenaPageAligned() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = PageMemory.allocate(arena, 12_345);
            assertEquals(12_345, m.byteSize());
            assertEquals(0, m.address() % 4096);
            assertEquals(0, m.get(ValueLayout.JAVA_BYTE, 12_344));
        }
    }

    /** Many map/unmap cycles must not leak mappings (each would keep its pages). */
    @Test
    void closingReleasesEveryMapping() {
        long before = mappingCount();
        for (int i = 0; i < 200; i++) {
            try (Arena arena = Arena.ofShared()) {
                MemorySegment m = PageMemory.allocate(arena, 64 * PageMemory.HUGE_PAGE);  // 128 MiB each
                m.set(ValueLayout.JAVA_LONG, m.byteSize() - 8, i);
            }
        }
        // A leak would leave 200 more lines in /proc/self/maps (other threads may add a few).
        long after = mappingCount();
        assertTrue(after - before < 50, "mappings before " + before + ", after " + after);
    }

    private static long mappingCount() {
        try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/self/maps"))) {
            return lines.count();
        } catch (java.io.IOException e) {
            return 0;  // not Linux: nothing to count
        }
    }
}
