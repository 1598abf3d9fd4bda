package dev.remixdb.bench.micro;

import dev.remixdb.remix.Remix;

/**
 * The size of one built REMIX against the storage-cost formula of REMIX §3.4 / Table 1, with S = 4
 * byte cursor offsets and one whole selector byte per key as this implementation stores them:
 * {@code (L + 4H) / D + 1} bytes/key, plus 1 with hash tags, where L is the average anchor length.
 * The measured size also holds a 4-byte offset per anchor (so about 4/D bytes/key more) and any
 * placeholder slots.
 */
public record RemixSize(String locality, int runs, int segment, boolean tags, long keys, long segments,
                        long anchorBytes, long metadataBytes, double buildSeconds) {

    static RemixSize of(String locality, Remix remix, double buildSeconds) {
        return new RemixSize(locality, remix.runCount(), remix.segmentSize(), remix.hasTags(), remix.keyCount(),
                remix.segmentCount(), remix.anchorBytesTotal(), remix.metadataBytes(), buildSeconds);
    }

    /** Average anchor key length in bytes (L of the formula). */
    public double anchorAverage() {
        return segments == 0 ? 0 : (double) anchorBytes / segments;
    }

    /** Measured metadata bytes per key. */
    public double bytesPerKey() {
        return keys == 0 ? 0 : (double) metadataBytes / keys;
    }

    /** The paper's formula, {@code (L + 4H)/D + 1 (+1 with tags)}. */
    public double formulaBytesPerKey() {
        return (anchorAverage() + 4.0 * runs) / segment + 1 + (tags ? 1 : 0);
    }
}
