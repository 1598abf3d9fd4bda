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
 * @param earlyRecords records among {@code records} written while an older WAL's sync was under way
 *                    (see {@link WalWriter}'s early records)
 */
public record ReplayResult(long records, long ops, long maxSeq, long validLength, long tornBytes, long earlyRecords) {
    /** A result without early records. */
    public ReplayResult(long records, long ops, long maxSeq, long validLength, long tornBytes) {
        this(records, ops, maxSeq, validLength, tornBytes, 0);
    }

    /** Whether every record replayed is early (true for a WAL without records). */
    public boolean allEarly() {
        return earlyRecords == records;
    }

    /** Whether a torn tail was found and cut. */
    public boolean torn() {
        return tornBytes > 0;
    }
}
