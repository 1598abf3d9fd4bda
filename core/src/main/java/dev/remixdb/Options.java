package dev.remixdb;

import dev.remixdb.compaction.CompactionPolicy;
import dev.remixdb.compaction.RemixDbPolicy;
import dev.remixdb.engine.EngineConfig;
import dev.remixdb.io.BlockReaders;
import dev.remixdb.table.BlockCompression;
import dev.remixdb.table.TableOptions;
import dev.remixdb.util.Limits;

/**
 * Settings of a {@link RemixDB}: an immutable value made by {@link #builder()} and validated by
 * {@link Builder#build()}. The store copies what it needs; the object need not be kept alive.
 */
public final class Options {
    /** The largest key, in bytes: 64 KiB. */
    public static final int MAX_KEY_BYTES = Limits.MAX_KEY_BYTES;
    /** The largest value, in bytes: 64 MiB. */
    public static final int MAX_VALUE_BYTES = Limits.MAX_VALUE_BYTES;

    private final long memtableBytes;
    private final long blockCacheBytes;
    private final boolean syncWrites;
    private final long walFlushMillis;
    private final int maxFrozenMemtables;
    private final boolean frozenInCacheRoom;
    private final int compactionThreads;
    private final long tableBytes;
    private final Compression compression;
    private final CompactionPolicy policy;
    private final double abortFraction;
    private final boolean jmx;
    private final IoEngine ioEngine;
    private final boolean directIo;

    private Options(Builder b) {
        this.memtableBytes = b.memtableBytes;
        this.blockCacheBytes = b.blockCacheBytes;
        this.syncWrites = b.syncWrites;
        this.walFlushMillis = b.walFlushMillis;
        this.maxFrozenMemtables = b.maxFrozenMemtables;
        this.frozenInCacheRoom = b.frozenInCacheRoom;
        this.compactionThreads = b.compactionThreads;
        this.tableBytes = b.tableBytes;
        this.compression = b.compression;
        this.ioEngine = b.ioEngine;
        this.directIo = b.directIo;
        // Direct I/O makes the block cache the only cache: reads past it go to the device, where a
        // scan pays a read per run, so the default policy also merges scanned partitions of many runs.
        this.policy = b.policy != null ? b.policy
                : b.directIo ? RemixDbPolicy.withIdleMerges() : RemixDbPolicy.defaults();
        this.abortFraction = b.abortFraction;
        this.jmx = b.jmx;
    }

    /** A builder with every setting at its default. */
    public static Builder builder() {
        return new Builder();
    }

    /** The default options. */
    public static Options defaults() {
        return builder().build();
    }

    /** User bytes a memtable takes before it is frozen and compacted. Default: 64 MiB. */
    public long memtableBytes() {
        return memtableBytes;
    }

    /**
     * Full memtables that may wait for compaction at once. Writers fill a new memtable while earlier
     * ones are compacted, and stop only when this many are waiting and the active one is full
     * (before that, they are slowed down gradually: see {@link Stats#slowdownNanos()}). Memory for
     * memtables is at most (1 + this) x {@link #memtableBytes()}. Default: 2.
     */
    public int maxFrozenMemtables() {
        return maxFrozenMemtables;
    }

    /**
     * Whether full memtables may also wait for compaction in the block cache's unused room: beyond
     * {@link #maxFrozenMemtables()}, more may be frozen (8 at most in all) while their native memory,
     * with the active memtable's, fits in what the cache has not taken of {@link #blockCacheBytes()}
     * ({@link Stats#blockCacheBytes()} is what it has taken; it only grows). A bulk load or a restore
     * into a store whose cache is still empty then keeps writing while a long compaction runs, and
     * the store's memtables and cache together stay within the memory they would take with the cache
     * full. Once the cache has grown, the limit is {@link #maxFrozenMemtables()} again, and writers
     * wait (or are slowed) until compaction has taken the extra ones: until then, memory can exceed
     * the two budgets by the memtables that were frozen in the cache's room. Default: false. The
     * Kafka Streams store turns it on (its restores write into an empty cache).
     */
    public boolean frozenInCacheRoom() {
        return frozenInCacheRoom;
    }

    /** Off-heap bytes of the block cache shared by all tables. Default: 256 MiB. */
    public long blockCacheBytes() {
        return blockCacheBytes;
    }

    /** Whether every write waits for its WAL record to reach the disk. Default: false. */
    public boolean syncWrites() {
        return syncWrites;
    }

