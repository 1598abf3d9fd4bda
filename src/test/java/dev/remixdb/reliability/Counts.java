package dev.remixdb.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a class of reliability tests did (cycles run, faults injected, corruptions tried and
 * detected): printed when the class ends and written to {@code <remixdb.counts.dir>/<suite>.txt},
 * from which the summary table in README.md is filled. Thread-safe.
 */
public final class Counts {
    private final String suite;
    private final Map<String, AtomicLong> values = new LinkedHashMap<>();

    public Counts(String suite) {
        this.suite = suite;
    }

    /** Adds {@code delta} to the count {@code name}. */
    public synchronized void add(String name, long delta) {
        values.computeIfAbsent(name, k -> new AtomicLong()).addAndGet(delta);
    }

    public synchronized long get(String name) {
        AtomicLong v = values.get(name);
        return v == null ? 0 : v.get();
    }

    /** Prints the counts and writes them to the counts folder (when the build sets one). */
    public synchronized void report() {
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> sb.append(suite).append('.').append(k).append(" = ").append(v.get()).append('\n'));
        System.out.print(sb);
        String folder = System.getProperty("remixdb.counts.dir");
        if (folder == null) {
            return;
        }
        try {
            Path dir = Path.of(folder);
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(suite + ".txt"), sb, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
