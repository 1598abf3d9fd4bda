package dev.remixdb.version;

import dev.remixdb.files.FileNames;
import dev.remixdb.files.StoreDirectory;
import dev.remixdb.remix.CorruptionException;
import dev.remixdb.util.Checksums;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The MANIFEST file: which partitions, tables and REMIX files make up the current version, and
 * which WALs still hold writes no table holds yet. It is replaced as a whole, crash-atomically: written to
 * MANIFEST.tmp, forced, renamed over MANIFEST, and the directory forced.
 *
 * <p>Layout (little-endian):
 * <pre>
 * offset  size  field
 *  0       8    magic "RMXMANIF"
 *  8       4    format version (1)
 * 12       4    partition count P (at least 1)
 * 16       8    next file number
 * 24       8    first live WAL number: WALs numbered below it are obsolete
 * 32       8    last sequence number used
 * 40       8    version sequence
 * 48       ...  P partitions, each:
 *                 u32 lower-bound length, the lower bound's bytes,
 *                 u64 REMIX file number (0 when the partition has no tables),
 *                 u32 table count T, u64 × T table file numbers (oldest first)
 * end-4    4    CRC32C of every byte before it
 * </pre>
 */
public final class Manifest {
    public static final long MAGIC = 0x464E_4941_4D58_4D52L; // "RMXMANIF" little-endian
    public static final int VERSION = 1;
    private static final int HEADER = 48;

    /** One partition's entry. */
    public record PartitionEntry(byte[] lower, long remixFile, long[] tables) {}

    /** What a MANIFEST says. */
    public record Data(long nextFileNumber, long firstLiveWal, long lastSequence, long versionSequence,
                       List<PartitionEntry> partitions) {}

    private Manifest() {}

    /** The entries of {@code version}'s partitions. */
    public static List<PartitionEntry> entries(Version version) {
        List<PartitionEntry> out = new ArrayList<>();
        for (Partition p : version.partitions()) {
            long[] tables = new long[p.tables().size()];
            for (int i = 0; i < tables.length; i++) {
                tables[i] = p.tables().get(i).fileNumber();
            }
            out.add(new PartitionEntry(p.lower(), p.remixFile(), tables));
        }
        return out;
    }

    /** Encodes {@code data}. */
    public static byte[] encode(Data data) {
        int size = HEADER + 4;
        for (PartitionEntry p : data.partitions()) {
            size += 4 + p.lower().length + 8 + 4 + 8 * p.tables().length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(MAGIC).putInt(VERSION).putInt(data.partitions().size());
        b.putLong(data.nextFileNumber()).putLong(data.firstLiveWal()).putLong(data.lastSequence())
                .putLong(data.versionSequence());
        for (PartitionEntry p : data.partitions()) {
            b.putInt(p.lower().length).put(p.lower()).putLong(p.remixFile()).putInt(p.tables().length);
            for (long t : p.tables()) {
                b.putLong(t);
            }
        }
        b.putInt(Checksums.crc32c(b.array(), 0, size - 4));
        return b.array();
    }

    /**
     * Replaces the directory's MANIFEST with {@code data}, crash-atomically.
     *
     * @return bytes written
     */
    public static long write(Path dir, Data data) throws IOException {
        byte[] bytes = encode(data);
        Path tmp = dir.resolve(FileNames.MANIFEST_TMP);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, dir.resolve(FileNames.MANIFEST), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        StoreDirectory.sync(dir);
        return bytes.length;
    }


    /** Reads the directory's MANIFEST; null when there is none. */
    public static Data read(Path dir) throws IOException {
        Path file = dir.resolve(FileNames.MANIFEST);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        return decode(file, bytes);
    }

    /** Decodes a MANIFEST, checking its checksum and every length. */
    public static Data decode(Path file, byte[] bytes) {
        if (bytes.length < HEADER + 4) {
            throw new CorruptionException(file, 0, "manifest of " + bytes.length + " bytes is shorter than its header");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int stored = b.getInt(bytes.length - 4);
        int actual = Checksums.crc32c(bytes, 0, bytes.length - 4);
        if (stored != actual) {
            throw new CorruptionException(file, bytes.length - 4, String.format(
                    "manifest checksum mismatch: expected %08x, actual %08x", stored, actual));
        }
        if (b.getLong() != MAGIC) {
            throw new CorruptionException(file, 0, "bad magic, not a RemixDB manifest");
        }
        int version = b.getInt();
        if (version != VERSION) {
            throw new CorruptionException(file, 8, "unsupported manifest format version " + version
                    + " (this build reads " + VERSION + ")");
        }
        int count = b.getInt();
        long next = b.getLong();
        long firstWal = b.getLong();
        long lastSeq = b.getLong();
        long versionSeq = b.getLong();
        int end = bytes.length - 4;
        if (count < 1 || count > end) {
            throw new CorruptionException(file, 12, "bad partition count " + count);
        }
        List<PartitionEntry> parts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = b.position();
            int lowerLen = checkedLength(file, b, end, 1);
            byte[] lower = new byte[lowerLen];
            b.get(lower);
            need(file, b, end, 12);
            long remix = b.getLong();
            int tables = checkedLength(file, b, end, 8);
            long[] numbers = new long[tables];
            for (int t = 0; t < tables; t++) {
                numbers[t] = b.getLong();
            }
            if ((remix == 0) != (tables == 0)) {
                throw new CorruptionException(file, at, "partition " + i + " has " + tables
                        + " tables but REMIX file " + remix);
            }
            parts.add(new PartitionEntry(lower, remix, numbers));
        }
        if (b.position() != end) {
            throw new CorruptionException(file, b.position(), (end - b.position()) + " unexpected bytes after the partitions");
        }
        return new Data(next, firstWal, lastSeq, versionSeq, parts);
    }

    /** Reads a u32 count of items of {@code itemBytes} each and checks that they fit before {@code end}. */
    private static int checkedLength(Path file, ByteBuffer b, int end, int itemBytes) {
        need(file, b, end, 4);
        int at = b.position();
        int n = b.getInt();
        if (n < 0 || (long) n * itemBytes > end - b.position()) {
            throw new CorruptionException(file, at, "length " + n + " runs past the end of the manifest");
        }
        return n;
    }

    private static void need(Path file, ByteBuffer b, int end, int bytes) {
        if (end - b.position() < bytes) {
            throw new CorruptionException(file, b.position(), "manifest ends inside a partition entry");
        }
    }

}
