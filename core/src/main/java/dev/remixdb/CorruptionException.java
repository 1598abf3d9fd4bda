package dev.remixdb;

import java.nio.file.Path;

/**
 * Stored data failed a check (a checksum, a magic number, a format version, a length or a bound):
 * the file is damaged, and nothing read from it was returned. Names the file and the byte offset of
 * the damaged part. The store stays open: other keys, in undamaged files, can still be read.
 * {@link RemixDB#verify(Path)} lists every damaged spot of a closed store.
 */
public final class CorruptionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long offset;

    /** The damage the format layer found ({@code cause}), as the store reports it. */
    CorruptionException(dev.remixdb.remix.CorruptionException cause) {
        super(cause.getMessage(), cause);
        this.file = cause.file();
        this.offset = cause.offset();
    }

    /** Damage found outside the format layer (a backup file whose checksum does not match). */
    CorruptionException(Path file, long offset, String what) {
        super(file + " at offset " + offset + ": " + what);
        this.file = file;
        this.offset = offset;
    }

    /** The damaged file. */
    public Path file() {
        return file;
    }

    /** Offset in the file of the damaged section or field. */
    public long offset() {
        return offset;
    }
}
