package dev.remixdb.bench.micro;

import dev.remixdb.bench.Closeables;
import dev.remixdb.bench.baseline.BloomFilter;
import dev.remixdb.bench.data.Dataset;
import dev.remixdb.remix.MemoryRun;
import dev.remixdb.remix.Remix;
import dev.remixdb.remix.RemixConfig;
import dev.remixdb.remix.RemixCursor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything built over one {@link Dataset}: REMIXes with tags for each segment size asked for, one
 * without tags, and a Bloom filter per run. Owns the REMIXes (closed before the dataset's runs);
 * makes {@link Target}s over them.
 */
final class IndexSet implements AutoCloseable {
    private final Dataset data;
    private final Map<Integer, Remix> tagged = new TreeMap<>();
    private final List<RemixSize> sizes = new ArrayList<>();
    private Remix untagged;
    private List<BloomFilter> filters;

    private IndexSet(Dataset data) {
        this.data = data;
    }

    /**
     * Builds the indexes.
     *
     * @param segments      segment sizes D of the tagged REMIXes
     * @param untaggedSize  D of the REMIX without tags, or 0 for none
     * @param bloomBits     Bloom filter bits per key, or 0 for no filters
     */
    static IndexSet build(Dataset data, Collection<Integer> segments, int untaggedSize, int bloomBits) {
        IndexSet set = new IndexSet(data);
        try {
            String loc = data.locality().label();
            for (int d : segments) {
                long t0 = System.nanoTime();
                Remix r = Remix.build(data.runs(), new RemixConfig(d, true));
                set.tagged.put(d, r);
                set.sizes.add(RemixSize.of(loc, r, (System.nanoTime() - t0) / 1e9));
            }
            if (untaggedSize > 0) {
                long t0 = System.nanoTime();
                set.untagged = Remix.build(data.runs(), new RemixConfig(untaggedSize, false));
                set.sizes.add(RemixSize.of(loc, set.untagged, (System.nanoTime() - t0) / 1e9));
            }
            if (bloomBits > 0) {
                List<BloomFilter> fs = new ArrayList<>();
                for (MemoryRun run : data.runs()) {
                    fs.add(BloomFilter.of(run, bloomBits));
                }
                set.filters = fs;
            }
            return set;
        } catch (RuntimeException | Error e) {
            set.close();
            throw e;
        }
    }

    /** Sizes of the REMIXes built, in build order. */
    List<RemixSize> sizes() {
        return sizes;
    }

    /**
     * A new target for {@code index} ("remix-full", "remix-tagseek", "remix-partial", "remix-notags",
     * "merging", "bloom"); {@code segment} picks the REMIX (ignored by the baselines). {@code countSearch} makes
     * the baselines count the comparisons of their run searches (slower; for the untimed pass).
     */
    Target target(String index, int segment, boolean countSearch) {
        return switch (index) {
            case "remix-full" -> new RemixTarget(index, remix(segment), RemixCursor.Search.FULL, false);
            case "remix-tagseek" -> new RemixTarget(index, remix(segment), RemixCursor.Search.FULL, true);
            case "remix-partial" -> new RemixTarget(index, remix(segment), RemixCursor.Search.PARTIAL, false);
            case "remix-notags" -> {
                if (untagged == null || untagged.segmentSize() != segment) {
                    throw new IllegalStateException("no untagged REMIX with D=" + segment + " was built");
                }
                yield new RemixTarget(index, untagged, RemixCursor.Search.FULL, false);
            }
            case "merging" -> new MergingTarget(data.runs(), countSearch);
            case "bloom" -> {
                if (filters == null) {
                    throw new IllegalStateException("no Bloom filters were built");
                }
                yield new BloomTarget(data.runs(), filters, countSearch);
            }
            default -> throw new IllegalArgumentException("unknown index: " + index);
        };
    }

    private Remix remix(int segment) {
        Remix r = tagged.get(segment);
        if (r == null) {
            throw new IllegalStateException("no REMIX with D=" + segment + " was built");
        }
        return r;
    }

    /** Total bytes of Bloom filters (0 when none). */
    long bloomBytes() {
        long sum = 0;
        if (filters != null) {
            for (BloomFilter f : filters) {
                sum += f.sizeBytes();
            }
        }
        return sum;
    }

    @Override
    public void close() {
        List<Remix> all = new ArrayList<>(tagged.values());
        if (untagged != null) {
            all.add(untagged);
        }
        tagged.clear();
        untagged = null;
        Closeables.closeAll(all);
    }
}
