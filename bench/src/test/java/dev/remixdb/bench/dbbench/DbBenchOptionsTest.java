package dev.remixdb.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.bench.Args;
import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Option validation of {@code db}, the child's argument list, and the result line protocol. */
class DbBenchOptionsTest {
    @TempDir
    Path tmp;

    private static DbOptions parse(String... argv) {
        return DbOptions.parse(Args.parse(argv, DbOptions.VALUE_OPTIONS, DbOptions.FLAG_OPTIONS));
    }

    private static void rejected(String expectedInMessage, String... argv) {
        UsageException e = assertThrows(UsageException.class, () -> parse(argv));
        assertTrue(e.getMessage().contains(expectedInMessage), "message '" + e.getMessage() + "' should mention '"
                + expectedInMessage + "'");
    }

    @Test
    void defaultsAreMicro1() {
        DbOptions o = parse();
        assertEquals(List.of("load", "readrandom", "seekrandom", "seeknext50"),
                o.phases().stream().map(PhaseSpec::label).toList());
        assertEquals(4_000_000, o.keys());
        assertEquals(1_000_000, o.reads());
        assertEquals(1_000_000, o.seeks());
        assertEquals(200_000, o.scans());
        assertEquals(120, o.valueSize());
        assertEquals(List.of("remixdb", "rocksdb"), o.stores());
        assertEquals(50, o.phases().get(3).length());
    }

    @Test
    void quickIsSmallerAndExplicitOptionsWin() {
        DbOptions q = parse("--quick");
        assertTrue(q.keys() < 4_000_000 && q.reads() < 1_000_000);
        assertEquals(123, parse("--quick", "--keys", "123").keys());
    }

    @Test
    void badOptionsSayWhatIsWrong() {
        rejected("unknown phase 'readfast'", "--phases", "load,readfast");
        rejected("needs a loaded store", "--phases", "readrandom");
        rejected("scan length", "--phases", "load,seeknext0");
        rejected("followed by a number", "--phases", "load,seeknextx");
        rejected("--dist", "--dist", "pareto");
        rejected("--zipf-theta", "--zipf-theta", "1.5");
        rejected("--zipf-theta", "--zipf-theta", "abc");
        rejected("--value-size", "--value-size", "8");
        rejected("unknown store", "--stores", "leveldb");
        rejected("twice", "--stores", "rocksdb,rocksdb");
        rejected("--heap", "--heap", "lots");
        rejected("--heap", "--jvm-opts", "-Xmx1g");
        rejected("--threads", "--threads", "0");
        rejected("--keys", "--keys", "1");
        rejected("--deletes", "--keys", "100", "--deletes", "101");
        rejected("unknown option", "--frobnicate");
    }

    @Test
    void badCommandLineExitsWithTwo() {
        assertEquals(2, BenchMain.run(new String[] {"db", "--phases", "seekrandom"}));
        assertEquals(2, BenchMain.run(new String[] {"db", "--value-size", "x"}));
    }

    @Test
    void nonEmptyDirIsRefused() throws Exception {
        Files.createDirectories(tmp.resolve("remixdb"));
        Files.writeString(tmp.resolve("remixdb/old"), "x");
        assertEquals(2, BenchMain.run(new String[] {"db", "--dir", tmp.toString(), "--keys", "100"}));
        assertTrue(Files.exists(tmp.resolve("remixdb/old")), "nothing deleted");
    }

    @Test
    void repeatedPhasesGetNumberedLabels() {
        DbOptions o = parse("--phases", "load,readrandom,deletes,readrandom");
        assertEquals(List.of("load", "readrandom", "deletes", "readrandom-2"),
                o.phases().stream().map(PhaseSpec::label).toList());
        assertEquals(14, parse("--phases", "all").phases().size());
    }

    @Test
    void childGetsTheSameWorkloadBack() {
        DbOptions o = parse("--quick", "--phases", "fillseq,readrandom,readrandom,seekprev20", "--dist", "zipf",
                "--zipf-theta", "0.8", "--threads", "2", "--value-size", "400", "--reuse-cursors", "--seed", "-5");
        Set<String> childValueOptions = new HashSet<>(DbOptions.VALUE_OPTIONS);
        DbOptions back = DbOptions.parse(Args.parse(o.childArgs().toArray(String[]::new), childValueOptions,
                DbOptions.FLAG_OPTIONS));
        assertEquals(o.phases(), back.phases());
        assertEquals(o.keys(), back.keys());
        assertEquals(o.reads(), back.reads());
        assertEquals(o.scans(), back.scans());
        assertEquals(o.writes(), back.writes());
        assertEquals(o.deletes(), back.deletes());
        assertEquals(o.dist(), back.dist());
        assertEquals(o.zipfTheta(), back.zipfTheta());
        assertEquals(o.threads(), back.threads());
        assertEquals(o.valueSize(), back.valueSize());
        assertEquals(o.seed(), back.seed());
        assertEquals(o.reuseCursors(), back.reuseCursors());
        assertEquals(o.cacheMb(), back.cacheMb());
    }

    @Test
    void childCommandLineUsesThisJvmAndClassPath() {
        DbOptions o = parse("--heap", "1g", "--jvm-opts", "-XX:+UseSerialGC -Xss2m");
        List<String> cmd = ChildLauncher.command("rocksdb", o, tmp, "none");
        assertTrue(cmd.contains("-Xmx1g") && cmd.contains("-XX:+UseSerialGC") && cmd.contains("-Xss2m"), cmd.toString());
        assertTrue(cmd.contains("--enable-native-access=ALL-UNNAMED") && cmd.contains("jdk.incubator.vector"));
        assertTrue(cmd.contains(System.getProperty("java.class.path")));
        assertTrue(cmd.containsAll(List.of("db-child", "--store", "rocksdb")));
    }

    @Test
    void resultLinesRoundTrip() {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("phase", "seeknext50");
        m.put("ops", 200_000L);
        m.put("opsPerSec", 44_123.456789);
        m.put("p99Micros", 1.0E-5);
        m.put("skipped", "no reverse\tcursor");
        m.put("nothing", null);
        m.put("flag", true);
        Map<String, Object> back = ResultLine.decode(ResultLine.encode(m));
        assertEquals("seeknext50", back.get("phase"));
        assertEquals(200_000L, back.get("ops"));
        assertEquals(44_123.456789, back.get("opsPerSec"));
        assertEquals(1.0E-5, back.get("p99Micros"));
        assertEquals("no reverse cursor", back.get("skipped"));
        assertEquals(Boolean.TRUE, back.get("flag"));
        assertTrue(!back.containsKey("nothing"));
        assertThrows(IllegalArgumentException.class, () -> ResultLine.decode("hello"));
    }
}
