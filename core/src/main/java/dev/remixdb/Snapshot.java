package dev.remixdb;

/**
 * A consistent, read-only view of a {@link RemixDB} as of the moment {@link RemixDB#snapshot()}
 * returned: reads through it never see later writes, and compactions do not disturb it.
 *
 * <p>What it pins: the memtables and table files of that moment, no more. Writes
 * after it go on as usual, but memory and files that compaction has since replaced are kept until
 * the last snapshot or cursor using them closes, so close snapshots promptly. A snapshot dropped
 * without {@link #close()} is released when it is garbage-collected and counted in
 * {@link Stats#leakedSnapshots()}. Closing the store closes its snapshots.
 *
 * <p>Thread-safe: several threads may read through one snapshot. Cursors opened on it are
 * independent of it: each holds the view itself and stays usable after the snapshot is closed.
 */
public interface Snapshot extends AutoCloseable {

    /**
     * The value of {@code key} as of the snapshot, or null when it was absent.
     *
     * @throws IllegalArgumentException for a key {@link RemixDB#get} would refuse (null, or over
     *                                  {@link Options#MAX_KEY_BYTES})
     */
    byte[] get(byte[] key);

    /** A cursor over the whole store as of the snapshot; close it when done. */
    Cursor cursor();

    /** A cursor over [{@code lower}, {@code upper}) as of the snapshot (a null bound is open). */
    Cursor cursor(byte[] lower, byte[] upper);

    /**
     * Visits up to {@code limit} entries of [{@code from}, {@code to}) as of the snapshot, as
     * {@link RemixDB#scan} does.
     *
     * @return the number of entries visited
     */
    int scan(byte[] from, byte[] to, int limit, EntryVisitor visitor);

    /** The sequence number of the last write the snapshot sees. */
    long sequence();

    /** Releases what the snapshot pins. Idempotent. */
    @Override
    void close();
}
