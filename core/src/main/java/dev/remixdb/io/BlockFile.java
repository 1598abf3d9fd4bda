package dev.remixdb.io;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A read-only file opened by a {@link BlockReader}. Its size is taken when it is opened: the files
 * read this way (tables, REMIXes) are immutable once written.
 */
public interface BlockFile extends AutoCloseable {

    /** The path the file was opened from. */
    Path path();

    /** The file's size in bytes when it was opened. */
    long size();

    /** Closes the file; reads started afterwards fail. Idempotent. */
    @Override
    void close() throws IOException;
}
