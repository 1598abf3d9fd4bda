package dev.remixdb.remix;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.remix.RemixCursor.Mode;
import dev.remixdb.remix.RemixModel.Entry;
import dev.remixdb.remix.RemixModel.View;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Drives a {@link RemixCursor} and checks every position it reaches against a {@link View} of the
 * model: the cursor must be at the model's entry (key, run, flags, value) or invalid exactly when
 * the model has no entry there. Used by the example-based and the property-based tests alike.
 */
final class CursorChecker {
    /** How many entries to walk after each seek, in each direction. */
    static final int STEPS = 3;
    /** Bytes around a key copied into a segment, so that offset and length bugs show. */
    private static final int PAD = 5;

    private final Remix remix;
    private final View view;
    private final Mode mode;
    private final SeekStrategy strategy;
    private final String label;

    /** {@code label} names the data and configuration in failure messages. */
    CursorChecker(Remix remix, RemixModel model, Mode mode, SeekStrategy strategy, String label) {
        this.remix = remix;
        this.view = model.view(mode);
        this.mode = mode;
        this.strategy = strategy;
        this.label = label + ", " + mode + ", " + strategy;
    }

    /** The keys, just before and just after each (a shorter prefix, the last byte - 1, key + 0x00), and the extremes. */
    static List<byte[]> probes(List<byte[]> keys) {
        TreeSet<byte[]> probes = new TreeSet<>(Arrays::compareUnsigned);
        probes.add(new byte[0]);
        byte[] max = new byte[130];
        Arrays.fill(max, (byte) 0xFF);
        probes.add(max);
        for (byte[] k : keys) {
            probes.add(k);
            probes.add(RemixModel.successor(k));
            if (k.length > 0) {
                probes.add(Arrays.copyOf(k, k.length - 1));
                int last = Byte.toUnsignedInt(k[k.length - 1]);
                if (last > 0) {
                    byte[] below = k.clone();
                    below[k.length - 1] = (byte) (last - 1);
                    probes.add(below);
                    byte[] justBelow = Arrays.copyOf(below, below.length + 1);
                    justBelow[below.length] = (byte) 0xFF;
                    probes.add(justBelow);
                }
            }
        }
        return new ArrayList<>(probes);
    }

    RemixCursor open() {
        return strategy.open(remix, mode);
    }

    /** seekToFirst + next visits the model's entries in order; seekToLast + prev in reverse. */
    void assertIteration() {
        try (RemixCursor c = open()) {
            c.seekToFirst();
            for (int i = 0; i < view.size(); i++) {
                int at = i;
                assertAt(c, i, () -> "forward iteration, entry #" + at);
                c.next();
            }
            assertAt(c, view.size(), () -> "forward iteration, after the last entry");
            c.seekToLast();
            for (int i = view.size() - 1; i >= 0; i--) {
                int at = i;
                assertAt(c, i, () -> "backward iteration, entry #" + at);
                c.prev();
            }
            assertAt(c, -1, () -> "backward iteration, before the first entry");
        }
    }

    /** seek(probe) lands on the first entry {@code >= probe}; the next and previous entries follow. */
    void assertSeeks(List<byte[]> probes) {
        try (RemixCursor c = open()) {
            int n = 0;
            for (byte[] probe : probes) {
                int overload = n++;
                int expected = view.ceiling(probe);
                Supplier<String> what = () -> "seek(" + RemixModel.hex(probe) + ")";
                seek(c, probe, overload);
                assertAt(c, expected, what);
                walk(c, expected, true, what);
                seek(c, probe, overload + 1);
                assertAt(c, expected, what);
                walk(c, expected, false, what);
            }
        }
    }

    /**
     * seekForPrev(probe) lands on the last entry {@code <= probe} (in ALL_VERSIONS, the oldest version
     * of the last such key); the previous and next entries follow.
     */
    void assertSeekForPrevs(List<byte[]> probes) {
        try (RemixCursor c = open()) {
            for (byte[] probe : probes) {
                Supplier<String> what = () -> "seekForPrev(" + RemixModel.hex(probe) + ")";
                int expected = seekForPrev(c, probe);
                assertAt(c, expected, what);
                walk(c, expected, false, what);
                seekForPrev(c, probe);
                assertAt(c, expected, what);
                walk(c, expected, true, what);
            }
        }
    }

    /**
     * get(probe) is true exactly for the model's keys (in LIVE mode, not for a deleted key),
     * positions at the newest version, and the neighbours follow; a miss leaves the cursor invalid.
     */
    void assertGets(List<byte[]> probes) {
        try (RemixCursor c = open()) {
            int n = 0;
            for (byte[] probe : probes) {
                boolean viaSegment = (n++ & 1) == 1;
                int expected = view.find(probe);
                Supplier<String> what = () -> "get(" + RemixModel.hex(probe) + ")";
                assertEquals(expected >= 0, get(c, probe, viaSegment), what);
                assertAt(c, expected, what);
                if (expected >= 0) {
                    walk(c, expected, true, what);
                    assertTrue(get(c, probe, !viaSegment), what);
                    walk(c, expected, false, what);
                }
            }
        }
    }

