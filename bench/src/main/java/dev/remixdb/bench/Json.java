package dev.remixdb.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Map;

/** Hand-written JSON values (the benchmark has no JSON library on purpose). */
public final class Json {
    private Json() {}

    /** A JSON string literal. */
    public static String string(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * A JSON number: whole numbers from 1000 up rounded to an integer, smaller ones to 5 significant
     * digits; NaN and infinities (not JSON) become null.
     */
    public static String number(double x) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            return "null";
        }
        if (Math.abs(x) >= 1000 && Math.abs(x) < 1e15) {
            return Long.toString(Math.round(x));
        }
        return new BigDecimal(x).round(new MathContext(5)).stripTrailingZeros().toPlainString();
    }

    /** Any supported value: null, String, Boolean, Number, or a Map of them (as an object). */
    public static String value(Object v) {
        if (v == null) {
            return "null";
        } else if (v instanceof String s) {
            return string(s);
        } else if (v instanceof Boolean b) {
            return b.toString();
        } else if (v instanceof Integer || v instanceof Long) {
            return v.toString();
        } else if (v instanceof Number n) {
            return number(n.doubleValue());
        } else if (v instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("{");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(", ");
                }
                first = false;
                b.append(string(String.valueOf(e.getKey()))).append(": ").append(value(e.getValue()));
            }
            return b.append('}').toString();
        }
        throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
    }
}
