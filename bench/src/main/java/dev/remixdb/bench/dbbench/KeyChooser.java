package dev.remixdb.bench.dbbench;

import java.util.SplittableRandom;

/**
 * Picks the key integer of each read or overwrite: uniform over [0, n), or Zipfian with its ranks
 * scattered by a {@link Permutation}. One chooser per thread (it holds the thread's random source);
 * the sequence depends only on the seed, so both stores' processes see the same keys in the same
 * order.
 */
public final class KeyChooser {
    /** The key distribution of reads and overwrites ({@code --dist}). */
    public enum Dist {
        UNIFORM, ZIPF;

        /** Parses {@code uniform} or {@code zipf}; null when it is neither. */
        static Dist parse(String s) {
            return switch (s) {
                case "uniform" -> UNIFORM;
                case "zipf", "zipfian" -> ZIPF;
                default -> null;
            };
        }

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final long n;
    private final SplittableRandom random;
    private final Zipfian zipf;
    private final Permutation scatter;

    private KeyChooser(long n, SplittableRandom random, Zipfian zipf, Permutation scatter) {
        this.n = n;
        this.random = random;
        this.zipf = zipf;
        this.scatter = scatter;
    }

    /** Uniform over [0, n). */
    public static KeyChooser uniform(long n, long seed) {
        return new KeyChooser(n, new SplittableRandom(seed), null, null);
    }

    /**
     * Zipfian over [0, n) with the ranks of {@code zipf} (whose size must be n), scattered by a
     * permutation that depends on {@code scatterSeed} only, so every thread agrees which keys are hot.
     */
    public static KeyChooser zipfian(Zipfian zipf, long scatterSeed, long seed) {
        return new KeyChooser(zipf.size(), new SplittableRandom(seed), zipf, new Permutation(zipf.size(), scatterSeed));
    }

    /** The next key integer. */
    public long next() {
        if (zipf == null) {
            return random.nextLong(n);
        }
        return scatter.apply(zipf.next(random));
    }
}
