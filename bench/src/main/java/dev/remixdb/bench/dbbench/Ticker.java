package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.Progress;

/**
 * One thread's share of a phase's progress bar: it moves the shared {@link Progress} by one unit per
 * {@code chunk} operations, so the bar costs a counter increment per operation, not a lock.
 */
final class Ticker {
    /** A ticker that reports nothing (the writer of readwhilewriting, tiny phases). */
    static final Ticker NONE = new Ticker(null, "", Long.MAX_VALUE);

    private final Progress progress;
    private final String label;
    private final long chunk;
    private long count;

    Ticker(Progress progress, String label, long chunk) {
        this.progress = progress;
        this.label = label;
        this.chunk = chunk;
    }

    /** Counts one operation. */
    void tick() {
        if (++count == chunk) {
            count = 0;
            progress.begin(label);
            progress.end();
        }
    }
}
