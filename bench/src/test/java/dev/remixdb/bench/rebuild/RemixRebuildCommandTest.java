package dev.remixdb.bench.rebuild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.bench.BenchMain;
import dev.remixdb.remix.RemixConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RemixRebuildCommandTest {
    @TempDir
    Path dir;

    /** A small new run costs the rebuild its own keys plus a small share of the old ones. */
    @Test
    void aSmallNewRunIsMergedReadingFewOldKeys() {
        for (String kind : new String[] {"insert", "update"}) {
            RemixRebuildCommand.Result r = RemixRebuildCommand.measure(kind, 4, 50_000, 0.002, 1,
                    new RemixConfig(32, true), 7);
            assertEquals(r.newKeys(), r.newKeysRead(), kind + ": every new key is read once, from its key source");
            assertEquals(r.oldKeys(), r.oldSlotsReused(), kind + ": every old slot is reused, not rebuilt");
            assertTrue(r.oldKeysRead() < r.oldKeys() / 5, kind + ": old keys read " + r.oldKeysRead());
            assertEquals(r.oldKeys() + r.newKeys(), r.buildKeysRead(), kind + ": a fresh build reads every key");
        }
    }

    @Test
    void theCommandWritesARowPerCaseAndFraction() throws Exception {
        Path json = dir.resolve("rebuild.json");
        int code = BenchMain.run(new String[] {"remix-rebuild", "--keys", "20000", "--runs", "3", "--fractions",
                "0.01,0.1", "--repeat", "1", "--json", json.toString()});
        assertEquals(0, code);
        String text = Files.readString(json);
        Matcher m = Pattern.compile("\\{\"case\": \"(insert|update)\".*?\"speedup\": ([0-9.]+)").matcher(text);
        int rows = 0;
        while (m.find()) {
            rows++;
            assertTrue(Double.parseDouble(m.group(2)) > 0, m.group());
        }
        assertEquals(4, rows, text);
    }

    @Test
    void aBadOptionIsAUsageError() {
        assertEquals(2, BenchMain.run(new String[] {"remix-rebuild", "--no-such-option"}));
    }
}
