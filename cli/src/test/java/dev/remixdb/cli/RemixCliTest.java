package dev.remixdb.cli;

import dev.remixdb.RemixDB;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each command of the tool on a small store, its output and its exit code. */
class RemixCliTest {
    @TempDir
    Path tmp;
    Path store;

    /** What one run printed and returned. */
    record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = RemixCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @BeforeEach
    void makeStore() throws Exception {
        store = tmp.resolve("store");
        try (RemixDB db = RemixDB.open(store)) {
            for (int i = 0; i < 1000; i++) {
                db.put(b(String.format("key%04d", i)), b("value" + i));
            }
            db.delete(b("key0005"));
            db.compactMemtable();
            db.put(b("zz"), b("last"));
        }
    }

    @Test
    void getAndScan() {
        Run r = run("get", store.toString(), "key0007");
        assertEquals(new Run(0, "value7" + System.lineSeparator(), ""), r);
        r = run("get", store.toString(), "key0005");
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("not found: key0005"), r.err());
        r = run("scan", store.toString(), "--from", "key0990", "--to", "key0993");
        assertEquals(0, r.exit());
        assertEquals(List.of("key0990\tvalue990", "key0991\tvalue991", "key0992\tvalue992"), r.out().lines().toList());
        assertTrue(r.err().contains("3 entries"));
        r = run("scan", store.toString(), "--reverse", "--limit", "2", "--keys-only");
        assertEquals(List.of("zz", "key0999"), r.out().lines().toList());
        r = run("scan", store.toString(), "--hex", "--from", "7a7a");
        assertEquals(List.of("7a7a\t6c617374"), r.out().lines().toList());
        r = run("scan", store.toString(), "--limit", "0", "--keys-only");
        assertEquals(1000, r.out().lines().count(), "999 keys and zz");
        r = run("get", store.toString(), "--hex", "not-hex");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("not hex"), r.err());
    }

    @Test
    void statsVerifyAndDump() throws IOException {
        Run r = run("stats", store.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("partitions  1"), r.out());
        r = run("verify", store.toString());
        assertEquals(0, r.exit());
        assertTrue(r.out().startsWith("OK"), r.out());

        Path table;
        Path remix;
        try (Stream<Path> s = Files.list(store)) {
            List<Path> files = s.sorted().toList();
            table = files.stream().filter(p -> p.toString().endsWith(".tbl")).findFirst().orElseThrow();
            remix = files.stream().filter(p -> p.toString().endsWith(".rmx")).findFirst().orElseThrow();
        }
        r = run("dump", table.toString(), "--limit", "2");
        assertEquals(0, r.exit(), r.err());
        // The first flush into an empty partition drops the delete: nothing older can be hidden.
        assertTrue(r.out().contains("999 keys in"), r.out());
        assertTrue(r.out().contains("0 tombstones"), r.out());
        assertTrue(r.out().contains("\"key0000\" -> 6 bytes \"value0\""), r.out());
        assertTrue(r.out().contains("\"key0001\""), r.out());
        assertFalse(r.out().contains("\"key0002\""), "--limit 2");
        r = run("dump", remix.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("1 runs"), r.out());
        r = run("dump", store.resolve("MANIFEST").toString());
        assertTrue(r.out().contains("1 partitions"), r.out());
        assertTrue(r.out().contains(table.getFileName().toString().replace(".tbl", "").replaceFirst("^0+", "")), r.out());

        StringBuilder wals = new StringBuilder();
        try (Stream<Path> s = Files.list(store)) {
            for (Path w : s.filter(p -> p.toString().endsWith(".wal")).sorted().toList()) {
                Run d = run("dump", w.toString());
                assertEquals(0, d.exit(), d.err());
                wals.append(d.out());
            }
        }
        assertTrue(wals.toString().contains("put \"zz\" (4 bytes)"), wals.toString());

        // Damage: verify and dump both say where.
        try (var ch = java.nio.channels.FileChannel.open(table, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {0x55, 0x55, 0x55, 0x55}), 40);
        }
        r = run("verify", store.toString());
        assertEquals(1, r.exit());
        assertTrue(r.out().startsWith("DAMAGED") && r.out().contains(table.getFileName().toString()), r.out());
        r = run("dump", table.toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().contains(table.getFileName().toString()), r.err());
        r = run("dump", tmp.resolve("nope.tbl").toString());
        assertEquals(1, r.exit());
    }

    @Test
    void checkpointCompactBackupRestore() throws Exception {
        Run r = run("checkpoint", store.toString(), tmp.resolve("cp").toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("checkpoint "), r.out());
        assertEquals("value9" + System.lineSeparator(), run("get", tmp.resolve("cp").toString(), "key0009").out());
        r = run("checkpoint", store.toString(), tmp.resolve("cp").toString());
        assertEquals(1, r.exit(), "the target exists");

        r = run("compact", store.toString(), "--from", "key0000", "--to", "key0500");
        assertEquals(2, r.exit(), "the store does not record its compression: the command must be told");
        assertTrue(r.err().contains("--compression"), r.err());
        r = run("compact", store.toString(), "--from", "key0000", "--to", "key0500", "--compression", "zstd");
        assertEquals(2, r.exit(), r.err());
        r = run("compact", store.toString(), "--from", "key0000", "--to", "key0500", "--compression", "none");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("compacted in"), r.out());

        Path backups = tmp.resolve("backups");
        r = run("backup", store.toString(), backups.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("backup 1:"), r.out());
        r = run("backup", store.toString(), backups.toString(), "--keep", "1");
        assertTrue(r.out().startsWith("backup 2:"), r.out());
        r = run("backups", backups.toString(), "--verify");
        assertEquals(0, r.exit(), r.err());
        assertEquals(1, r.out().lines().count(), r.out());
        assertTrue(r.out().startsWith("2 ") && r.out().contains("OK"), r.out());
        r = run("restore", backups.toString(), "2", tmp.resolve("restored").toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals("last" + System.lineSeparator(), run("get", tmp.resolve("restored").toString(), "zz").out());
        r = run("restore", backups.toString(), "7", tmp.resolve("r7").toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("no backup 7"), r.err());

        // A damaged descriptor hides its backup from the list; --verify says so and fails.
        Path meta = backups.resolve("meta").resolve("2");
        byte[] bytes = Files.readAllBytes(meta);
        bytes[20] ^= 1;
        Files.write(meta, bytes);
        r = run("backups", backups.toString(), "--verify");
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("damaged backup descriptor"), r.out());
        Path notAStore = Files.createDirectories(tmp.resolve("empty"));
        r = run("verify", notAStore.toString());
        assertEquals(1, r.exit(), "verify of a folder that is not a store fails: " + r.out());
        assertTrue(r.err().contains("not a RemixDB store"), r.err());
        r = run("backups", tmp.resolve("typo").toString());
        assertEquals(1, r.exit(), "a backup directory that does not exist is an error");
        assertTrue(r.err().contains("typo"), r.err());
        r = run("backups", store.toString());
        assertEquals(1, r.exit(), "a store is not a backup directory: " + r.out());
        assertTrue(r.err().contains("not a backup directory"), r.err());
    }

    @Test
    void fileErrorsSayWhatWentWrongBesideThePath() {
        assertEquals("access denied: /x", RemixCli.message(new java.nio.file.AccessDeniedException("/x")));
        assertEquals("already exists: /x", RemixCli.message(new java.nio.file.FileAlreadyExistsException("/x")));
        assertEquals("not a directory: /x", RemixCli.message(new java.nio.file.NotDirectoryException("/x")));
        assertEquals("no such file: /x: gone", RemixCli.message(new java.nio.file.NoSuchFileException("/x", null, "gone")));
        assertEquals("FileSystemException: /x: busy", RemixCli.message(new java.nio.file.FileSystemException("/x", null, "busy")));
        assertEquals("plain", RemixCli.message(new IllegalStateException("plain")));
    }

    @Test
    void badCommandLinesAndMissingStores() {
        Run r = run();
        assertEquals(2, r.exit());
        assertTrue(r.out().contains("Commands:"));
        assertEquals(2, run("scan").exit());
        r = run("frobnicate");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("unknown command 'frobnicate'"), r.err());
        assertEquals(2, run("scan", store.toString(), "--limit", "-1").exit());
        r = run("stats", tmp.resolve("missing").toString());
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("not a RemixDB store"), r.err());
        assertFalse(Files.exists(tmp.resolve("missing")), "a mistyped path creates nothing");
        r = run("scan", "--help");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("--reverse"));
    }
}
