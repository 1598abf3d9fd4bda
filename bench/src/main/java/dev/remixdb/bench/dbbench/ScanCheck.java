package dev.remixdb.bench.dbbench;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Checks one scan as the store hands its entries over: the first key must be the first present key
 * at or after the target (at or before, in reverse), each next key the next present one, each value's
 * header must name its key and current generation, and the first value must match byte for byte. A
 * scan that stops before N entries must have reached the end of the keys. One per thread; reused.
 */
final class ScanCheck implements Store.Sink {
    private final LiveKeys live;
    private final Values values;
    private final Checker check;
    private final boolean reverse;
    private final byte[] scratch;
    private long target;
    private long expected;
    private int seen;
    private boolean exact;
    private String problem;

    ScanCheck(LiveKeys live, Values values, Checker check, boolean reverse) {
        this.live = live;
        this.values = values;
        this.check = check;
        this.reverse = reverse;
        this.scratch = values.newBuffer();
    }

    /** Starts checking a scan from key integer {@code target}. */
    void begin(long target) {
        this.target = target;
        this.expected = reverse ? live.prevLive(target) : live.nextLive(target);
        this.exact = expected == target;
        this.seen = 0;
        this.problem = null;
    }

    @Override
    public void accept(byte[] key, byte[] value) {
        seen++;
        if (problem != null) {
            return;
        }
        long idx = Keys.parse(key);
        if (expected < 0) {
            problem = "entry " + seen + " is " + Keys.show(key) + " but no key is left in that direction";
            return;
        }
        if (idx != expected) {
            problem = "entry " + seen + " is " + Keys.show(key) + ", expected " + Keys.show(Keys.of(expected));
            return;
        }
        int gen = live.gen(idx);
        boolean ok = seen == 1 ? values.matches(idx, gen, value, scratch)
                : value != null && value.length == values.size() && Values.keyOf(value) == idx
                && Values.genOf(value) == gen;
        if (!ok) {
            problem = "entry " + seen + " (" + Keys.show(key) + ") has a wrong value";
            return;
        }
        expected = reverse ? live.prevLive(idx - 1) : live.nextLive(idx + 1);
    }

    /** As {@link #accept}, reading the views in place: the copies are what --scan-views leaves out. */
    @Override
    public void acceptView(MemorySegment key, MemorySegment value) {
        seen++;
        if (problem != null) {
            return;
        }
        long idx = Keys.parse(key);
        if (expected < 0) {
            problem = "entry " + seen + " is " + Keys.show(key.toArray(ValueLayout.JAVA_BYTE)) + " but no key is left in that direction";
            return;
        }
        if (idx != expected) {
            problem = "entry " + seen + " is " + Keys.show(key.toArray(ValueLayout.JAVA_BYTE)) + ", expected "
                    + Keys.show(Keys.of(expected));
            return;
        }
        int gen = live.gen(idx);
        boolean ok;
        if (seen == 1) {
            values.fill(idx, gen, scratch);
            ok = value.byteSize() == scratch.length && MemorySegment.mismatch(value, 0, value.byteSize(),
                    MemorySegment.ofArray(scratch), 0, scratch.length) < 0;
        } else {
            ok = value.byteSize() == values.size() && value.byteSize() >= 12
                    && value.get(BIG_LONG, 0) == idx && value.get(BIG_INT, 8) == gen;
        }
        if (!ok) {
            problem = "entry " + seen + " (" + Keys.show(Keys.of(idx)) + ") has a wrong value";
            return;
        }
        expected = reverse ? live.prevLive(idx - 1) : live.nextLive(idx + 1);
    }

    private static final ValueLayout.OfLong BIG_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BIG_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * Ends the scan that asked for {@code n} entries and got {@code got}; reports a problem to the
     * checker. Returns whether the scan started exactly at its target key (a "found" seek).
     */
    boolean end(int n, int got) {
        if (problem == null && got != seen) {
            problem = "the store said " + got + " entries but handed " + seen;
        }
        if (problem == null && got < n && expected >= 0) {
            problem = "stopped after " + got + " of " + n + " entries, before " + Keys.show(Keys.of(expected));
        }
        if (problem != null) {
            check.fail((reverse ? "reverse scan" : "scan") + " from " + Keys.show(Keys.of(target)) + ": " + problem);
        }
        return exact && seen > 0;
    }
}
