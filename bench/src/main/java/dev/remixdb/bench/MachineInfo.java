package dev.remixdb.bench;

import dev.remixdb.remix.SelectorCounters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What machine and JVM a result was measured on, for reports. */
public final class MachineInfo {
    private MachineInfo() {}

    /** Ordered (name, value) pairs; values are strings or numbers. */
    public static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpu", cpuModel());
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("arch", System.getProperty("os.arch"));
        m.put("java", System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name")
                + " " + System.getProperty("java.runtime.version"));
        m.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        m.put("selectorCounter", SelectorCounters.get().name());
        return m;
    }

    /** One line for a report header. */
    public static String oneLine() {
        Map<String, Object> m = describe();
        return m.get("cpu") + ", " + m.get("cpus") + " cpus, " + m.get("os") + ", " + m.get("java")
                + ", heap " + ((Long) m.get("maxHeapBytes") >> 20) + " MiB, selectors " + m.get("selectorCounter");
    }

    private static String cpuModel() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            for (String l : lines) {
                if (l.startsWith("model name")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or not readable: the architecture name is still reported.
        }
        return System.getProperty("os.arch");
    }
}
