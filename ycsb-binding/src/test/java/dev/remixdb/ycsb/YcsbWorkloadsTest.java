package dev.remixdb.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.remixdb.RemixDB;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import site.ycsb.ByteIterator;
import site.ycsb.Utils;

/**
 * The real YCSB client ({@code site.ycsb.Client}, in a forked JVM because it ends with
 * {@code System.exit}) loads and runs each core workload on RemixDB through the binding, with
 * {@code dataintegrity=true}: values are a function of key and field, and the client checks every
 * record it reads ({@code UNEXPECTED_STATE} on a mismatch). Then this test opens the store itself and
 * checks every loaded record.
 */
class YcsbWorkloadsTest {
    private static final int RECORDS = 1000;
    private static final int OPERATIONS = 2000;
    private static final Pattern RESULT = Pattern.compile("^\\[([A-Z-]+)], ([^,]+), (.+)$", Pattern.MULTILINE);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "workload{0} on {1}")
    @CsvSource({"a, RemixDBClient", "b, RemixDBClient", "c, RemixDBClient", "d, RemixDBClient",
            "e, RemixDBClient", "f, RemixDBClient", "a, RocksDBClient", "e, RocksDBClient"})
    void workloadRunsWithoutErrorsAndKeepsWhatWasInserted(String workload, String binding) throws Exception {
        Path store = dir.resolve("store");
        String dirProperty = binding.startsWith("Remix") ? RemixDBSettings.DIR : RocksDBClient.DIR;
        List<String> common = List.of("-db", "dev.remixdb.ycsb." + binding,
                "-P", Path.of("workloads", "workload" + workload).toString(),
                "-threads", "2",
                "-p", "recordcount=" + RECORDS, "-p", "operationcount=" + OPERATIONS,
                "-p", "dataintegrity=true", "-p", dirProperty + "=" + store);

        Map<String, String> load = ycsb("-load", common);
        assertEquals(String.valueOf(RECORDS), load.get("INSERT Operations"), load.toString());

        Map<String, String> run = ycsb("-t", common);
        // A read-modify-write is also counted as one READ and one UPDATE.
        long ops = -count(run, "READ-MODIFY-WRITE");
        for (String op : List.of("READ", "UPDATE", "INSERT", "SCAN")) {
            ops += count(run, op);
        }
        assertEquals(OPERATIONS, ops, run.toString());
        if (workload.equals("a") || workload.equals("f")) {
            assertTrue(run.containsKey("VERIFY Operations"), "the client checked the records it read: " + run);
        }
        if (binding.startsWith("Remix")) {
            checkLoadedRecords(store);
        }
    }

    private static long count(Map<String, String> results, String op) {
        return Long.parseLong(results.getOrDefault(op + " Operations", "0"));
    }

    /** Every loaded record is there, with YCSB's ten fields, each the deterministic value of key and field. */
    private static void checkLoadedRecords(Path store) throws IOException {
        KeyLayout keys = new KeyLayout();
        try (RemixDB db = RemixDB.open(store)) {
            for (long i = 0; i < RECORDS; i++) {
                String key = "user" + Utils.fnvhash64(i); // CoreWorkload's key name, insertorder=hashed
                byte[] record = db.get(keys.key("usertable", key));
                assertTrue(record != null, "record " + key + " missing");
                Map<String, ByteIterator> fields = new HashMap<>();
                FieldCodec.decode(record, null, fields);
                assertEquals(10, fields.size(), key);
                for (Map.Entry<String, ByteIterator> f : fields.entrySet()) {
                    String value = new String(f.getValue().toArray(), StandardCharsets.UTF_8);
                    assertEquals(100, value.length(), key + "/" + f.getKey());
                    assertTrue(value.startsWith(key + ":" + f.getKey() + ":"), key + "/" + f.getKey() + " = " + value);
                }
            }
        }
    }

    /**
     * Runs the client and returns its measurements as "OPERATION metric" to value. Fails on a
     * non-zero exit, on any {@code Return=} other than OK, and on a {@code -FAILED} section.
     */
    private Map<String, String> ycsb(String phase, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(System.getProperty("rdb.jvmFlags",
                "--add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED").split(" ")));
        cmd.addAll(List.of("-Xmx512m", "-cp", System.getProperty("java.class.path"), "site.ycsb.Client", phase));
        cmd.addAll(args);
        Path log = dir.resolve("ycsb" + phase + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("YCSB " + phase + " did not finish in 120 s:\n" + Files.readString(log));
        }
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), out);
        Map<String, String> results = new HashMap<>();
        Matcher m = RESULT.matcher(out);
        while (m.find()) {
            String op = m.group(1);
            String metric = m.group(2);
            if (op.endsWith("-FAILED") || (metric.startsWith("Return=") && !metric.equals("Return=OK"))) {
                fail("YCSB " + phase + " reported " + m.group() + ":\n" + out);
            }
            results.put(op + " " + metric, m.group(3).trim());
        }
        assertTrue(results.containsKey("OVERALL Throughput(ops/sec)"), out);
        return results;
    }
}
