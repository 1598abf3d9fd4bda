package dev.remixdb.bench.micro;

import java.util.List;
import java.util.Optional;

/** All that one {@code remix-micro} run measured. */
public record MicroReport(MicroOptions options, List<Result> results, List<RemixSize> sizes,
                          double wallSeconds, String started) {

    public MicroReport {
        results = List.copyOf(results);
        sizes = List.copyOf(sizes);
    }

    /** The baseline {@code index} measured in the same phase, locality and H as {@code r}. */
    public Optional<Result> baseline(Result r, String index) {
        for (Result b : results) {
            if (b.index().equals(index) && b.phase() == r.phase() && b.runs() == r.runs()
                    && b.locality().equals(r.locality())) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    /** {@code r}'s throughput over the baseline's, or NaN when there is no such baseline (or r is it). */
    public double speedup(Result r, String index) {
        if (r.index().equals(index)) {
            return Double.NaN;
        }
        return baseline(r, index).map(b -> r.opsPerSec() / b.opsPerSec()).orElse(Double.NaN);
    }
}
