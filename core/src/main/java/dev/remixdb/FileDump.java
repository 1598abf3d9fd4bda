package dev.remixdb;

import dev.remixdb.cache.BlockCache;
import dev.remixdb.files.FileNames;
import dev.remixdb.io.FileChannelBlockReader;
import dev.remixdb.remix.RemixFile;
import dev.remixdb.remix.RunAddress;
import dev.remixdb.table.Table;
import dev.remixdb.table.TableCursor;
import dev.remixdb.util.Checksums;
import dev.remixdb.version.Manifest;
import dev.remixdb.wal.ReplayResult;
import dev.remixdb.wal.WalReader;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.OptionalLong;

/**
 * Describes one file of a store for a person looking inside it (the {@code remixdb dump} command):
 * a table ({@code .tbl}: blocks, keys, tombstones, bounds, the first entries), a REMIX
 * ({@code .rmx}: its header, whose layout {@link RemixFile} documents, and each run's key count), a
 * WAL ({@code .wal}: records, operations, sequence numbers, torn tail) or the {@code MANIFEST}
 * (partitions, their tables and REMIX files). Reads only; checksums are checked as the store checks
 * them, so a damaged file raises {@link CorruptionException} naming the offset.
 */
public final class FileDump {
    private static final HexFormat HEX = HexFormat.of();

    private FileDump() {}

