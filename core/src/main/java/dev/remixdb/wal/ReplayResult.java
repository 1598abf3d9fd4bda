package dev.remixdb.wal;

/**
 * What {@link WalReader#replay} found.
 *
 * @param records     records replayed
 * @param ops         operations replayed (= seqs handed to the visitor)
 * @param maxSeq      the largest seq replayed, or -1 when none
 * @param validLength file length up to the end of the last good record (the file's length after
 *                    replay, when a torn tail was cut)
 * @param tornBytes   bytes of torn tail cut off after {@code validLength}; 0 when the file ended cleanly
 */
public record ReplayResult(long records, long ops, long maxSeq, long validLength, long tornBytes) {
    /** Whether a torn tail was found and cut. */
    public boolean torn() {
        return tornBytes > 0;
    }
}
