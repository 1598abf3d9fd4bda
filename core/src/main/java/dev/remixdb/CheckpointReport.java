package dev.remixdb;

import java.nio.file.Path;

/**
 * What {@link RemixDB#checkpoint(Path)} made.
 *
 * @param dir          the checkpoint: a store directory, openable with {@link RemixDB#open(Path)}
 * @param filesLinked  files hard-linked from the store (immutable tables, REMIX files and retired
 *                     WALs: they share the store's disk blocks until the store deletes its names)
 * @param bytesLinked  the bytes of those files
 * @param filesCopied  files copied: the tail of the active WAL, and every file on a file system
 *                     without hard links
 * @param bytesCopied  the bytes copied
 * @param pauseNanos   how long writers waited for the checkpoint's moment (its turn in the write queue)
 * @param lastSequence the sequence number of the newest write in the checkpoint
 */
public record CheckpointReport(Path dir, int filesLinked, long bytesLinked, int filesCopied, long bytesCopied,
                               long pauseNanos, long lastSequence) {
    @Override
    public String toString() {
        return "checkpoint " + dir + ": " + filesLinked + " files linked (" + bytesLinked + " bytes), "
                + filesCopied + " copied (" + bytesCopied + " bytes), writers paused "
                + String.format(java.util.Locale.ROOT, "%.3f", pauseNanos / 1e6) + " ms, last sequence " + lastSequence;
    }
}
