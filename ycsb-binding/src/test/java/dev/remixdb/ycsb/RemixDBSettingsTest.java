package dev.remixdb.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.Compression;
import dev.remixdb.Options;
import dev.remixdb.compaction.RemixDbPolicy;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Properties;

class RemixDBSettingsTest {

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static String error(Properties p) {
        return assertThrows(IllegalArgumentException.class, () -> RemixDBSettings.from(p)).getMessage();
    }

    @Test
    void onlyTheDirectoryGivesTheStoreDefaults() {
        RemixDBSettings s = RemixDBSettings.from(props("remixdb.dir", "/tmp/x", "recordcount", "5"));
        assertEquals(Path.of("/tmp/x"), s.dir());
        assertEquals(Options.defaults().toString(), s.options().toString());
    }

    @Test
    void everyPropertyReachesTheOptions() {
        Options o = RemixDBSettings.from(props("remixdb.dir", "d", "remixdb.memtable_size", "32m",
                "remixdb.cache_size", "1g", "remixdb.table_size", "8388608", "remixdb.sync", "true",
                "remixdb.compression", "LZ4", "remixdb.compaction_threads", "1",
                "remixdb.compaction.max_tables", "8", "remixdb.compaction.split_tables", "3",
                "remixdb.compaction.abort_below", "0.25", "remixdb.compaction.run_cost", "0.5",
                "remixdb.jmx", "false", "remixdb.frozen_in_cache_room", "true",
                "remixdb.wal_flush_millis", "0")).options();
        assertTrue(o.frozenInCacheRoom());
        assertEquals(0, o.walFlushMillis());
        assertEquals(32L << 20, o.memtableBytes());
        assertEquals(1L << 30, o.blockCacheBytes());
        assertEquals(8L << 20, o.tableBytes());
        assertTrue(o.syncWrites());
        assertEquals(Compression.LZ4, o.compression());
        assertEquals(1, o.compactionThreads());
        assertEquals(RemixDbPolicy.builder().maxTables(8).splitTables(3).abortBelowFraction(0.25).runCost(0.5)
                .build().toString(), o.compactionPolicy().toString());
    }

    @Test
    void statsArePrintedOnlyWhenAsked() {
        assertFalse(RemixDBSettings.from(props("remixdb.dir", "d")).printStats());
        RemixDBSettings s = RemixDBSettings.from(props("remixdb.dir", "d", "remixdb.print_stats", "true"));
        assertTrue(s.printStats());
        assertTrue(s.describe().contains("remixdb.print_stats=true"), s.describe());
        assertTrue(s.describe().contains("remixdb.jmx=false"), "every property is described: " + s.describe());
        assertTrue(error(props("remixdb.dir", "d", "remixdb.print_stats", "yes")).startsWith("remixdb.print_stats"));
    }

    @Test
    void missingDirectoryIsAClearError() {
        String m = error(props("remixdb.cache_size", "1g"));
        assertTrue(m.startsWith("remixdb.dir is required"), m);
    }

    @Test
    void valuesTheStoreRefusesAreNamedByTheirProperty() {
        String m = error(props("remixdb.dir", "d", "remixdb.memtable_size", "1k"));
        assertTrue(m.startsWith("remixdb.memtable_size='1k' is out of range"), m);
        assertTrue(error(props("remixdb.dir", "d", "remixdb.compaction_threads", "100"))
                .startsWith("remixdb.compaction_threads"));
        assertTrue(error(props("remixdb.dir", "d", "remixdb.wal_flush_millis", "-1")).startsWith("remixdb.wal_flush_millis"));
        assertTrue(error(props("remixdb.dir", "d", "remixdb.compaction.max_tables", "1"))
                .startsWith("remixdb.compaction.max_tables"));
        assertTrue(error(props("remixdb.dir", "d", "remixdb.compaction.abort_below", "2"))
                .startsWith("remixdb.compaction.abort_below"));
    }

    @Test
    void withoutCompactionPropertiesTheSystemPropertyChoosesThePolicy() {
        String before = System.getProperty("remixdb.compactionPolicy");
        System.setProperty("remixdb.compactionPolicy", "garnering");
        try {
            Options o = RemixDBSettings.from(props("remixdb.dir", "d")).options();
            assertEquals(Options.defaults().compactionPolicy().toString(), o.compactionPolicy().toString());
            assertTrue(o.compactionPolicy().toString().toLowerCase(java.util.Locale.ROOT).contains("garnering"),
                    o.compactionPolicy().toString());
            Options own = RemixDBSettings.from(props("remixdb.dir", "d", "remixdb.compaction.max_tables", "8")).options();
            assertEquals(RemixDbPolicy.builder().maxTables(8).build().toString(), own.compactionPolicy().toString());
        } finally {
            if (before == null) {
                System.clearProperty("remixdb.compactionPolicy");
            } else {
                System.setProperty("remixdb.compactionPolicy", before);
            }
        }
    }

    @Test
    void malformedAndUnknownPropertiesAreNamed() {
        assertTrue(error(props("remixdb.dir", "d", "remixdb.cache_size", "lots")).startsWith("remixdb.cache_size"));
        assertTrue(error(props("remixdb.dir", "d", "remixdb.sync", "yes")).startsWith("remixdb.sync"));
        assertTrue(error(props("remixdb.dir", "d", "remixdb.frozen_in_cache_room", "1")).startsWith("remixdb.frozen_in_cache_room"));
        assertTrue(error(props("remixdb.dir", "d", "remixdb.compression", "zstd")).startsWith("remixdb.compression"));
        assertTrue(error(props("remixdb.dir", "d", "remixdb.cachesize", "1g")).contains("[remixdb.cachesize]"));
        assertTrue(error(props("remixdb.dir", "d", "remixdb.compaction.max_tables", "2",
                "remixdb.compaction.split_tables", "2")).contains("splitTables"));
    }

    @Test
    void sizesParseAndPrint() {
        assertEquals(1536, Sizes.parse("p", "1536"));
        assertEquals(64L << 10, Sizes.parse("p", "64K"));
        assertEquals(3L << 30, Sizes.parse("p", " 3g "));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parse("p", "-1"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parse("p", "m"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parse("p", "99999999999g"));
        assertEquals("64m", Sizes.format(64L << 20));
        assertEquals("1g", Sizes.format(1L << 30));
        assertEquals("1000", Sizes.format(1000));
    }
}
