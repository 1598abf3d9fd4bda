package dev.remixdb.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.bench.BenchMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short variant of {@code db} that CI runs: both stores, each in a child JVM, every phase, tiny
 * counts and tiny memtables (so flushes and compactions happen), then the JSON is read back: every
 * phase x store is there with positive ops/s, no wrong answer, and fields that make sense.
 */
class DbBenchEndToEndTest {
    @TempDir
    Path tmp;

    @Test
    void everyPhaseOnBothStoresInChildJvms() throws Exception {
        Path json = tmp.resolve("db.json");
        Path charts = tmp.resolve("charts");
        int rc = BenchMain.run(new String[] {"db", "--keys", "20k", "--reads", "5k", "--seeks", "5k",
                "--scans", "1k", "--writes", "10k", "--phases", "all", "--remix-memtable-mb", "1",
                "--rocks-write-buffer-mb", "1", "--cache-mb", "16", "--heap", "512m", "--no-progress",
                "--dir", tmp.resolve("stores").toString(), "--json", json.toString(), "--chart", charts.toString()});
        assertEquals(0, rc, "db exit code");
        String out = Files.readString(json);
        List<String> phases = new ArrayList<>(List.of("load", "readrandom", "readmissing", "seekrandom", "seeknext10",
                "seeknext50", "seeknext100", "seekprev50", "overwrite", "overwritebatch100", "readwhilewriting", "deletes",
                "readrandom-2", "fillseq"));
        for (String store : Store.NAMES) {
            for (String phase : phases) {
                String r = record(out, phase, store);
                assertTrue(num(r, "opsPerSec") > 0, phase + "/" + store + " ops/s in " + r);
                assertEquals(0, num(r, "errors"), phase + "/" + store + " errors in " + r);
                assertTrue(num(r, "p99Micros") >= num(r, "p50Micros") && num(r, "p50Micros") > 0, r);
                assertTrue(num(r, "diskBytes") > 0 && num(r, "peakRssBytes") > 0, r);
                assertTrue(num(r, "spaceAmplification") > 0.5, r);
                if (List.of("load", "fillseq", "overwrite", "overwritebatch100").contains(phase)) {
                    // The WAL alone is one copy of every user byte; the tables are a second.
                    double wa = num(r, "writeAmplification");
                    assertTrue(wa >= 1.0 && wa < 50, phase + "/" + store + " write amplification " + wa);
                }
                if (phase.startsWith("read") && !phase.equals("readmissing")) {
                    assertTrue(num(r, "found") > 0, r);
                }
            }
            assertTrue(num(record(out, "readmissing", store), "found") == 0, "readmissing finds nothing");
            assertTrue(num(record(out, "seeknext50", store), "entries") > 0);
            assertTrue(num(record(out, "seekprev50", store), "entries") > 0);
        }
        assertTrue(out.contains("\"ratios\"") && out.contains("\"goals\"") && out.contains("\"storeOptions\""));
        for (String png : List.of("db-throughput.png", "db-latency.png", "db-io.png")) {
            assertTrue(Files.size(charts.resolve(png)) > 1000, png);
        }
        assertTrue(!Files.exists(tmp.resolve("stores/remixdb")), "store directories are removed without --keep");
    }

    @Test
    void zipfianMultiThreadedSmallValues() throws Exception {
        Path json = tmp.resolve("zipf.json");
        int rc = BenchMain.run(new String[] {"db", "--keys", "20k", "--reads", "6k", "--scans", "1k",
                "--phases", "fillseq,readrandom,seeknext10,readwhilewriting", "--threads", "2", "--dist", "zipf",
                "--value-size", "40", "--stores", "rocksdb,remixdb", "--cache-mb", "16", "--heap", "512m",
                "--no-progress", "--json", json.toString()});
        assertEquals(0, rc);
        String out = Files.readString(json);
        for (String store : Store.NAMES) {
            String r = record(out, "readrandom", store);
            assertEquals(2, num(r, "threads"), r);
            assertEquals(6000, num(r, "ops"), r);
            assertTrue(num(record(out, "readwhilewriting", store), "writerOps") > 0);
        }
        assertTrue(out.contains("\"dist\": \"zipf\"") && out.contains("\"valueBytes\": 40"));
    }

    /** An import without the WAL, then every key read back and scanned (the checks count errors). */
    @Test
    void bulkLoadThenReads() throws Exception {
        Path json = tmp.resolve("bulk.json");
        int rc = BenchMain.run(new String[] {"db", "--keys", "20k", "--reads", "20k", "--scans", "1k",
                "--phases", "bulkload300,readrandom,seeknext50", "--remix-memtable-mb", "1", "--rocks-write-buffer-mb", "1",
                "--cache-mb", "16", "--heap", "512m", "--no-progress", "--json", json.toString()});
        assertEquals(0, rc);
        String out = Files.readString(json);
        for (String store : Store.NAMES) {
            String load = record(out, "bulkload300", store);
            assertEquals(20_000, num(load, "ops"), load);
            assertEquals(0, num(load, "errors"), load);
            String reads = record(out, "readrandom", store);
            assertEquals(0, num(reads, "errors"), reads);
            assertEquals(20_000, num(reads, "found"), "every imported key is read back: " + reads);
            assertEquals(0, num(record(out, "seeknext50", store), "errors"));
        }
    }

    /** The one-line JSON record of phase and store. */
    static String record(String json, String phase, String store) {
        Matcher m = Pattern.compile("\\{\"phase\": \"" + Pattern.quote(phase) + "\", \"store\": \"" + store + "\"[^\\n]*")
                .matcher(json);
        assertTrue(m.find(), phase + "/" + store + " missing in " + json);
        return m.group();
    }

    /** A number field of a record; NaN when absent or null. */
    static double num(String record, String field) {
        Matcher m = Pattern.compile("\"" + field + "\": (-?[0-9.eE+-]+)").matcher(record);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }
}
