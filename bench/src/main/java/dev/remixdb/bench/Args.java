package dev.remixdb.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small command-line parser: {@code --name value}, {@code --name=value} and boolean {@code --flag}
 * options, each declared up front so a typo is an error rather than silently ignored.
 */
public final class Args {
    private final Map<String, String> values = new HashMap<>();
    private final List<String> flags = new ArrayList<>();

    private Args() {}

    /**
     * Parses {@code argv}.
     *
     * @param valueOptions names (without "--") of options that take a value
     * @param flagOptions  names of options that take none
     * @throws UsageException on an unknown option, a missing value or a stray argument
     */
    public static Args parse(String[] argv, Set<String> valueOptions, Set<String> flagOptions) {
        Args a = new Args();
        for (int i = 0; i < argv.length; i++) {
            String arg = argv[i];
            if (!arg.startsWith("--")) {
                throw new UsageException("unexpected argument: " + arg);
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (flagOptions.contains(name)) {
                if (value != null) {
                    throw new UsageException("--" + name + " takes no value");
                }
                a.flags.add(name);
            } else if (valueOptions.contains(name)) {
                if (value == null) {
                    if (i + 1 >= argv.length) {
                        throw new UsageException("--" + name + " needs a value");
                    }
                    value = argv[++i];
                }
                a.values.put(name, value);
            } else {
                throw new UsageException("unknown option: --" + name);
            }
        }
        return a;
    }

    /** Whether flag {@code name} was given. */
    public boolean flag(String name) {
        return flags.contains(name);
    }

    /** Whether option {@code name} was given a value. */
    public boolean has(String name) {
        return values.containsKey(name);
    }

    /** The value of option {@code name}, or {@code fallback} when not given. */
    public String string(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    /** The value of option {@code name} as a path, or null when not given. */
    public Path path(String name) {
        String v = values.get(name);
        return v == null ? null : Path.of(v);
    }

    /** An integer option in [min, max] (k/m/g suffixes allowed), or {@code fallback} when not given. */
    public long longValue(String name, long fallback, long min, long max) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        long x = parseLong(name, v);
        if (x < min || x > max) {
            throw new UsageException("--" + name + " must be in [" + min + ", " + max + "]: " + v);
        }
        return x;
    }

    /** An int option in [min, max], or {@code fallback} when not given. */
    public int intValue(String name, int fallback, int min, int max) {
        return (int) longValue(name, fallback, min, max);
    }

    /** A comma-separated list of integers, each in [min, max]. */
    public int[] intList(String name, int[] fallback, int min, int max) {
        String v = values.get(name);
        if (v == null) {
            return fallback.clone();
        }
        List<String> parts = list(v);
        int[] out = new int[parts.size()];
        for (int i = 0; i < out.length; i++) {
            long x = parseLong(name, parts.get(i));
            if (x < min || x > max) {
                throw new UsageException("--" + name + " values must be in [" + min + ", " + max + "]: " + parts.get(i));
            }
            out[i] = (int) x;
        }
        if (out.length == 0) {
            throw new UsageException("--" + name + " needs at least one value");
        }
        return out;
    }

    /** A comma-separated list of words. */
    public List<String> words(String name, List<String> fallback) {
        String v = values.get(name);
        return v == null ? fallback : list(v);
    }

    private static List<String> list(String v) {
        List<String> out = new ArrayList<>();
        for (String p : v.split(",")) {
            if (!p.isBlank()) {
                out.add(p.trim());
            }
        }
        return out;
    }

    /** Accepts plain integers and a k/m/g suffix (powers of 1000), e.g. "500k". */
    private static long parseLong(String name, String v) {
        String s = v.trim().toLowerCase(java.util.Locale.ROOT).replace("_", "");
        long mult = 1;
        if (s.endsWith("k")) {
            mult = 1_000;
        } else if (s.endsWith("m")) {
            mult = 1_000_000;
        } else if (s.endsWith("g")) {
            mult = 1_000_000_000;
        }
        if (mult != 1) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(s), mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new UsageException("--" + name + " needs an integer: " + v, e);
        }
    }
}
