package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.remix.RemixModel.Kv;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link MemoryRun}, its cursor and {@link RunAddress}: the run contract a REMIX relies on. */
class MemoryRunTest {

    private static List<Kv> sample() {
        RandomRuns r = new RandomRuns(51).jumbo(0.05);
        return r.run(r.mixedKeys(800), 600);
    }

    private static byte[] bytes(MemorySegment s, long off, int len) {
        return s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    private static void assertAtKv(RunCursor c, Kv kv, String what) {
        assertTrue(c.isValid(), what + ": expected " + kv + ", cursor not valid");
        assertArrayEquals(kv.key(), bytes(c.keySegment(), c.keyOffset(), c.keyLength()), what + ": key");
        assertEquals(kv.tombstone(), c.isTombstone(), what + ": tombstone flag of " + kv);
        assertArrayEquals(kv.tombstone() ? new byte[0] : kv.value(),
                bytes(c.valueSegment(), c.valueOffset(), c.valueLength()), what + ": value of " + kv);
    }

    @ParameterizedTest(name = "blockBytes={0}")
    @ValueSource(ints = {64, 256, 4096})
    void blocksHoldEveryKeyOnceInOrder(int blockBytes) {
        List<Kv> kvs = sample();
        try (MemoryRun run = RemixFixture.openRun(kvs, blockBytes); RunCursor c = run.newCursor()) {
            assertEquals(kvs.size(), run.keyCount());
            long sum = 0;
            for (int b = 0; b < run.blockCount(); b++) {
                assertTrue(run.keyCount(b) >= 1, "block " + b + " is empty");
                sum += run.keyCount(b);
            }
            assertEquals(kvs.size(), sum, "keys in blocks");
            assertFalse(c.isValid(), "a new cursor is not positioned");
            c.seekTo(RunAddress.of(0, 0));
            for (int i = 0; i < kvs.size(); i++) {
                assertAtKv(c, kvs.get(i), "next #" + i);
                assertEquals(RemixInvariants.addressOf(run, i), c.address(), "address of key #" + i);
                c.next();
            }
            assertFalse(c.isValid());
            assertEquals(run.endAddress(), c.address());
            for (int i = kvs.size() - 1; i >= 0; i--) {
                c.prev();
                assertAtKv(c, kvs.get(i), "prev #" + i);
            }
            c.prev();
            assertFalse(c.isValid(), "prev before the first key");
        }
    }

    @Test
    void smallBlocksAreManyAndAJumboValueGetsABlockOfItsOwn() {
        byte[] jumbo = new byte[10_000];
        List<Kv> kvs = List.of(Kv.put(new byte[] {1}, new byte[8]), Kv.put(new byte[] {2}, jumbo),
                Kv.put(new byte[] {3}, new byte[8]));
        try (MemoryRun run = RemixFixture.openRun(kvs, 4096)) {
            assertEquals(3, run.blockCount());
            assertEquals(1, run.keyCount(1));
        }
        try (MemoryRun run = RemixFixture.openRun(sample(), 64)) {
            assertTrue(run.blockCount() > 100, "64-byte blocks: " + run.blockCount());
        }
    }

    @Test
    void aBlockHoldsAtMostTheAddressableKeys() {
        MemoryRun.Builder b = MemoryRun.builder().blockBytes(1 << 24);
        int n = RunAddress.MAX_KEYS_PER_BLOCK + 10;
        for (int i = 0; i < n; i++) {
            b.put(new byte[] {(byte) (i >>> 8), (byte) i}, new byte[0]);
        }
        try (MemoryRun run = b.build()) {
            assertEquals(2, run.blockCount());
            assertEquals(RunAddress.MAX_KEYS_PER_BLOCK, run.keyCount(0));
            assertEquals(10, run.keyCount(1));
        }
    }

    @Test
    void seekFindsTheFirstKeyAtOrAfterEveryProbe() {
        List<Kv> kvs = sample();
        List<byte[]> keys = kvs.stream().map(Kv::key).toList();
        try (MemoryRun run = RemixFixture.openRun(kvs, 128); RunCursor c = run.newCursor()) {
            for (byte[] probe : CursorChecker.probes(keys)) {
                c.seek(MemorySegment.ofArray(probe), 0, probe.length);
                int expected = 0;
                while (expected < keys.size() && Arrays.compareUnsigned(keys.get(expected), probe) < 0) {
                    expected++;
                }
                if (expected == keys.size()) {
                    assertFalse(c.isValid(), "seek past the last key " + RemixModel.hex(probe));
                    assertEquals(run.endAddress(), c.address());
                } else {
                    assertAtKv(c, kvs.get(expected), "seek " + RemixModel.hex(probe));
                }
            }
        }
    }

    @Test
    void skipMovesLikeRepeatedNextAndPrev() {
        List<Kv> kvs = sample();
        try (MemoryRun run = RemixFixture.openRun(kvs, 64); RunCursor c = run.newCursor()) {
            for (int from = 0; from < kvs.size(); from += 37) {
                for (int n : new int[] {0, 1, 2, 5, 17, 100, 1000}) {
                    c.seekTo(RemixInvariants.addressOf(run, from));
                    c.skip(n);
                    if (from + n < kvs.size()) {
                        assertAtKv(c, kvs.get(from + n), "skip(" + n + ") from #" + from);
                    } else {
                        assertFalse(c.isValid(), "skip(" + n + ") from #" + from);
                    }
                    if (from - n >= 0) {
                        c.seekTo(RemixInvariants.addressOf(run, from));
                        c.skip(-n);
                        assertAtKv(c, kvs.get(from - n), "skip(-" + n + ") from #" + from);
                    }
                }
            }
        }
    }

    @Test
    void theKeySourceYieldsEveryKeyWithItsTombstoneFlag() {
        List<Kv> kvs = sample();
        try (MemoryRun run = RemixFixture.openRun(kvs, 128); KeySource keys = run.keySource()) {
            for (Kv kv : kvs) {
                assertTrue(keys.next());
                assertArrayEquals(kv.key(), bytes(keys.keySegment(), keys.keyOffset(), keys.keyLength()));
                assertEquals(kv.tombstone(), keys.isTombstone());
            }
            assertFalse(keys.next());
        }
    }

    @Test
    void anEmptyRunHasNoBlocks() {
        try (MemoryRun run = MemoryRun.builder().build(); RunCursor c = run.newCursor()) {
            assertEquals(0, run.blockCount());
            assertEquals(0, run.keyCount());
            c.seekTo(run.endAddress());
            assertFalse(c.isValid());
            c.seek(MemorySegment.ofArray(new byte[0]), 0, 0);
            assertFalse(c.isValid());
        }
    }

    @Test
    void keysOutOfOrderOrRepeatedAreRefused() {
        MemoryRun.Builder b = MemoryRun.builder().put(new byte[] {5}, new byte[0]);
        assertThrows(IllegalArgumentException.class, () -> b.put(new byte[] {4}, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> b.put(new byte[] {5}, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> b.delete(new byte[] {5}));
        // a proper prefix sorts first, and bytes compare unsigned
        assertThrows(IllegalArgumentException.class, () -> b.put(new byte[0], new byte[0]));
        b.put(new byte[] {5, 0}, new byte[0]).put(new byte[] {(byte) 0x80}, new byte[0]);
        assertThrows(IllegalArgumentException.class, () -> b.put(new byte[] {0x7F}, new byte[0]));
        try (MemoryRun run = b.build()) {
            assertEquals(3, run.keyCount());
        }
    }

    @Test
    void aTooSmallBlockSizeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> MemoryRun.builder().blockBytes(63));
    }

    @Test
    void aClosedRunRefusesNewCursors() {
        MemoryRun run = MemoryRun.builder().put(new byte[] {1}, new byte[0]).build();
        run.close();
        run.close();
        assertThrows(IllegalStateException.class, run::newCursor);
    }

    @Test
    void aBuilderIsUsedOnce() {
        MemoryRun.Builder b = MemoryRun.builder();
        b.build().close();
        assertThrows(IllegalStateException.class, b::build);
        assertThrows(IllegalStateException.class, () -> b.put(new byte[] {1}, new byte[0]));
    }

    @Test
    void runAddressesPackBlockAndIndex() {
        for (int block : new int[] {0, 1, 4095, RunAddress.MAX_BLOCKS}) {
            for (int index : new int[] {0, 1, 2047, RunAddress.MAX_KEYS_PER_BLOCK}) {
                int a = RunAddress.of(block, index);
                assertEquals(block, RunAddress.block(a));
                assertEquals(index, RunAddress.index(a));
            }
        }
        assertTrue(Integer.compareUnsigned(RunAddress.of(RunAddress.MAX_BLOCKS, 0), RunAddress.of(1, 0)) > 0,
                "addresses order like (block, index) when compared unsigned");
        assertThrows(IllegalArgumentException.class, () -> RunAddress.of(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> RunAddress.of(RunAddress.MAX_BLOCKS + 1, 0));
        assertThrows(IllegalArgumentException.class, () -> RunAddress.of(0, RunAddress.MAX_KEYS_PER_BLOCK + 1));
    }

    @Test
    void advanceUsesTheBlockSizes() {
        List<Kv> kvs = sample();
        try (MemoryRun run = RemixFixture.openRun(kvs, 64)) {
            List<Integer> steps = new ArrayList<>(List.of(0, 1, 3, 50, kvs.size() - 1, kvs.size()));
            for (int n : steps) {
                assertEquals(RunAddress.toString(RemixInvariants.addressOf(run, n)),
                        RunAddress.toString(RunAddress.advance(run, RunAddress.of(0, 0), n)), "advance by " + n);
            }
            assertThrows(IllegalArgumentException.class, () -> RunAddress.advance(run, RunAddress.of(0, 0), kvs.size() + 1));
        }
    }
}
