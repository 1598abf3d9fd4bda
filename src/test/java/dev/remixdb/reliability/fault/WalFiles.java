package dev.remixdb.reliability.fault;

import dev.remixdb.RemixDB;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A store directory's WAL files, for the tests of the WAL's background sync. */
final class WalFiles {
    private WalFiles() {}

    /** The WAL files of {@code dir}, oldest first. */
    static List<Path> wals(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".wal")).sorted(Comparator.naturalOrder()).toList();
        }
    }

    /** Whether {@code what} occurs in the newest WAL file of {@code dir}. */
    static boolean inNewestWal(Path dir, byte[] what) throws IOException {
        byte[] file = Files.readAllBytes(wals(dir).getLast());
        outer:
        for (int i = 0; i + what.length <= file.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (file[i + j] != what[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Puts keys "fill-..." with {@code value} until a memtable switch starts a new WAL in {@code dir}; returns them in order. */
    static List<byte[]> fillUntilASwitch(RemixDB db, Path dir, byte[] value) throws IOException {
        long walsBefore = wals(dir).size();
        List<byte[]> put = new ArrayList<>();
        for (int i = 0; wals(dir).size() == walsBefore; i++) {
            byte[] k = String.format("fill-%06d", i).getBytes(StandardCharsets.UTF_8);
            db.put(k, value);
            put.add(k);
            assertTrue(i < 10_000, "no memtable switch after " + i + " puts");
        }
        return put;
    }
}
