package dev.remixdb.bench.cli;

import dev.remixdb.bench.UsageException;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks picocli does not make itself: numbers within a range, lists that must not be empty.
 * Each failure is a {@link UsageException} naming the option, which the command line turns into
 * exit code 2.
 */
public final class Check {
    private Check() {}

    /** {@code value} of option {@code name} (e.g. "--keys"), which must be in [min, max]. */
    public static long range(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new UsageException(name + " must be in [" + min + ", " + max + "]: " + value);
        }
        return value;
    }

    /** As {@link #range(String, long, long, long)} for an int option. */
    public static int range(String name, int value, int min, int max) {
        return (int) range(name, (long) value, min, max);
    }

    /** Every element of list option {@code name} in [min, max], and at least one of them. */
    public static List<Integer> each(String name, List<Integer> values, int min, int max) {
        if (values.isEmpty()) {
            throw new UsageException(name + " needs at least one value");
        }
        for (int v : values) {
            if (v < min || v > max) {
                throw new UsageException(name + " values must be in [" + min + ", " + max + "]: " + v);
            }
        }
        return List.copyOf(values);
    }

    /** The words of a comma-split list option, trimmed, blanks dropped ("a, b," is [a, b]). */
    public static List<String> words(List<String> values) {
        List<String> out = new ArrayList<>();
        for (String v : values) {
            if (!v.isBlank()) {
                out.add(v.trim());
            }
        }
        return out;
    }
}
