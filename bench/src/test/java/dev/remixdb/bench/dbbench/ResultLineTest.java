package dev.remixdb.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The child-to-parent result line: one JSON object per line, read back exactly as it was sent. */
class ResultLineTest {

    /** A seek result on RemixDB: every field set, numbers chosen to break lossy formats. */
    static PhaseResult remixScan() {
        return new PhaseResult("seeknext50-2", "remixdb", "seeknext", 3, Long.MAX_VALUE, 1.0E-300,
                44_123.456789012345, 0.1 + 0.2, 1.0E-5, Double.MAX_VALUE, Double.MIN_VALUE, -0.0,
                9_007_199_254_740_993L, 0, -1, Long.MIN_VALUE, 123, 2.2908123456789, null, null, Double.NaN,
                1L << 40, 20_000, 1.0923, 125_267_968, 119_435_264, -1,
                new PhaseResult.Scan(50, 24_974), null,
                new PhaseResult.RemixCounters(Double.POSITIVE_INFINITY, 1.02, 4_194_304, 1, 7, 1, 2, 3, 4, 5, 6_000_000, 0.125, 0.25), null);
    }

    /** A readwhilewriting result on RocksDB: the writer's numbers and a list of file counts. */
    static PhaseResult rocksWriter() {
        return new PhaseResult("readwhilewriting", "rocksdb", "readwhilewriting", 2, 6000, 0.5, 12_000, 3.4, 15.9,
                125.25, 8131, 9.3, 5999, 0, 4096, 0, 816_000, 2.182, 0.025, 11_827.5, 0.03, 2_764_348, 20_000,
                1.0163, 92_573_696, 88_592_384, 47_230, null, new PhaseResult.Writer(1234, 2468.0, 17.5), null,
                new PhaseResult.RocksCounters(List.of(1L, 0L, 0L, 0L, 3L, 8L, 65L), 2_716_791, 88));
    }

    @Test
    void everyFieldTypeRoundTripsUnchanged() {
        for (PhaseResult r : List.of(remixScan(), rocksWriter())) {
            String line = ResultLine.encode(r);
            assertTrue(ResultLine.matches(line), line);
            assertFalse(line.contains("\n"), "one line: " + line);
            // Records compare doubles as Double.compare does: NaN equals NaN, -0.0 differs from 0.0.
            assertEquals(r, ResultLine.decode(line), line);
        }
    }

    @Test
    void stringsSurviveTabsNewlinesQuotesAndUnicode() {
        String phase = "odd\tphase \"name\"\nwith \u00e9 and \u2603 and \\";
        PhaseResult r = remixScan();
        PhaseResult odd = new PhaseResult(phase, r.store(), r.kind(), r.threads(), r.ops(), r.seconds(), r.opsPerSec(),
                r.p50Micros(), r.p99Micros(), r.p999Micros(), r.maxMicros(), r.meanMicros(), r.found(), r.errors(),
                r.bytesWritten(), r.bytesRead(), r.userBytes(), r.writeAmplification(), r.settleSeconds(),
                r.opsPerSecWithSettle(), r.cpuSeconds(), r.diskBytes(), r.liveKeys(), r.spaceAmplification(),
                r.peakRssBytes(), r.rssBytes(), r.offHeapBytes(), r.scan(), r.writer(), r.remixdb(), r.rocksdb());
        String line = ResultLine.encode(odd);
        assertFalse(line.contains("\n"), line);
        assertEquals(phase, ResultLine.decode(line).phase());
    }

    @Test
    void otherLinesAndBrokenResultsAreRefused() {
        assertFalse(ResultLine.matches("WARNING: something a library printed"));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.decode("hello"));
        String line = ResultLine.encode(rocksWriter());
        // A field the parent does not know, a field missing, a number given as text: all refused, none guessed.
        assertThrows(IllegalArgumentException.class,
                () -> ResultLine.decode(line.replace("\"phase\":", "\"surprise\":1,\"phase\":")));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.decode(line.replace("\"ops\":6000,", "")));
        assertThrows(IllegalArgumentException.class,
                () -> ResultLine.decode(line.replace("\"ops\":6000", "\"ops\":null")));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.decode(line.substring(0, line.length() - 1)));
    }

    @Test
    void theReportFlattensNestedParts() {
        Map<String, Object> flat = DbJson.flat(rocksWriter());
        List<String> keys = List.copyOf(flat.keySet());
        assertEquals("phase", keys.get(0));
        assertEquals("offHeapBytes", keys.get(26), "the fields every phase has come first, in order");
        assertEquals(null, flat.get("scanLength"), "no scan part, no scan fields");
        assertEquals(1234L, ((Number) flat.get("writerOps")).longValue());
        assertEquals(1L, ((Number) flat.get("filesL0")).longValue());
        assertEquals(65L, ((Number) flat.get("filesL6")).longValue());
        assertFalse(flat.containsKey("filesL1"), "levels without files are left out");
        assertFalse(flat.containsKey("rocksdb") || flat.containsKey("writer"), keys.toString());
        assertTrue(flat.containsKey("writeAmplification") && flat.containsKey("spaceAmplification"));
        Map<String, Object> remix = DbJson.flat(remixScan());
        assertTrue(remix.containsKey("settleSeconds") && remix.get("settleSeconds") == null,
                "a core field that does not apply is there, as null");
        assertEquals(50, ((Number) remix.get("scanLength")).intValue());
        assertEquals(7, ((Number) remix.get("tables")).intValue());
    }
}
