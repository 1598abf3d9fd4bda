package dev.remixdb.remix;

import java.nio.file.Path;

/**
 * Stored data failed a check (checksum, magic, version, length or bounds): the file is damaged,
 * and nothing read from it is returned. Names the file and the byte offset of the damaged part.
 */
public class CorruptionException extends RuntimeException {
    private final transient Path file;
    private final long offset;

    public CorruptionException(Path file, long offset, String what) {
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
