package dev.remixdb.bench.micro;

import dev.remixdb.bench.data.KeyFormat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The untimed pass before each measurement: runs a sample of operations on a target and checks every
 * answer against the dataset's ground truth (so the indexes compared all give the same, right
 * answers), including keys that are absent, and returns the key comparisons per operation.
 * Samples: the first key, the last key, then random keys; every other one absent.
 */
final class Checker {
    private Checker() {}

    /** Checks {@code ops} operations; returns comparisons per operation. Throws on a wrong answer. */
    static double check(Target t, Phase phase, KeyFormat keyFormat, long seed, int ops) {
        long n = keyFormat.count();
        KeyStream keys = new KeyStream(n, seed);
        int pair = KeyFormat.KEY_BYTES + KeyFormat.VALUE_BYTES;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment key = arena.allocate(KeyFormat.KEY_BYTES);
            MemorySegment out = arena.allocate((long) pair * Phase.SCAN_LENGTH);
            MemorySegment want = arena.allocate(pair);
            long before = t.comparisons();
            for (int i = 0; i < ops; i++) {
                long idx = i == 0 ? 0 : i == 1 ? n - 1 : keys.next();
                boolean absent = (i & 2) != 0;
                if (absent) {
                    keyFormat.writeAbsentKey(key, 0, idx);
                } else {
                    keyFormat.writeKey(key, 0, idx);
                }
                // The first key >= an absent key between idx and idx + 1 is idx + 1.
                long first = absent ? idx + 1 : idx;
                switch (phase) {
                    case SEEK -> {
                        int len = t.seek(key, KeyFormat.KEY_BYTES, out);
                        if (first == n) {
                            expect(len == -1, t, phase, idx, absent, "found a key past the last one");
                        } else {
                            expect(len == KeyFormat.KEY_BYTES, t, phase, idx, absent, "key length " + len);
                            keyFormat.writeKey(want, 0, first);
                            expectBytes(out, 0, want, KeyFormat.KEY_BYTES, t, phase, idx, absent);
                        }
                    }
                    case SEEK_NEXT50 -> {
                        int got = t.seekNext(key, KeyFormat.KEY_BYTES, Phase.SCAN_LENGTH, out);
                        long expected = Math.min(Phase.SCAN_LENGTH, n - first);
                        expect(got == expected, t, phase, idx, absent, got + " pairs, expected " + expected);
                        for (int j = 0; j < got; j++) {
                            keyFormat.writeKey(want, 0, first + j);
                            keyFormat.writeValue(want, KeyFormat.KEY_BYTES, first + j);
                            expectBytes(out, (long) j * pair, want, pair, t, phase, idx, absent);
                        }
                    }
                    case GET -> {
                        int len = t.get(key, KeyFormat.KEY_BYTES, out);
                        if (absent) {
                            expect(len == -1, t, phase, idx, true, "found an absent key");
                        } else {
                            expect(len == KeyFormat.VALUE_BYTES, t, phase, idx, false, "value length " + len);
                            keyFormat.writeValue(want, 0, idx);
                            expectBytes(out, 0, want, KeyFormat.VALUE_BYTES, t, phase, idx, false);
                        }
                    }
                }
            }
            return (double) (t.comparisons() - before) / ops;
        }
    }

    private static void expect(boolean ok, Target t, Phase phase, long idx, boolean absent, String what) {
        if (!ok) {
            throw new IllegalStateException(t.index() + " gave a wrong answer to " + phase.label() + " of "
                    + (absent ? "the absent key after key #" : "key #") + idx + ": " + what);
        }
    }

    private static void expectBytes(MemorySegment out, long at, MemorySegment want, int len,
                                    Target t, Phase phase, long idx, boolean absent) {
        long m = MemorySegment.mismatch(out, at, at + len, want, 0, len);
        expect(m < 0, t, phase, idx, absent, "bytes differ at offset " + m + " of the copy at " + at);
    }
}
