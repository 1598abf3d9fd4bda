package dev.remixdb.remix;

import dev.remixdb.util.Checksums;
import dev.remixdb.util.NativeBuffer;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The persistent form of a {@link Remix}. Little-endian; every part is covered by a CRC32C, so any
 * damage is reported as a {@link CorruptionException} naming the file and offset.
 *
 * <pre>
 * offset  size        field
 * 0       8           magic "RMXINDEX"
 * 8       4           format version (1)
 * 12      4           flags: bit 0 = hash tags present
 * 16      4           H, run count
 * 20      4           D, segment size
 * 24      8           S, segment count
 * 32      8           key count (slots holding a version)
 * 40      8           A, total anchor bytes
 * 48      8           file length
 * 56      4           reserved (0)
 * 60      4           CRC32C of bytes [0, 60)
 * 64      8H          key count of each run   then u32 CRC32C of the section
 *         4(S+1)      anchor offsets          then u32 CRC32C
 *         A           anchor bytes            then u32 CRC32C
 *         S × R       segment records         then u32 CRC32C
 * </pre>
 * A segment record (R bytes) is D selectors, D tags when flag bit 0 is set, and H u32 cursor
 * offsets, as in memory (see {@link Remix}).
 *
 * <p>The run key counts let {@link #read} refuse runs other than those the REMIX was built over.
 *
 * <p>The file is read into native memory (not mapped), so a file that is truncated or replaced
 * while in use cannot crash the JVM.
 */
public final class RemixFile {
    /** "RMXINDEX" as a little-endian long. */
    public static final long MAGIC = 0x5845_444E_4958_4D52L;
    public static final int VERSION = 1;
    static final int HEADER = 64;
    private static final ValueLayout.OfLong LONG = NativeBuffer.LONG;
    private static final ValueLayout.OfInt INT = NativeBuffer.INT;

    private RemixFile() {}

    /** Writes {@code remix} to {@code file} (created or replaced) and forces it to disk. */
    public static void write(Remix remix, Path file) throws IOException {
        remix.checkOpen();
        MemorySegment[] sections = sections(remix);
        long length = HEADER + 8L * remix.runCount() + 4;
        for (MemorySegment s : sections) {
            length += s.byteSize() + 4;
        }
        try (Arena arena = Arena.ofConfined();
             FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.TRUNCATE_EXISTING)) {
            MemorySegment header = arena.allocate(HEADER);
            header.set(LONG, 0, MAGIC);
            header.set(INT, 8, VERSION);
            header.set(INT, 12, remix.hasTags() ? 1 : 0);
            header.set(INT, 16, remix.runCount());
            header.set(INT, 20, remix.segmentSize());
            header.set(LONG, 24, remix.segmentCount());
            header.set(LONG, 32, remix.keyCount());
            header.set(LONG, 40, remix.anchorBytesTotal());
            header.set(LONG, 48, length);
            header.set(INT, 60, Checksums.crc32c(header, 0, 60));
            writeFully(ch, header);
            MemorySegment crc = arena.allocate(4);
            MemorySegment counts = arena.allocate(8L * remix.runCount() + 1).asSlice(0, 8L * remix.runCount());
            for (int r = 0; r < remix.runCount(); r++) {
                counts.set(LONG, 8L * r, remix.run(r).keyCount());
            }
            writeFully(ch, counts);
            crc.set(INT, 0, Checksums.crc32c(counts, 0, counts.byteSize()));
            writeFully(ch, crc);
            for (MemorySegment s : sections) {
                writeFully(ch, s);
                crc.set(INT, 0, Checksums.crc32c(s, 0, s.byteSize()));
                writeFully(ch, crc);
            }
            ch.force(true);
        }
    }

    /**
     * Reads a REMIX written by {@link #write} and binds it to {@code runs} (the same runs, in the
     * same order, as when it was built).
     *
     * @throws CorruptionException when a checksum, the magic, the version or a length does not
     *                             match, or a cursor offset lies outside its run
     */
    public static Remix read(Path file, List<? extends Run> runs) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            Remix remix = read(file, runs, arena);
            return remix;
        } catch (IOException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private static Remix read(Path file, List<? extends Run> runs, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < HEADER) {
                throw new CorruptionException(file, 0, "file of " + size + " bytes is shorter than the "
                        + HEADER + "-byte header");
            }
            MemorySegment data = arena.allocate(size, 8);
            readFully(ch, data, file);
            checkCrc(file, data, 0, 60, 60);
            if (data.get(LONG, 0) != MAGIC) {
                throw new CorruptionException(file, 0, "bad magic, not a REMIX file");
            }
            int version = data.get(INT, 8);
            if (version != VERSION) {
                throw new CorruptionException(file, 8, "unsupported REMIX format version " + version
                        + " (this build reads " + VERSION + ")");
            }
            boolean tags = (data.get(INT, 12) & 1) != 0;
            int h = data.get(INT, 16);
            int d = data.get(INT, 20);
            long segments = data.get(LONG, 24);
            long keys = data.get(LONG, 32);
            long anchorBytes = data.get(LONG, 40);
            long length = data.get(LONG, 48);
            if (length != size) {
                throw new CorruptionException(file, 48, "header says " + length + " bytes, file has " + size);
            }
            if (h != runs.size()) {
                throw new IllegalArgumentException(file + " indexes " + h + " runs, but " + runs.size() + " were given");
            }
            new RemixConfig(d, tags);  // validates D before it sizes anything
            long[] lengths = {8L * h, 4 * (segments + 1), anchorBytes, segments * Remix.recordSize(h, d, tags)};
            MemorySegment[] parts = new MemorySegment[lengths.length];
            long at = HEADER;
            for (int i = 0; i < lengths.length; i++) {
                if (at + lengths[i] + 4 > size) {
                    throw new CorruptionException(file, at, "section " + i + " of " + lengths[i]
                            + " bytes runs past the end of the file");
                }
                checkCrc(file, data, at, lengths[i], at + lengths[i]);
                parts[i] = data.asSlice(at, lengths[i]);
                at += lengths[i] + 4;
            }
            if (at != size) {
                throw new CorruptionException(file, at, (size - at) + " unexpected bytes after the last section");
            }
            for (int r = 0; r < h; r++) {
                long expected = parts[0].get(LONG, 8L * r);
                if (runs.get(r).keyCount() != expected) {
                    throw new CorruptionException(file, HEADER + 8L * r, "run " + r + " has " + runs.get(r).keyCount()
                            + " keys but this REMIX was built over a run of " + expected);
                }
            }
            Remix remix = new Remix(arena, runs, d, segments, keys, tags, parts[1], parts[2], parts[3]);
            checkBounds(file, remix, runs);
            return remix;
        }
    }

    /** Cursor offsets must address keys inside their runs: catches a REMIX bound to the wrong runs. */
    private static void checkBounds(Path file, Remix remix, List<? extends Run> runs) {
        int h = runs.size();
        for (int r = 0; r < h; r++) {
            int blocks = runs.get(r).blockCount();
            for (long s = 0; s < remix.segmentCount(); s++) {
                int address = remix.cursorOffset(s, r);
                int block = RunAddress.block(address);
                if (block > blocks || (block < blocks && RunAddress.index(address) >= runs.get(r).keyCount(block))
                        || (block == blocks && RunAddress.index(address) != 0)) {
                    throw new CorruptionException(file, HEADER + 8L * h + 4 + 4 * (remix.segmentCount() + 1) + 4
                            + remix.anchorBytesTotal() + 4 + s * remix.recordSize(),
                            "cursor offset " + RunAddress.toString(address) + " of run " + r + " in segment " + s
                                    + " is outside the run (" + blocks + " blocks)");
                }
            }
        }
    }

    private static MemorySegment[] sections(Remix remix) {
        return new MemorySegment[] {remix.anchorOffsets(), remix.anchorBytes(), remix.records()};
    }

    private static void checkCrc(Path file, MemorySegment data, long from, long len, long crcAt) {
        int expected = data.get(INT, crcAt);
        int actual = Checksums.crc32c(data, from, len);
        if (expected != actual) {
            throw new CorruptionException(file, from, String.format(
                    "checksum mismatch over %d bytes: stored %08x, computed %08x", len, expected, actual));
        }
    }


    private static void writeFully(FileChannel ch, MemorySegment s) throws IOException {
        for (long at = 0; at < s.byteSize(); at += Integer.MAX_VALUE) {
            ByteBuffer b = s.asSlice(at, Math.min(Integer.MAX_VALUE, s.byteSize() - at)).asByteBuffer();
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }
    }

    private static void readFully(FileChannel ch, MemorySegment s, Path file) throws IOException {
        long pos = 0;
        for (long at = 0; at < s.byteSize(); at += Integer.MAX_VALUE) {
            ByteBuffer b = s.asSlice(at, Math.min(Integer.MAX_VALUE, s.byteSize() - at)).asByteBuffer();
            while (b.hasRemaining()) {
                int n = ch.read(b, pos);
                if (n < 0) {
                    throw new CorruptionException(file, pos, "unexpected end of file");
                }
                pos += n;
            }
        }
    }
}
