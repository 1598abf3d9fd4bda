package dev.remixdb.bench.dbbench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a child process hands one phase's result to the parent: a line on its stdout,
 * {@code @@dbbench-result} then tab-separated {@code name=value} pairs. Numbers round-trip exactly
 * (Long, or Double by {@link Double#toString}); strings lose tabs and newlines. Any other stdout line
 * of the child is passed through for the reader.
 */
final class ResultLine {
    static final String PREFIX = "@@dbbench-result";

    private ResultLine() {}

    /** The line for a flat record; null values are left out. */
    static String encode(Map<String, Object> record) {
        StringBuilder b = new StringBuilder(PREFIX);
        for (Map.Entry<String, Object> e : record.entrySet()) {
            Object v = e.getValue();
            if (v == null) {
                continue;
            }
            String s = v instanceof Double d ? Double.toString(d) : String.valueOf(v);
            b.append('\t').append(e.getKey()).append('=').append(s.replace('\t', ' ').replace('\n', ' '));
        }
        return b.toString();
    }

    /** Whether {@code line} is a result line. */
    static boolean matches(String line) {
        return line.startsWith(PREFIX + "\t") || line.equals(PREFIX);
    }

    /** The record of a result line: integers as Long, other numbers as Double, true/false as Boolean. */
    static Map<String, Object> decode(String line) {
        if (!matches(line)) {
            throw new IllegalArgumentException("not a result line: " + line);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        String[] parts = line.split("\t");
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("malformed field '" + parts[i] + "' in result line: " + line);
            }
            m.put(parts[i].substring(0, eq), parseValue(parts[i].substring(eq + 1)));
        }
        return m;
    }

    private static Object parseValue(String s) {
        if (s.equals("true") || s.equals("false")) {
            return Boolean.valueOf(s);
        }
        if (s.matches("-?[0-9]{1,18}")) {
            return Long.parseLong(s);
        }
        if (s.matches("-?[0-9.]+(E-?[0-9]+)?|NaN|-?Infinity")) {
            return Double.parseDouble(s);
        }
        return s;
    }
}