    /**
     * {@code walks} random walks with one reused cursor: a random positioning call, then up to
     * {@code steps} random next/prev, each position checked; an invalid cursor refuses next and prev.
     */
    void assertRandomWalks(List<byte[]> probes, long seed, int walks, int steps) {
        Random rnd = new Random(seed);
        try (RemixCursor c = open()) {
            for (int w = 0; w < walks; w++) {
                byte[] probe = probes.get(rnd.nextInt(probes.size()));
                StringBuilder path = new StringBuilder();
                int at;
                switch (rnd.nextInt(5)) {
                    case 0 -> {
                        c.seekToFirst();
                        at = view.size() == 0 ? -1 : 0;
                        path.append("seekToFirst");
                    }
                    case 1 -> {
                        c.seekToLast();
                        at = view.size() - 1;
                        path.append("seekToLast");
                    }
                    case 2 -> {
                        seek(c, probe, rnd.nextInt(3));
                        at = view.ceiling(probe);
                        path.append("seek(").append(RemixModel.hex(probe)).append(')');
                    }
                    case 3 -> {
                        get(c, probe, rnd.nextBoolean());
                        at = view.find(probe);
                        path.append("get(").append(RemixModel.hex(probe)).append(')');
                    }
                    default -> {
                        at = seekForPrev(c, probe);
                        path.append("seekForPrev(").append(RemixModel.hex(probe)).append(')');
                    }
                }
                assertAt(c, at, path::toString);
                for (int s = 0; s < steps && at >= 0 && at < view.size(); s++) {
                    if (rnd.nextBoolean()) {
                        c.next();
                        at++;
                        path.append(" next");
                    } else {
                        c.prev();
                        at--;
                        path.append(" prev");
                    }
                    assertAt(c, at, path::toString);
                }
                if (!c.isValid()) {
                    assertThrows(IllegalStateException.class, c::next, path::toString);
                    assertThrows(IllegalStateException.class, c::prev, path::toString);
                }
            }
        }
    }

    /** Calls seekForPrev (alternating its two overloads) and returns the model index it should reach. */
    private int seekForPrev(RemixCursor c, byte[] probe) {
        if ((probe.length & 1) == 0) {
            c.seekForPrev(padded(probe), PAD, probe.length);
        } else {
            c.seekForPrev(probe);
        }
        return view.floor(probe);
    }

    private void walk(RemixCursor c, int from, boolean forward, Supplier<String> what) {
        int at = from;
        for (int s = 1; s <= STEPS && at >= 0 && at < view.size(); s++) {
            int step = s;
            if (forward) {
                c.next();
                at++;
            } else {
                c.prev();
                at--;
            }
            assertAt(c, at, () -> what.get() + " then " + step + (forward ? " x next" : " x prev"));
        }
    }

    /** Seeks through one of the three overloads: 0 byte[], 1 a slice of a larger segment, 2 a whole segment. */
    static void seek(RemixCursor c, byte[] key, int overload) {
        switch (overload % 3) {
            case 0 -> c.seek(key);
            case 1 -> c.seek(padded(key), PAD, key.length);
            default -> c.seek(MemorySegment.ofArray(key.clone()));
        }
    }

    static boolean get(RemixCursor c, byte[] key, boolean viaSegment) {
        return viaSegment ? c.get(padded(key), PAD, key.length) : c.get(key);
    }

    /** {@code key} at offset {@link #PAD} of a larger segment, between bytes that would change its order. */
    static MemorySegment padded(byte[] key) {
        byte[] buf = new byte[PAD + key.length + PAD];
        Arrays.fill(buf, (byte) 0x7E);
        System.arraycopy(key, 0, buf, PAD, key.length);
        return MemorySegment.ofArray(buf);
    }

    /** Asserts the cursor is at the model's entry {@code i}, or invalid when {@code i} is out of range. */
    void assertAt(RemixCursor c, int i, Supplier<String> what) {
        if (i < 0 || i >= view.size()) {
            if (c.isValid()) {
                throw new AssertionError(what.get() + " [" + label + "]: expected no entry, cursor is at "
                        + actual(c));
            }
            return;
        }
        Entry e = view.get(i);
        if (!c.isValid()) {
            throw new AssertionError(what.get() + " [" + label + "]: expected " + e
                    + ", cursor is not valid");
        }
        Entry a = actual(c);
        if (e.run() != a.run() || e.tombstone() != a.tombstone() || e.stale() != a.stale()
                || !Arrays.equals(e.key(), a.key())) {
            assertEquals(e.toString(), a.toString(), () -> what.get() + " [" + label + "]");
        }
        assertArrayEquals(e.tombstone() ? new byte[0] : e.value(), a.value(),
                () -> what.get() + " [" + label + "]: value of " + e);
    }

    static Entry actual(RemixCursor c) {
        return new Entry(c.keyBytes(), c.runId(), c.valueBytes(), c.isTombstone(), c.isStale());
    }
}
