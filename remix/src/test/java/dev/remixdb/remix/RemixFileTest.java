package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.remixdb.remix.RemixCursor.Mode;
import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.Scenarios.Case;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RemixFile}: what is written reads back as the same REMIX, and any damage to the file (a
 * flipped bit anywhere, a truncation, extra bytes) is a {@link CorruptionException} naming the file,
 * never a wrong REMIX.
 */
class RemixFileTest {
    @TempDir
    Path dir;

    static List<Case> cases() {
        return Scenarios.cases().toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aWrittenRemixReadsBackTheSame(Case c) throws IOException {
        Path file = dir.resolve("remix");
        try (RemixFixture f = c.open()) {
            RemixFile.write(f.remix, file);
            try (Remix read = RemixFile.read(file, f.runs)) {
                RemixRebuildTest.assertSameStructure(f.remix, read);
                f.remix.close();  // the copy read from the file does not depend on the original
                CursorChecker checker = new CursorChecker(read, f.model, Mode.ALL_VERSIONS, SeekStrategy.FULL, c + ", read from file");
                checker.assertIteration();
                checker.assertGets(CursorChecker.probes(f.model.keys()));
            }
        }
    }

    /** A REMIX loaded from a file is as good a base for a rebuild as a built one. */
    @Test
    void aRemixReadFromAFileCanBeRebuilt() throws IOException {
        Path file = dir.resolve("remix");
        RandomRuns r = new RandomRuns(83);
        Dataset data = r.runs(r.mixedKeys(500), 6, 250);
        List<MemoryRun> runs = RemixFixture.openRuns(data, 64);
        RemixConfig config = new RemixConfig(16, true);
        try {
            try (Remix old = Remix.build(runs.subList(0, 4), config)) {
                RemixFile.write(old, file);
            }
            try (Remix read = RemixFile.read(file, runs.subList(0, 4));
                 Remix rebuilt = Remix.rebuild(read, runs.subList(4, 6), null);
                 Remix fresh = Remix.build(runs, config)) {
                RemixRebuildTest.assertSameStructure(fresh, rebuilt);
            }
        } finally {
            RemixFixture.closeAll(runs);
        }
    }

    @Test
    void writingReplacesAnExistingFile() throws IOException {
        Path file = dir.resolve("remix");
        try (RemixFixture big = fixture(71, 8, 300); RemixFixture small = fixture(72, 2, 20)) {
            RemixFile.write(big.remix, file);
            RemixFile.write(small.remix, file);
            try (Remix read = RemixFile.read(file, small.runs)) {
                RemixRebuildTest.assertSameStructure(small.remix, read);
            }
        }
    }

    /** Every byte of a small file, damaged one at a time, is caught. */
    @Test
    void aFlippedBitInAnyByteIsReported() throws IOException {
        Path file = dir.resolve("small");
        try (RemixFixture f = fixture(73, 3, 12)) {
            RemixFile.write(f.remix, file);
            byte[] good = Files.readAllBytes(file);
            assertTrue(good.length < 2000, "a small file: " + good.length);
            for (int at = 0; at < good.length; at++) {
                byte[] bad = good.clone();
                bad[at] ^= (byte) (1 << (at % 8));
                assertCorrupt(file, bad, f.runs, at, "bit " + (at % 8) + " of byte " + at + " of " + good.length);
            }
        }
    }

    /** A few hundred random bit flips, one or several at a time, in a larger file. */
    @Test
    void randomBitFlipsInALargerFileAreReported() throws IOException {
        Path file = dir.resolve("large");
        Random rnd = new Random(74);
        try (RemixFixture f = fixture(75, 8, 800)) {
            RemixFile.write(f.remix, file);
            byte[] good = Files.readAllBytes(file);
            for (int i = 0; i < 300; i++) {
                byte[] bad = good.clone();
                int flips = 1 + (i % 3);
                int first = Integer.MAX_VALUE;
                StringBuilder what = new StringBuilder("bits flipped at");
                for (int k = 0; k < flips; k++) {
                    int bit = rnd.nextInt(good.length * 8);
                    bad[bit / 8] ^= (byte) (1 << (bit % 8));
                    first = Math.min(first, bit / 8);
                    what.append(' ').append(bit / 8).append('.').append(bit % 8);
                }
                if (!Arrays.equals(bad, good)) {
                    assertCorrupt(file, bad, f.runs, first, what.toString());
                }
            }
        }
    }

    @Test
    void aZeroedPageIsReported() throws IOException {
        Path file = dir.resolve("torn");
        try (RemixFixture f = fixture(76, 8, 800)) {
            RemixFile.write(f.remix, file);
            byte[] good = Files.readAllBytes(file);
            for (int page = 0; page * 4096 < good.length; page++) {
                byte[] bad = good.clone();
                Arrays.fill(bad, page * 4096, Math.min(good.length, page * 4096 + 4096), (byte) 0);
                assertCorrupt(file, bad, f.runs, Integer.MAX_VALUE, "page " + page + " zeroed");
            }
        }
    }

    @Test
    void aTruncatedFileIsReported() throws IOException {
        Path file = dir.resolve("truncated");
        Random rnd = new Random(77);
        try (RemixFixture f = fixture(78, 4, 300)) {
            RemixFile.write(f.remix, file);
            byte[] good = Files.readAllBytes(file);
            int[] fixed = {0, 1, 8, 63, 64, 65, good.length / 2, good.length - 4, good.length - 1};
            for (int len : fixed) {
                assertCorrupt(file, Arrays.copyOf(good, len), f.runs, len, "truncated to " + len + " of " + good.length);
            }
            for (int i = 0; i < 100; i++) {
                int len = rnd.nextInt(good.length);
                assertCorrupt(file, Arrays.copyOf(good, len), f.runs, len, "truncated to " + len + " of " + good.length);
            }
        }
    }

    @Test
    void bytesAfterTheEndAreReported() throws IOException {
        Path file = dir.resolve("extended");
        try (RemixFixture f = fixture(79, 2, 50)) {
            RemixFile.write(f.remix, file);
            byte[] good = Files.readAllBytes(file);
            for (int extra : new int[] {1, 4, 100}) {
                assertCorrupt(file, Arrays.copyOf(good, good.length + extra), f.runs, Integer.MAX_VALUE,
                        extra + " bytes appended");
            }
        }
    }

    @Test
    void aRemixIsNotBoundToADifferentNumberOfRuns() throws IOException {
        Path file = dir.resolve("remix");
        try (RemixFixture f = fixture(80, 3, 50)) {
            RemixFile.write(f.remix, file);
            assertThrows(IllegalArgumentException.class, () -> RemixFile.read(file, f.runs.subList(0, 2)).close());
        }
    }

    /** The file records each run's key count: the same runs in another order are refused. */
    @Test
    void aRemixIsNotBoundToItsRunsInAnotherOrder() throws IOException {
        Path file = dir.resolve("remix");
        try (RemixFixture f = fixture(82, 3, 300)) {
            RemixFile.write(f.remix, file);
            List<MemoryRun> swapped = List.of(f.runs.get(1), f.runs.get(0), f.runs.get(2));
            assertNotEquals(f.runs.get(0).keyCount(), f.runs.get(1).keyCount(), "the fixture needs runs of different sizes");
            CorruptionException e = assertThrows(CorruptionException.class, () -> RemixFile.read(file, swapped).close());
            assertEquals(file, e.file());
            assertTrue(e.getMessage().contains("run 0 has"), e.getMessage());
        }
    }

    /** Cursor offsets that point outside the given runs mean the file does not belong to them. */
    @Test
    void aRemixIsNotBoundToRunsTooShortForIt() throws IOException {
        Path file = dir.resolve("remix");
        try (RemixFixture f = fixture(81, 3, 200);
             RemixFixture empty = RemixFixture.build(new Dataset(List.of(List.of(), List.of(), List.of())), RemixConfig.DEFAULT, 64)) {
            RemixFile.write(f.remix, file);
            CorruptionException e = assertThrows(CorruptionException.class, () -> RemixFile.read(file, empty.runs).close());
            assertEquals(file, e.file());
        }
    }

    @Test
    void aClosedRemixIsNotWritten() {
        try (RemixFixture f = fixture(82, 1, 10)) {
            f.remix.close();
            assertThrows(IllegalStateException.class, () -> RemixFile.write(f.remix, dir.resolve("closed")));
        }
    }

    private static RemixFixture fixture(long seed, int runs, int keys) {
        RandomRuns r = new RandomRuns(seed);
        return RemixFixture.build(r.runs(r.mixedKeys(Math.max(300, 2 * keys)), runs, keys), new RemixConfig(16, true), 128);
    }

    /**
     * Reading {@code content} must throw a {@link CorruptionException} that names {@code file} and an
     * offset in the file no later than {@code damagedAt}, the first damaged byte.
     */
    private static void assertCorrupt(Path file, byte[] content, List<MemoryRun> runs, long damagedAt, String what)
            throws IOException {
        Files.write(file, content);
        Remix read;
        try {
            read = RemixFile.read(file, runs);
        } catch (CorruptionException e) {
            assertEquals(file, e.file(), what + ": the exception names the file");
            assertTrue(e.offset() >= 0 && e.offset() <= Math.min(damagedAt, content.length),
                    what + ": offset " + e.offset() + " of the damage");
            return;
        } catch (IOException | RuntimeException e) {
            throw new AssertionError(what + ": expected CorruptionException, got " + e, e);
        }
        read.close();
        fail(what + ": the damaged file was read as a REMIX");
    }
}