    /**
     * How long a write that was not synced may wait in the WAL's buffer before it is written to the
     * file. A write is durable against a power loss once {@link RemixDB#sync()} returns after it (or
     * with {@link #syncWrites()}); against a crash of the process (kill -9) it is durable once it is
     * in the file, that is at most this long after it returned. In between, consecutive writes share
     * WAL records and write system calls, which is what makes small writes cheap: with 0 every write
     * is in the file before it returns (one system call per write group), as RocksDB does by default.
     * Whatever a crash loses is always the newest writes: what the store holds after any crash is
     * its state after some write. Default: 1 ms.
     */
    public long walFlushMillis() {
        return walFlushMillis;
    }

    /** Background threads that compact partitions in parallel. Default: 2. */
    public int compactionThreads() {
        return compactionThreads;
    }

    /** Size at which compaction cuts table files. Default: 64 MiB (REMIX §4.2). */
    public long tableBytes() {
        return tableBytes;
    }

    /** Block compression of new table files. Default: {@link Compression#NONE}. */
    public Compression compression() {
        return compression;
    }

    /**
     * Decides what each partition's compaction does. Default: {@link RemixDbPolicy#defaults()}, and
     * with {@link #directIo()} {@link RemixDbPolicy#withIdleMerges()} (the block cache is then the
     * only cache, and out of it a scan reads a block in each run of a partition, so partitions that
     * scans keep walking are merged into one run when the store is idle); or the built-in policy
     * that the system property {@code remixdb.compactionPolicy} names ({@code remixdb},
     * {@code garnering}, {@code rangereduce} or {@code garnering+rangereduce}, see
     * {@link dev.remixdb.compaction.CompactionPolicies#named(String)}). A policy only decides how
     * tables are merged: stores written under one policy open under any other.
     */
    public CompactionPolicy compactionPolicy() {
        return policy;
    }

    /**
     * Fraction of the memtable that may stay in memory when the policy aborts a partition's
     * compaction (REMIX §4.2 keeps at most 15%). Default: 0.15.
     */
    public double abortFraction() {
        return abortFraction;
    }

    /**
     * Whether the store registers its {@link StatsMXBean} with the platform MBean server while open,
     * as {@code dev.remixdb:type=RemixDB,path="<dir>"}. Default: false.
     */
    public boolean jmx() {
        return jmx;
    }

    /** How table files are read. Default: {@link IoEngine#AUTO} (see there for the system property). */
    public IoEngine ioEngine() {
        return ioEngine;
    }

    /**
     * Whether table files are read with direct I/O ({@code O_DIRECT}): the page cache is bypassed, so
     * the block cache is the only cache of table data and its budget is the store's memory for reads;
     * reads that miss it go to the device. Needs the io_uring engine; where io_uring cannot run the
     * store reads through the page cache and its log line says so. Writes are not affected. Unless a
     * compaction policy is chosen, direct I/O also selects {@link RemixDbPolicy#withIdleMerges()}
     * (see {@link #compactionPolicy()}). Default: false.
     */
    public boolean directIo() {
        return directIo;
    }

    /** What the engine reads of these options. */
    EngineConfig engineConfig() {
        BlockCompression blocks = switch (compression) {
            case NONE -> BlockCompression.NONE;
            case LZ4 -> BlockCompression.LZ4;
        };
        return new EngineConfig(memtableBytes, syncWrites, compactionThreads, tableBytes,
                TableOptions.DEFAULT.withCompression(blocks), policy, abortFraction, blockCacheBytes, walFlushMillis,
                maxFrozenMemtables, frozenInCacheRoom, BlockReaders.Kind.valueOf(ioEngine.name()), directIo);
    }

    @Override
    public String toString() {
        return "Options[memtableBytes=" + memtableBytes + ", blockCacheBytes=" + blockCacheBytes
                + ", maxFrozenMemtables=" + maxFrozenMemtables + ", frozenInCacheRoom=" + frozenInCacheRoom
                + ", syncWrites=" + syncWrites + ", walFlushMillis=" + walFlushMillis
                + ", compactionThreads=" + compactionThreads
                + ", tableBytes=" + tableBytes + ", compression=" + compression
                + ", policy=" + policy + ", abortFraction=" + abortFraction + ", jmx=" + jmx + ", ioEngine=" + ioEngine + ", directIo=" + directIo + "]";
    }

    /** Builds {@link Options}; every setter validates its argument. */
    public static final class Builder {
        private long memtableBytes = 64L << 20;
        private long blockCacheBytes = 256L << 20;
        private boolean syncWrites;
        private long walFlushMillis = 1;
        private int maxFrozenMemtables = 2;
        private boolean frozenInCacheRoom;
        private int compactionThreads = 2;
        private long tableBytes = 64L << 20;
        private Compression compression = Compression.NONE;
        /** Null until chosen by {@link #compactionPolicy} or the system property: see {@link Options#compactionPolicy()}. */
        private CompactionPolicy policy = propertyPolicy();
        private double abortFraction = 0.15;
        private boolean jmx;
        private IoEngine ioEngine = defaultIoEngine();
        private boolean directIo;

