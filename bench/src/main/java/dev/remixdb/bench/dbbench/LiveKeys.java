package dev.remixdb.bench.dbbench;

/**
 * What the store must hold, as far as the benchmark wrote it: for each key integer, the generation
 * of its current value (1 after a load, a new one per overwrite phase), or 0 when it is absent
 * (never loaded or deleted). Readers check answers against it. One byte per key: 4 MB for the
 * default 4M keys. Generations wrap within 1..255; a value from 255 phases ago is not expected.
 *
 * <p>Written by one thread at a time (write phases with several writers, and readwhilewriting, keep their
 * changes aside and apply them after the phase), read by many.
 */
public final class LiveKeys {
    private final byte[] gens;
    private long live;
    private int lastGen;

    public LiveKeys(long n) {
        if (n < 1 || n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("key count out of range: " + n);
        }
        this.gens = new byte[(int) n];
    }

    /** Number of key integers, present or not. */
    public long size() {
        return gens.length;
    }

    /** Keys present now. */
    public long live() {
        return live;
    }

    /** A generation not used by the previous write phase (1..255, wrapping). */
    public int newGeneration() {
        lastGen = lastGen % 255 + 1;
        return lastGen;
    }

    /** Forgets everything (a fill phase starts on an empty store). */
    public void clear() {
        java.util.Arrays.fill(gens, (byte) 0);
        live = 0;
    }

    /** Generation of key {@code i}, 0 when absent. */
    public int gen(long i) {
        return gens[(int) i] & 0xff;
    }

    /** Records that key {@code i} now has generation {@code gen} (1..255). */
    public void set(long i, int gen) {
        if (gens[(int) i] == 0) {
            live++;
        }
        gens[(int) i] = (byte) gen;
    }

    /** Records that key {@code i} was deleted. */
    public void remove(long i) {
        if (gens[(int) i] != 0) {
            live--;
        }
        gens[(int) i] = 0;
    }

    /** The smallest present key integer >= i, or -1 when there is none. */
    public long nextLive(long i) {
        for (long j = Math.max(0, i); j < gens.length; j++) {
            if (gens[(int) j] != 0) {
                return j;
            }
        }
        return -1;
    }

    /** The largest present key integer <= i, or -1 when there is none. */
    public long prevLive(long i) {
        for (long j = Math.min(i, gens.length - 1L); j >= 0; j--) {
            if (gens[(int) j] != 0) {
                return j;
            }
        }
        return -1;
    }
}
