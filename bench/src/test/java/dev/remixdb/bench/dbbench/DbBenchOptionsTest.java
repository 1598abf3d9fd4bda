package dev.remixdb.bench.dbbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remixdb.bench.BenchMain;
import dev.remixdb.bench.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParameterException;

/** Option validation of {@code db}, its help and exit codes, and the child's argument list. */
class DbBenchOptionsTest {
    @TempDir
    Path tmp;

    private static DbOptions parse(String... argv) {
        return DbArgs.parse(argv);
    }

    /** Refused, by picocli (unknown option, bad number) or by the checks after it, with this in the message. */
    private static void rejected(String expectedInMessage, String... argv) {
        RuntimeException e = assertThrows(RuntimeException.class, () -> parse(argv));
        assertTrue(e instanceof UsageException || e instanceof ParameterException, e.toString());
        assertTrue(e.getMessage().contains(expectedInMessage), "message '" + e.getMessage() + "' should mention '"
                + expectedInMessage + "'");
    }

    /** Runs a command line, returning its exit code and what it printed on stdout and stderr. */
    static Run run(String... argv) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
        try {
            int code = BenchMain.run(argv);
            return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    record Run(int code, String out, String err) {}

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
        rejected("--frobnicate", "--frobnicate");
        rejected("--keys", "--keys", "lots");
        rejected("--keys", "--keys", "5q");
        rejected("--zipf-theta", "--zipf-theta");
    }

    @Test
    void countsTakeSuffixes() {
        DbOptions o = parse("--keys", "2m", "--reads", "500k", "--scans", "1_000", "--seed", "-5");
        assertEquals(2_000_000, o.keys());
        assertEquals(500_000, o.reads());
        assertEquals(1000, o.scans());
        assertEquals(-5, o.seed());
        assertEquals(List.of("load", "readrandom"), parse("--phases", "load, readrandom,").phaseNames());
    }

    @Test
    void badCommandLineExitsWithTwoAndNamesTheOption() {
        // Refused by picocli itself: unknown option, a value that is no number, a missing value.
        for (String[] argv : List.of(new String[] {"db", "--frobnicate"}, new String[] {"db", "--value-size", "x"},
                new String[] {"db", "--keys", "4q"}, new String[] {"db", "--seeks"})) {
            Run r = run(argv);
            assertEquals(2, r.code(), String.join(" ", argv));
            assertTrue(r.err().contains(argv[1]), "'" + r.err() + "' should name " + argv[1]);
            assertTrue(r.err().contains("db --help"), r.err());
        }
        // Refused by db's own checks after parsing: ranges and combinations.
        Run range = run("db", "--threads", "0");
        assertEquals(2, range.code());
        assertTrue(range.err().contains("--threads must be in [1, 256]: 0"), range.err());
        Run combination = run("db", "--keys", "100", "--deletes", "101");
        assertEquals(2, combination.code());
        assertTrue(combination.err().contains("--deletes"), combination.err());
        Run phases = run("db", "--phases", "seekrandom");
        assertEquals(2, phases.code());
        assertTrue(phases.err().contains("seekrandom needs a loaded store"), phases.err());
        Run command = run("no-such-command");
        assertEquals(2, command.code());
        assertTrue(command.err().contains("unknown command: no-such-command"), command.err());
        assertEquals(2, run().code(), "no command at all");
    }

    @Test
    void helpIsGeneratedFromTheOptions() {
        Run top = run("--help");
        assertEquals(0, top.code());
        for (String c : List.of("db", "remix-micro", "remix-rebuild", "write-amp", "jmh", "verify")) {
            assertTrue(top.out().contains("\n  " + c + " "), c + " listed in " + top.out());
        }
        assertFalse(top.out().contains("db-child"), "the child command is hidden");
        Run db = run("db", "--help");
        assertEquals(0, db.code());
        assertTrue(db.out().contains("--keys=N") && db.out().contains("Default: 4m (--quick: 1m)"), db.out());
        assertTrue(db.out().contains("--value-size=N") && db.out().contains("Default: 120"), db.out());
        assertTrue(db.out().contains("readwhilewriting"), "the phases are listed: " + db.out());
        assertEquals(db.out(), run("help", "db").out());
        assertEquals(0, run("db-child", "--help").code(), "hidden, but it runs");
    }

    @Test
    void nonEmptyDirIsRefused() throws Exception {
        Files.createDirectories(tmp.resolve("remixdb"));
        Files.writeString(tmp.resolve("remixdb/old"), "x");
        Run r = run("db", "--dir", tmp.toString(), "--keys", "100");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--dir"), r.err());
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
        DbOptions back = DbArgs.parse(o.childArgs().toArray(String[]::new));
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
}
