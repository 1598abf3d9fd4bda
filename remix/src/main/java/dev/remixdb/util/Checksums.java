package dev.remixdb.util;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * CRC32C, the checksum of every file format of the store (tables, REMIX files, WAL records, the
 * MANIFEST). {@link CRC32C} is intrinsified on x86 and ARM, so it runs at memory speed.
 */
public final class Checksums {
    private Checksums() {}

    /** CRC32C of {@code bytes[offset, offset + length)}. */
    public static int crc32c(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /** CRC32C of {@code segment[offset, offset + length)}, of any length (in 1 GiB steps past 2 GiB). */
    public static int crc32c(MemorySegment segment, long offset, long length) {
        CRC32C crc = new CRC32C();
        for (long at = offset, end = offset + length; at < end; ) {
            int n = (int) Math.min(end - at, 1 << 30);
            crc.update(segment.asSlice(at, n).asByteBuffer());
            at += n;
        }
        return (int) crc.getValue();
    }
}
