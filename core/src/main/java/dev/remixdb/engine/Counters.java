package dev.remixdb.engine;

import java.util.concurrent.atomic.LongAdder;

/** The engine's running totals since open, reported by {@code stats()}. */
final class Counters {
    final LongAdder userBytes = new LongAdder();
    final LongAdder walBytes = new LongAdder();
    final LongAdder flushBytes = new LongAdder();
    final LongAdder stallNanos = new LongAdder();
    final LongAdder minor = new LongAdder();
    final LongAdder major = new LongAdder();
    final LongAdder split = new LongAdder();
    final LongAdder abort = new LongAdder();
    final LongAdder leakedSnapshots = new LongAdder();
}
