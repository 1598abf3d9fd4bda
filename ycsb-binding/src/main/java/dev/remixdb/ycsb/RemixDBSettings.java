package dev.remixdb.ycsb;

import dev.remixdb.Compression;
import dev.remixdb.Options;
import dev.remixdb.compaction.RemixDbPolicy;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code remixdb.*} properties of a YCSB run, turned into a directory and {@link Options}.
 * Every property but {@code remixdb.dir} is optional and defaults to the {@link Options} default;
 * a property this class does not know is an error, so a typo does not silently run the defaults.
 *
 * @param dir        where the store lives ({@code remixdb.dir})
 * @param options    the store's options
 * @param printStats whether the binding prints the store's stats at open and close ({@code remixdb.print_stats})
 */
record RemixDBSettings(Path dir, Options options, boolean printStats) {
    static final String DIR = "remixdb.dir";
    static final String MEMTABLE_SIZE = "remixdb.memtable_size";
    static final String CACHE_SIZE = "remixdb.cache_size";
    static final String TABLE_SIZE = "remixdb.table_size";
    static final String SYNC = "remixdb.sync";
    static final String WAL_FLUSH_MILLIS = "remixdb.wal_flush_millis";
    static final String COMPRESSION = "remixdb.compression";
    static final String COMPACTION_THREADS = "remixdb.compaction_threads";
    static final String FROZEN_IN_CACHE_ROOM = "remixdb.frozen_in_cache_room";
    static final String MAX_TABLES = "remixdb.compaction.max_tables";
    static final String SPLIT_TABLES = "remixdb.compaction.split_tables";
    static final String ABORT_BELOW = "remixdb.compaction.abort_below";
    static final String RUN_COST = "remixdb.compaction.run_cost";
    static final String JMX = "remixdb.jmx";
    static final String PRINT_STATS = "remixdb.print_stats";

    private static final Set<String> KNOWN = Set.of(DIR, MEMTABLE_SIZE, CACHE_SIZE, TABLE_SIZE, SYNC, WAL_FLUSH_MILLIS,
            COMPRESSION, COMPACTION_THREADS, FROZEN_IN_CACHE_ROOM, MAX_TABLES, SPLIT_TABLES, ABORT_BELOW, RUN_COST, JMX, PRINT_STATS);