    /** Prints a description of {@code file} to {@code out}, with at most {@code limit} entries. */
    public static void dump(Path file, int limit, PrintStream out) throws IOException {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must not be negative: " + limit);
        }
        if (!Files.isRegularFile(file)) {
            throw new java.nio.file.NoSuchFileException(file.toString(), null, "not a file");
        }
        String name = file.getFileName().toString();
        try {
            if (name.equals(FileNames.MANIFEST)) {
                manifest(file, out);
            } else if (number(name, FileNames.TABLE).isPresent()) {
                table(file, number(name, FileNames.TABLE).getAsLong(), limit, out);
            } else if (number(name, FileNames.REMIX).isPresent()) {
                remix(file, out);
            } else if (number(name, FileNames.WAL).isPresent()) {
                wal(file, number(name, FileNames.WAL).getAsLong(), limit, out);
            } else {
                throw new IllegalArgumentException(file + " is not a store file (NNNNNN.tbl, NNNNNN.rmx, NNNNNN.wal or MANIFEST)");
            }
        } catch (dev.remixdb.remix.CorruptionException e) {
            throw new CorruptionException(e);
        }
    }

    private static OptionalLong number(String name, String suffix) {
        return FileNames.number(name, suffix);
    }

    private static void manifest(Path file, PrintStream out) throws IOException {
        Manifest.Data d = Manifest.decode(file, Files.readAllBytes(file));
        out.printf("MANIFEST %s (%d bytes)%n", file, Files.size(file));
        out.printf("  next file number %d, first live WAL %d, last sequence %d, version %d%n",
                d.nextFileNumber(), d.firstLiveWal(), d.lastSequence(), d.versionSequence());
        out.printf("  %d partitions%n", d.partitions().size());
        int i = 0;
        for (Manifest.PartitionEntry p : d.partitions()) {
            StringBuilder tables = new StringBuilder();
            for (long t : p.tables()) {
                tables.append(tables.isEmpty() ? "" : " ").append(t);
            }
            out.printf("  partition %d: from %s, REMIX %s, %d tables (oldest first): %s%n", i++, show(p.lower()),
                    p.remixFile() == 0 ? "none" : Long.toString(p.remixFile()), p.tables().length, tables);
        }
    }

    private static void table(Path file, long number, int limit, PrintStream out) throws IOException {
        try (Table t = Table.open(number, file, new FileChannelBlockReader(), new BlockCache(0))) {
            out.printf("table %s (%d bytes)%n", file, t.fileBytes());
            out.printf("  %d keys in %d blocks, %d tombstones, keys block %d bytes%n", t.keyCount(), t.blockCount(),
                    t.tombstoneCount(), t.keysBlockBytes());
            out.printf("  first key %s%n  last key  %s%n", show(t.firstKey()), show(t.lastKey()));
            StringBuilder perBlock = new StringBuilder();
            for (int b = 0; b < Math.min(t.blockCount(), 32); b++) {
                perBlock.append(b == 0 ? "" : " ").append(t.keyCount(b));
            }
            out.printf("  keys per block%s: %s%n", t.blockCount() > 32 ? " (first 32)" : "", perBlock);
            if (limit > 0 && t.keyCount() > 0) {
                out.printf("  first %d entries:%n", Math.min(limit, t.keyCount()));
                try (TableCursor c = t.newCursor()) {
                    c.seekTo(RunAddress.of(0, 0));
                    for (int n = 0; n < limit && c.isValid(); n++, c.next()) {
                        byte[] key = c.keySegment().asSlice(c.keyOffset(), c.keyLength()).toArray(ValueLayout.JAVA_BYTE);
                        out.printf("    %s -> %s%n", show(key), c.isTombstone() ? "(deleted)"
                                : c.valueLength() + " bytes " + preview(c.valueSegment(), c.valueOffset(), c.valueLength()));
                    }
                }
            }
        }
    }

    private static void remix(Path file, PrintStream out) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer h = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
            while (h.hasRemaining() && ch.read(h) >= 0) {
                // read the header fully
            }
            if (h.position() < 64 || h.getLong(0) != RemixFile.MAGIC) {
                throw new CorruptionException(file, 0, "not a REMIX file (bad magic or too short)");
            }
            int crc = Checksums.crc32c(h.array(), 0, 60);
            if (crc != h.getInt(60)) {
                throw new CorruptionException(file, 60, "REMIX header CRC32C does not match");
            }
            int runs = h.getInt(16);
            out.printf("REMIX %s (%d bytes)%n", file, Files.size(file));
            out.printf("  format %d, hash tags %s, %d runs, segment size D %d, %d segments, %d keys, anchor bytes %d,"
                            + " file length %d%n", h.getInt(8), (h.getInt(12) & 1) != 0 ? "yes" : "no", runs,
                    h.getInt(20), h.getLong(24), h.getLong(32), h.getLong(40), h.getLong(48));
            ByteBuffer counts = ByteBuffer.allocate(8 * runs).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(counts, 64);
            StringBuilder sb = new StringBuilder();
            for (int r = 0; r < runs && r < 64; r++) {
                sb.append(r == 0 ? "" : " ").append(counts.getLong(8 * r));
            }
            out.printf("  keys per run (oldest first)%s: %s%n", runs > 64 ? " (first 64)" : "", sb);
        }
    }

    private static void wal(Path file, long number, int limit, PrintStream out) throws IOException {
        long[] shown = {0};
        long[] firstSeq = {-1};
        ReplayResult r = WalReader.check(file, number, (seq, type, key, ko, kl, value, vo, vl) -> {
            if (firstSeq[0] < 0) {
                firstSeq[0] = seq;
            }
            if (shown[0] < limit) {
                if (shown[0] == 0) {
                    out.printf("WAL %s%n", file);
                }
                byte[] k = key.asSlice(ko, kl).toArray(ValueLayout.JAVA_BYTE);
                switch (type) {
                    case PUT -> out.printf("  seq %d put %s (%d bytes)%n", seq, show(k), vl);
                    case DELETE -> out.printf("  seq %d delete %s%n", seq, show(k));
                    case RANGE_DELETE -> out.printf("  seq %d delete range [%s, %s)%n", seq, show(k),
                            vl == 0 ? "end" : show(value.asSlice(vo, vl).toArray(ValueLayout.JAVA_BYTE)));
                }
                shown[0]++;
            }
        });
        if (shown[0] == 0) {
            out.printf("WAL %s%n", file);
        }
        String seqs = r.ops() == 0 ? "no sequence numbers"
                : "sequence numbers " + Math.max(firstSeq[0], 0) + ".." + r.maxSeq();
        out.printf("  %d records (%d written while an older WAL was being synced), %d operations, %s,"
                        + " %d valid bytes of %d%s%n", r.records(), r.earlyRecords(), r.ops(), seqs,
                r.validLength(), Files.size(file),
                r.torn() ? ", torn tail of " + r.tornBytes() + " bytes (cut at the next open)" : "");
    }

    /** A key as text when it is printable ASCII, else as hex (0x...). */
    static String show(byte[] key) {
        if (key == null) {
            return "(none)";
        }
        for (byte b : key) {
            if (b < 0x20 || b > 0x7E) {
                return "0x" + HEX.formatHex(key);
            }
        }
        return "\"" + new String(key, java.nio.charset.StandardCharsets.US_ASCII) + "\"";
    }

    private static String preview(MemorySegment seg, long offset, int length) {
        byte[] head = seg.asSlice(offset, Math.min(length, 16)).toArray(ValueLayout.JAVA_BYTE);
        return show(head) + (length > 16 ? "..." : "");
    }
}
