package dev.remixdb.bench.db;

import dev.remixdb.bench.BenchMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The short variant of {@code write-amp} that CI runs: both engines load, and the numbers make sense. */
class WriteAmpCommandTest {
    @TempDir
    Path dir;

    @Test
    void smallLoadReportsBothEnginesWriteAmplification() throws Exception {
        Path json = dir.resolve("wa.json");
        int rc = BenchMain.run(new String[] {"write-amp", "--keys", "30k", "--memtable-mb", "1", "--table-mb", "1",
                "--dir", dir.resolve("stores").toString(), "--json", json.toString()});
        assertEquals(0, rc);
        String out = Files.readString(json);
        for (String engine : new String[] {"remixdb", "rocksdb"}) {
            Matcher m = Pattern.compile("\"engine\": \"" + engine + "\".*?\"writeAmplification\": ([0-9.]+)")
                    .matcher(out);
            assertTrue(m.find(), engine + " missing in " + out);
            double wa = Double.parseDouble(m.group(1));
            // Every user byte goes to the WAL and then to a table at least once.
            assertTrue(wa >= 1.5 && wa < 20, engine + " write amplification " + wa);
        }
    }

    @Test
    void keysAreDistinctAndSpreadOut() {
        byte[] a = new byte[16];
        byte[] b = new byte[16];
        WriteAmpCommand.key(1, a);
        WriteAmpCommand.key(2, b);
        assertTrue(!java.util.Arrays.equals(a, b));
        assertTrue(a[0] != b[0] || a[1] != b[1], "consecutive keys land far apart (random load order)");
    }
}
