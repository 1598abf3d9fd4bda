package dev.remixdb.bench.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.Progress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tiny remix-micro run end to end: every phase and index measured, reported as JSON, and drawn. */
class RemixMicroSmokeTest {
    private static final Pattern RESULT = Pattern.compile(
            "\\{\"phase\": \"(\\w+)\", \"index\": \"([\\w-]+)\", \"runs\": (\\d+), \"locality\": \"(\\w+)\","
                    + " \"segment\": (\\d+|null), .*\"opsPerSec\": ([0-9.eE+-]+),");

    @Test
    void tinyRunMeasuresEveryPhaseAndIndexAndWritesJsonAndChart(@TempDir Path dir) throws Exception {
        MicroOptions o = MicroOptions.defaults(true)
                .withScale(List.of(1, 4), 1000, 0, 1, 10, 50, 4)
                .withOutputs(dir.resolve("out/micro.json"), dir.resolve("out/micro.png"));
        MicroReport report = new MicroRunner(o, Progress.silent()).run();

        String json = JsonReport.render(report, List.of("--test"));
        Set<String> seen = new HashSet<>();
        Matcher m = RESULT.matcher(json);
        int rows = 0;
        while (m.find()) {
            rows++;
            double ops = Double.parseDouble(m.group(6));
            assertTrue(ops > 0, "ops/s must be positive: " + m.group());
            seen.add(m.group(1) + "/" + m.group(2) + "/" + m.group(3) + "/" + m.group(4) + "/" + m.group(5));
        }
        assertEquals(report.results().size(), rows, "every result is one JSON line");
        for (String loc : List.of("weak", "strong")) {
            for (int h : List.of(1, 4)) {
                for (String phase : List.of("seek", "seeknext50")) {
                    for (String index : List.of("remix-full", "remix-tagseek", "remix-partial")) {
                        assertTrue(seen.contains(phase + "/" + index + "/" + h + "/" + loc + "/32"), phase + " " + index + " " + h + " " + loc);
                    }
                    assertTrue(seen.contains(phase + "/merging/" + h + "/" + loc + "/null"));
                }
                for (String index : List.of("remix-full", "remix-notags")) {
                    assertTrue(seen.contains("get/" + index + "/" + h + "/" + loc + "/32"), index + " " + h + " " + loc);
                }
                assertTrue(seen.contains("get/bloom/" + h + "/" + loc + "/null"));
                assertTrue(seen.contains("get/merging/" + h + "/" + loc + "/null"));
            }
            // Figure 13: D swept at H = 4 here.
            for (int d : List.of(16, 64)) {
                assertTrue(seen.contains("seek/remix-full/4/" + loc + "/" + d));
                assertTrue(seen.contains("seeknext50/remix-partial/4/" + loc + "/" + d));
            }
        }
        assertTrue(json.contains("\"machine\": {"));
        assertTrue(json.contains("\"remixSizes\": ["));
        for (RemixSize s : report.sizes()) {
            assertTrue(s.bytesPerKey() > 0 && s.formulaBytesPerKey() > 0);
            // The formula leaves out only the anchor offsets (4 bytes per segment) and placeholders.
            assertTrue(s.bytesPerKey() >= s.formulaBytesPerKey() - 1e-9, s.toString());
            assertTrue(s.bytesPerKey() < s.formulaBytesPerKey() + 1, s.toString());
        }
        for (Result r : report.results()) {
            assertFalse(Double.isNaN(r.keyComparisonsPerOp()), r.toString());
        }

        ByteArrayOutputStream text = new ByteArrayOutputStream();
        TableReport.print(report, new PrintStream(text, true, StandardCharsets.UTF_8));
        String table = text.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("vs merging"), table);
        assertTrue(table.contains("Figure 13"), table);

        ChartWriter.write(report, o.chart());
        assertTrue(Files.size(o.chart()) > 10_000);
        JsonReport.write(report, List.of(), o.json());
        assertTrue(Files.readString(o.json()).startsWith("{"));
    }

    @Test
    void badCommandLinesExitWithUsageErrors() {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream sink = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setOut(sink);
        System.setErr(sink);
        try {
            assertEquals(2, BenchMain.run(new String[] {"remix-micro", "--no-such-option"}));
            assertEquals(2, BenchMain.run(new String[] {"remix-micro", "--segment", "24"}));
            assertEquals(2, BenchMain.run(new String[] {"no-such-command"}));
            assertEquals(0, BenchMain.run(new String[] {"remix-micro", "--help"}));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("Unknown option: '--no-such-option'"), text);
        assertTrue(text.contains("segment size D must be 16, 32 or 64: 24"), text);
        assertTrue(text.contains("Usage: bench/run remix-micro"), text);
        assertTrue(text.contains("--keys-per-run=N"), text);
    }
}