        private Builder() {}

        private static CompactionPolicy propertyPolicy() {
            String name = System.getProperty("remixdb.compactionPolicy");
            if (name == null || name.isBlank()) {
                return null;
            }
            try {
                return dev.remixdb.compaction.CompactionPolicies.named(name);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("system property remixdb.compactionPolicy: " + e.getMessage(), e);
            }
        }

        private static IoEngine defaultIoEngine() {
            String name = System.getProperty("remixdb.ioEngine");
            if (name == null || name.isBlank()) {
                return IoEngine.AUTO;
            }
            try {
                return IoEngine.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("system property remixdb.ioEngine=" + name
                        + " names no IoEngine; one of " + java.util.Arrays.toString(IoEngine.values()), e);
            }
        }

        /** See {@link Options#directIo()}. */
        public Builder directIo(boolean direct) {
            this.directIo = direct;
            return this;
        }

        /** See {@link Options#ioEngine()}. */
        public Builder ioEngine(IoEngine engine) {
            if (engine == null) {
                throw new IllegalArgumentException("ioEngine must not be null");
            }
            this.ioEngine = engine;
            return this;
        }

        /** See {@link Options#jmx()}. */
        public Builder jmx(boolean enabled) {
            this.jmx = enabled;
            return this;
        }

        /** See {@link Options#memtableBytes()}; 4 KiB to 16 GiB. */
        public Builder memtableBytes(long bytes) {
            // Above: entry counts that an index keeps in ints, and a WAL to replay for minutes.
            this.memtableBytes = within("memtableBytes", bytes, 4096, 16L << 30);
            return this;
        }

        /** See {@link Options#blockCacheBytes()}; 0 (nothing cached beyond blocks in use) to 1 TiB. */
        public Builder blockCacheBytes(long bytes) {
            this.blockCacheBytes = within("blockCacheBytes", bytes, 0, 1L << 40);
            return this;
        }

        /** See {@link Options#syncWrites()}. */
        public Builder syncWrites(boolean sync) {
            this.syncWrites = sync;
            return this;
        }

        /** See {@link Options#maxFrozenMemtables()}; 1 to 8. */
        public Builder maxFrozenMemtables(int count) {
            if (count < 1 || count > 8) {
                throw new IllegalArgumentException("maxFrozenMemtables must be 1..8: " + count);
            }
            this.maxFrozenMemtables = count;
            return this;
        }

        /** See {@link Options#frozenInCacheRoom()}. */
        public Builder frozenInCacheRoom(boolean allowed) {
            this.frozenInCacheRoom = allowed;
            return this;
        }

        /** See {@link Options#walFlushMillis()}; 0 to 10,000. */
        public Builder walFlushMillis(long millis) {
            if (millis < 0 || millis > 10_000) {
                throw new IllegalArgumentException("walFlushMillis must be 0..10000: " + millis);
            }
            this.walFlushMillis = millis;
            return this;
        }

        /** See {@link Options#compactionThreads()}; 1 to 64. */
        public Builder compactionThreads(int threads) {
            if (threads < 1 || threads > 64) {
                throw new IllegalArgumentException("compactionThreads must be 1..64: " + threads);
            }
            this.compactionThreads = threads;
            return this;
        }

        /** See {@link Options#tableBytes()}; 4 KiB to 1 GiB. */
        public Builder tableBytes(long bytes) {
            // Above: a table could reach its format's limit of 2^20 blocks before it is cut.
            this.tableBytes = within("tableBytes", bytes, 4096, 1L << 30);
            return this;
        }

        /** See {@link Options#compression()}. */
        public Builder compression(Compression compression) {
            if (compression == null) {
                throw new IllegalArgumentException("compression must not be null");
            }
            this.compression = compression;
            return this;
        }

        /** See {@link Options#compactionPolicy()}. */
        public Builder compactionPolicy(CompactionPolicy policy) {
            if (policy == null) {
                throw new IllegalArgumentException("compactionPolicy must not be null");
            }
            this.policy = policy;
            return this;
        }

        /** See {@link Options#abortFraction()}; 0 (never keep data back) to 0.5. */
        public Builder abortFraction(double fraction) {
            if (!(fraction >= 0 && fraction <= 0.5)) {
                throw new IllegalArgumentException("abortFraction must be in [0, 0.5]: " + fraction);
            }
            this.abortFraction = fraction;
            return this;
        }

        /** The options. */
        public Options build() {
            return new Options(this);
        }

        private static long within(String name, long value, long min, long max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be " + min + ".." + max + ": " + value);
            }
            return value;
        }
    }
}