    /**
     * Reads the settings.
     *
     * @throws IllegalArgumentException naming the property when one is missing, unknown or malformed
     */
    static RemixDBSettings from(Properties p) {
        Set<String> unknown = new TreeSet<>();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith("remixdb.") && !KNOWN.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown properties " + unknown + "; known: " + new TreeSet<>(KNOWN));
        }
        String dir = p.getProperty(DIR);
        if (dir == null || dir.isBlank()) {
            throw new IllegalArgumentException(DIR + " is required: the directory of the store "
                    + "(created if missing), e.g. -p " + DIR + "=/tmp/ycsb-remixdb");
        }
        Options.Builder b = Options.builder();
        String v;
        if ((v = p.getProperty(MEMTABLE_SIZE)) != null) {
            long bytes = Sizes.parse(MEMTABLE_SIZE, v);
            set(MEMTABLE_SIZE, v, () -> b.memtableBytes(bytes));
        }
        if ((v = p.getProperty(CACHE_SIZE)) != null) {
            long bytes = Sizes.parse(CACHE_SIZE, v);
            set(CACHE_SIZE, v, () -> b.blockCacheBytes(bytes));
        }
        if ((v = p.getProperty(TABLE_SIZE)) != null) {
            long bytes = Sizes.parse(TABLE_SIZE, v);
            set(TABLE_SIZE, v, () -> b.tableBytes(bytes));
        }
        if ((v = p.getProperty(SYNC)) != null) {
            b.syncWrites(bool(SYNC, v));
        }
        if ((v = p.getProperty(WAL_FLUSH_MILLIS)) != null) {
            int millis = integer(WAL_FLUSH_MILLIS, v);
            set(WAL_FLUSH_MILLIS, v, () -> b.walFlushMillis(millis));
        }
        if ((v = p.getProperty(JMX)) != null) {
            b.jmx(bool(JMX, v));
        }
        if ((v = p.getProperty(COMPRESSION)) != null) {
            b.compression(compression(v));
        }
        if ((v = p.getProperty(COMPACTION_THREADS)) != null) {
            int threads = integer(COMPACTION_THREADS, v);
            set(COMPACTION_THREADS, v, () -> b.compactionThreads(threads));
        }
        if ((v = p.getProperty(FROZEN_IN_CACHE_ROOM)) != null) {
            b.frozenInCacheRoom(bool(FROZEN_IN_CACHE_ROOM, v));
        }
        // Only when asked: otherwise the store's default stands, which a JVM run with
        // -Dremixdb.compactionPolicy=NAME chooses (to compare policies under YCSB).
        RemixDbPolicy policy = policy(p);
        if (policy != null) {
            b.compactionPolicy(policy);
        }
        boolean printStats = (v = p.getProperty(PRINT_STATS)) != null && bool(PRINT_STATS, v);
        return new RemixDBSettings(Path.of(dir), b.build(), printStats);
    }

    /** Runs a setter of {@link Options} or the policy; its refusal of a value names the property. */
    private static void set(String name, String raw, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + "='" + raw + "' is out of range: " + e.getMessage(), e);
        }
    }

    /** One line per setting, for the run's log: what was actually used. */
    String describe() {
        Options o = options;
        return "RemixDB settings: " + DIR + "=" + dir
                + "\n  " + MEMTABLE_SIZE + "=" + Sizes.format(o.memtableBytes())
                + "\n  " + CACHE_SIZE + "=" + Sizes.format(o.blockCacheBytes())
                + "\n  " + TABLE_SIZE + "=" + Sizes.format(o.tableBytes())
                + "\n  " + SYNC + "=" + o.syncWrites()
                + "\n  " + WAL_FLUSH_MILLIS + "=" + o.walFlushMillis()
                + "\n  " + COMPRESSION + "=" + o.compression().name().toLowerCase(Locale.ROOT)
                + "\n  " + COMPACTION_THREADS + "=" + o.compactionThreads()
                + "\n  " + FROZEN_IN_CACHE_ROOM + "=" + o.frozenInCacheRoom()
                + "\n  " + JMX + "=" + o.jmx()
                + "\n  compaction policy (remixdb.compaction.*): " + o.compactionPolicy()
                + "\n  memtable abort fraction (not settable here): " + o.abortFraction()
                + "\n  " + PRINT_STATS + "=" + printStats;
    }

    /** The RemixDB policy the {@code remixdb.compaction.*} properties describe, or null when none is set. */
    private static RemixDbPolicy policy(Properties p) {
        RemixDbPolicy.Builder b = RemixDbPolicy.builder();
        boolean any = false;
        String v;
        if ((v = p.getProperty(MAX_TABLES)) != null) {
            int n = integer(MAX_TABLES, v);
            set(MAX_TABLES, v, () -> b.maxTables(n));
            any = true;
        }
        if ((v = p.getProperty(SPLIT_TABLES)) != null) {
            int n = integer(SPLIT_TABLES, v);
            set(SPLIT_TABLES, v, () -> b.splitTables(n));
            any = true;
        }
        if ((v = p.getProperty(ABORT_BELOW)) != null) {
            double f = decimal(ABORT_BELOW, v);
            set(ABORT_BELOW, v, () -> b.abortBelowFraction(f));
            any = true;
        }
        if ((v = p.getProperty(RUN_COST)) != null) {
            double c = decimal(RUN_COST, v);
            set(RUN_COST, v, () -> b.runCost(c));
            any = true;
        }
        if (!any) {
            return null;
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("remixdb.compaction.* properties do not fit together: " + e.getMessage(), e);
        }
    }

    private static Compression compression(String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "none" -> Compression.NONE;
            case "lz4" -> Compression.LZ4;
            default -> throw new IllegalArgumentException(COMPRESSION + " must be none or lz4: '" + v + "'");
        };
    }

    private static boolean bool(String name, String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(name + " must be true or false: '" + v + "'");
        };
    }

    private static int integer(String name, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer: '" + v + "'");
        }
    }

    private static double decimal(String name, String v) {
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number: '" + v + "'");
        }
    }
}
