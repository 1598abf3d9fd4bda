package dev.remixdb.bench.dbbench;

import java.util.SplittableRandom;

/**
 * Zipfian ranks in [0, n): rank r is drawn with probability proportional to 1/(r+1)^theta, by the
 * constant-time method of Gray et al. ("Quickly Generating Billion-Record Synthetic Databases",
 * SIGMOD'94), as YCSB's request distribution does. Rank 0 is the hottest. {@link KeyChooser} then
 * scatters ranks over the key space with a {@link Permutation}, so hot keys are not neighbours (YCSB's
 * "scrambled" Zipfian), which would otherwise make a Zipfian run a test of one hot block.
 *
 * <p>Building one costs O(n) for the zeta constant (about 0.1 s for 4M keys); the instance is
 * immutable, and {@link #next(SplittableRandom)} is thread-safe with a per-thread random source.
 */
public final class Zipfian {
    private final long n;
    private final double theta;
    private final double zetaN;
    private final double alpha;
    private final double eta;
    private final double half;

    public Zipfian(long n, double theta) {
        if (n < 2) {
            throw new IllegalArgumentException("a Zipfian needs n >= 2: " + n);
        }
        if (!(theta > 0 && theta < 1)) {
            throw new IllegalArgumentException("Zipfian theta must be in (0, 1): " + theta);
        }
        this.n = n;
        this.theta = theta;
        this.zetaN = zeta(n, theta);
        double zeta2 = zeta(2, theta);
        this.alpha = 1.0 / (1.0 - theta);
        this.eta = (1 - Math.pow(2.0 / n, 1 - theta)) / (1 - zeta2 / zetaN);
        this.half = 1 + Math.pow(0.5, theta);
    }

    /** sum over i in 1..n of 1/i^theta. */
    static double zeta(long n, double theta) {
        double sum = 0;
        for (long i = 1; i <= n; i++) {
            sum += 1.0 / Math.pow(i, theta);
        }
        return sum;
    }

    /** The exact probability of rank {@code r} (for tests). */
    public double probability(long r) {
        return 1.0 / Math.pow(r + 1, theta) / zetaN;
    }

    /** Number of ranks. */
    public long size() {
        return n;
    }

    /** A rank in [0, n). */
    public long next(SplittableRandom random) {
        double u = random.nextDouble();
        double uz = u * zetaN;
        if (uz < 1.0) {
            return 0;
        }
        if (uz < half) {
            return 1;
        }
        long r = (long) (n * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(r, n - 1);
    }
}
