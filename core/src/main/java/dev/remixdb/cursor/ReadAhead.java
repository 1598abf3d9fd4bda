package dev.remixdb.cursor;

import dev.remixdb.cache.BlockCache;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Whether a scan should fetch the next block of every run at once when it starts ({@link
 * VersionSource}). Worth it only when the reader runs a batch's reads in parallel (io_uring) and
 * blocks are missing from the cache often enough that scans wait on the disk: with the data in the
 * cache, asking the cache about every run's next block costs time and saves none. The cache's
 * hits and misses are sampled every {@value #SAMPLE} questions; more than one miss in a hundred
 * lookups turns read-ahead on, if most blocks read by lookups themselves since the last judgement
 * were {@linkplain BlockCache#slowLoads() slow}; it is judged again once at least {@value #MIN_LOADS}
 * such reads have accumulated.
 *
 * <p>Why the second test: a block missing from the block cache may still be in the page cache,
 * where a {@code pread} on the scan's own thread takes a few microseconds, less than the trip of a
 * batch through the io_uring thread and back. Data read that way (a store in memory whose block
 * cache is still cold, micro1's first scans) ran at 0.64x the scans per second of the same pass
 * without read-ahead; its reads took 2 us on average. A device read takes longer (51 us with
 * direct I/O on the benchmark machine's disk, about 10 us on a fast NVMe drive), and there
 * overlapping a scan's reads pays. Most reads, not their mean: a read that waited for the CPU or a
 * GC pause should not turn read-ahead on for page-cache data.
 *
 * <p>The system property {@code remixdb.scanReadAhead} ({@code auto}, {@code always},
 * {@code never}) overrides the choice, for benchmarks and tests. Thread-safe.
 */
public final class ReadAhead {
    private static final int SAMPLE = 1024;
    /** Blocking reads needed to judge again whether misses are slow; fewer carry over to the next sample. */
    static final int MIN_LOADS = 32;

    private final BlockCache cache;
    private final boolean parallel;
    private final Boolean forced;
    private final AtomicLong asked = new AtomicLong();
    private final LongAdder blocks = new LongAdder();
    private volatile boolean on;
    private long lastHits;
    private long lastMisses;
    private long lastLoads;
    private long lastSlowLoads;
    /** Whether the last sample with blocking reads found them slow enough; until then, assumed so. */
    private boolean slowLoads = true;

    /** Read-ahead over {@code cache}; {@code parallelReads}: the reader overlaps a batch's reads. */
    public ReadAhead(BlockCache cache, boolean parallelReads) {
        this.cache = cache;
        this.parallel = parallelReads;
        String mode = System.getProperty("remixdb.scanReadAhead", "auto").trim().toLowerCase(Locale.ROOT);
        this.forced = switch (mode) {
            case "always" -> Boolean.TRUE;
            case "never" -> Boolean.FALSE;
            case "auto", "" -> null;
            default -> throw new IllegalArgumentException(
                    "system property remixdb.scanReadAhead=" + mode + ": expected auto, always or never");
        };
    }

    /** Whether the scan starting now should fetch ahead. */
    public boolean worthIt() {
        if (forced != null) {
            return forced;
        }
        if (!parallel) {
            return false;
        }
        if (asked.incrementAndGet() % SAMPLE == 0) {
            sample();
        }
        return on;
    }

    /** Counts blocks a scan read ahead into the cache. */
    void fetched(int count) {
        blocks.add(count);
    }

    /** Blocks scans have read ahead into the cache since the store opened. */
    public long blocksFetched() {
        return blocks.sum();
    }

    private synchronized void sample() {
        long hits = cache.hits();
        long misses = cache.misses();
        long h = hits - lastHits;
        long m = misses - lastMisses;
        lastHits = hits;
        lastMisses = misses;
        // Slow ones first: a load finishing between the two reads then counts as a load, not as slow.
        long slow = cache.slowLoads();
        long loads = cache.loads();
        // Judged again only on enough blocking reads: with read-ahead on, most misses are read
        // ahead, and a sample of a few loads (blocks the kernel happened to have) must not decide.
        if (loads - lastLoads >= MIN_LOADS) {
            slowLoads = (slow - lastSlowLoads) * 2 > loads - lastLoads;
            lastLoads = loads;
            lastSlowLoads = slow;
        }
        on = slowLoads && m * 100 > h + m;
    }
}
