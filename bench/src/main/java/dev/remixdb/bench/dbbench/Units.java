package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.MachineInfo;
import java.util.Locale;
import java.util.Map;

/** Number formats shared by the db benchmark's reports. */
final class Units {
    private Units() {}

    /** Bytes as "64 MiB" when a whole number of MiB, else as bytes. */
    static String mib(long bytes) {
        if (bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        return bytes + " B";
    }

    /** Bytes in MiB with one decimal; "-" when unknown (NaN or negative). */
    static String mib1(double bytes) {
        if (!(bytes >= 0)) {
            return "-";
        }
        return String.format(Locale.ROOT, "%,.1f", bytes / 1048576.0);
    }

    /** A count with thousands separators; "-" when unknown. */
    static String count(double x) {
        if (!Double.isFinite(x)) {
            return "-";
        }
        return String.format(Locale.ROOT, "%,.0f", x);
    }

    /** A ratio as "1.23x". */
    static String ratio(double x) {
        return Double.isFinite(x) ? String.format(Locale.ROOT, "%.2fx", x) : "-";
    }

    /**
     * The machine in one line, without this process's heap (the stores run in child JVMs with
     * {@code --heap}): CPU, cores, OS, JVM, selector counter.
     */
    static String machine() {
        Map<String, Object> m = MachineInfo.describe();
        return m.get("cpu") + ", " + m.get("cpus") + " cpus, " + m.get("os") + ", " + m.get("java") + ", selectors "
                + m.get("selectorCounter");
    }

    /** Two decimals. */
    static String fixed2(double x) {
        return Double.isFinite(x) ? String.format(Locale.ROOT, "%.2f", x) : "-";
    }

    /** Microseconds: one decimal under 100, whole above. */
    static String micros(double x) {
        if (!Double.isFinite(x)) {
            return "-";
        }
        return x < 100 ? String.format(Locale.ROOT, "%.1f", x) : String.format(Locale.ROOT, "%,.0f", x);
    }
}
