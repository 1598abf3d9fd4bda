package dev.remixdb.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PreparedMemoryTest {
    private static final long BYTES = 3 * PageMemory.HUGE_PAGE;

    /** Each test is an owner, as a memtable or a block cache is, so that the background thread runs. */
    @BeforeEach
    void register() {
        PreparedMemory.register();
    }

    @AfterEach
    void unregister() {
        PreparedMemory.unregister();
    }

    /**
     * The background thread ends with the last owner, and take() then allocates by itself. Other
     * tests in this JVM may have left owners open (a store abandoned as a crash would): then the
     * thread must keep running for them instead.
     */
    @Test
    void theThreadEndsWithTheLastOwnerAndTakeStillWorks() throws Exception {
        int others = PreparedMemory.owners() - 1;
        PreparedMemory.unregister();
        try {
            Thread worker = null;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().equals("remixdb-prepare-memory")) {
                    worker = t;
                }
            }
            if (others == 0 && worker != null) {
                worker.join(5_000);
                assertTrue(!worker.isAlive(), "the background thread outlived its last owner");
            } else if (others > 0) {
                assertTrue(worker != null && worker.isAlive(), others + " owners left, but no background thread");
            }
            try (Arena arena = Arena.ofShared()) {
                MemorySegment m = PreparedMemory.prepare(arena, BYTES).take();
                assertEquals(BYTES, m.byteSize());
                assertEquals(0, m.get(ValueLayout.JAVA_LONG, BYTES - 8));
            }
        } finally {
            PreparedMemory.register();
        }
    }

    @Test
    void takeReturnsZeroFilledMemoryOfTheArenaOnce() {
        MemorySegment m;
        try (Arena arena = Arena.ofShared()) {
            PreparedMemory p = PreparedMemory.prepare(arena, BYTES);
            m = p.take();
            assertEquals(BYTES, m.byteSize());
            for (long at = 0; at < BYTES; at += 4096) {
                assertEquals(0, m.get(ValueLayout.JAVA_LONG, at), "zero-filled at " + at);
                m.set(ValueLayout.JAVA_LONG, at, at);
            }
            assertEquals(BYTES - 4096, m.get(ValueLayout.JAVA_LONG, BYTES - 4096));
            assertThrows(IllegalStateException.class, p::take, "a second take");
        }
        assertThrows(IllegalStateException.class, () -> m.get(ValueLayout.JAVA_LONG, 0), "freed with the arena");
    }

    @Test
    void aCancelledPreparationCannotBeTaken() {
        try (Arena arena = Arena.ofShared()) {
            PreparedMemory p = PreparedMemory.prepare(arena, BYTES);
            p.cancel();
            assertThrows(IllegalStateException.class, p::take);
        }
    }

    /** Many owners at once, some taking at once (before the background thread got to them): all distinct. */
    @Test
    void everyTakeGetsItsOwnMemory() {
        try (Arena arena = Arena.ofShared()) {
            List<PreparedMemory> prepared = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                prepared.add(PreparedMemory.prepare(arena, BYTES));
            }
            List<MemorySegment> taken = new ArrayList<>();
            for (int i = 0; i < prepared.size(); i++) {
                MemorySegment m = prepared.get(i).take();
                m.set(ValueLayout.JAVA_INT, 0, i);
                m.set(ValueLayout.JAVA_INT, BYTES - 4, i);
                taken.add(m);
            }
            for (int i = 0; i < taken.size(); i++) {
                assertEquals(i, taken.get(i).get(ValueLayout.JAVA_INT, 0));
                assertEquals(i, taken.get(i).get(ValueLayout.JAVA_INT, BYTES - 4));
            }
        }
    }

    /**
     * An arena closed while its memory is queued or being prepared: nothing leaks (no mapping stays),
     * and a take afterwards fails as an allocation from a closed arena does.
     */
    @Test
    void closingTheArenaDuringPreparationLeaksNothing() throws Exception {
        long before = mappingCount();
        for (int i = 0; i < 100; i++) {
            Arena arena = Arena.ofShared();
            PreparedMemory p = PreparedMemory.prepare(arena, 16 * PageMemory.HUGE_PAGE);
            if (i % 3 == 1) {
                Thread.sleep(1);  // sometimes while the background thread is at it
            }
            arena.close();
            if (i % 2 == 0) {
                assertThrows(IllegalStateException.class, p::take);
            } else {
                p.cancel();
            }
        }
        // Let the background thread finish whatever it had queued for the closed arenas.
        try (Arena arena = Arena.ofShared()) {
            PreparedMemory.prepare(arena, PageMemory.HUGE_PAGE).take();
        }
        Thread.sleep(100);
        long after = mappingCount();
        assertTrue(after - before < 30, "mappings before " + before + ", after " + after);
        assertTrue(PageMemory.mappedBytes() < 16 * PageMemory.HUGE_PAGE * 10, "mapped " + PageMemory.mappedBytes());
    }

    private static long mappingCount() {
        try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/self/maps"))) {
            return lines.count();
        } catch (java.io.IOException e) {
            return 0;
        }
    }
}
