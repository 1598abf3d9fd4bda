package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.Json;
import dev.remixdb.bench.MachineInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of a db run ({@code --json FILE}): machine, command, date, options, each store's
 * settings, the children's exit codes, then {@code results} (one flat record per phase and store,
 * one per line, the fields of {@link Results#CORE_FIELDS} first, null where they do not apply),
 * {@code ratios} (ours/RocksDB per phase) and {@code goals}.
 */
final class DbJson {
    private DbJson() {}

    static String render(String command, String date, double wallSeconds, DbOptions o,
                         Map<String, List<Store.Setting>> settings, List<ChildLauncher.ChildRun> children, Results r) {
        StringBuilder b = new StringBuilder(16_384);
        b.append("{\n");
        b.append("  \"machine\": ").append(Json.value(MachineInfo.describe())).append(",\n");
        b.append("  \"command\": ").append(Json.string(command)).append(",\n");
        b.append("  \"date\": ").append(Json.string(date)).append(",\n");
        b.append("  \"wallSeconds\": ").append(Json.number(wallSeconds)).append(",\n");
        b.append("  \"options\": ").append(Json.value(o.describe())).append(",\n");
        b.append("  \"storeOptions\": {");
        boolean first = true;
        for (Map.Entry<String, List<Store.Setting>> e : settings.entrySet()) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (Store.Setting s : e.getValue()) {
                m.put(s.name(), s.value());
            }
            b.append(first ? "\n" : ",\n").append("    ").append(Json.string(e.getKey())).append(": ").append(Json.value(m));
            first = false;
        }
        b.append("\n  },\n");
        b.append("  \"children\": [");
        for (int i = 0; i < children.size(); i++) {
            ChildLauncher.ChildRun c = children.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("store", c.store());
            m.put("exitCode", c.exitCode());
            m.put("seconds", c.seconds());
            m.put("phasesReported", c.results().size());
            b.append(i == 0 ? "\n    " : ",\n    ").append(Json.value(m));
        }
        b.append("\n  ],\n");
        b.append("  \"errors\": ").append(r.errors()).append(",\n");
        b.append("  \"results\": [\n");
        List<Map<String, Object>> records = r.records();
        for (int i = 0; i < records.size(); i++) {
            b.append("    ").append(Json.value(ordered(records.get(i)))).append(i + 1 < records.size() ? ",\n" : "\n");
        }
        b.append("  ],\n");
        b.append("  \"ratios\": [\n");
        List<String> phases = r.phases();
        for (int i = 0; i < phases.size(); i++) {
            String p = phases.get(i);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("phase", p);
            m.put("opsPerSec", finite(r.ratio(p, "opsPerSec")));
            m.put("opsPerSecWithSettle", finite(r.ratio(p, "opsPerSecWithSettle")));
            m.put("p99Micros", finite(r.ratio(p, "p99Micros")));
            m.put("writeAmplification", finite(r.ratio(p, "writeAmplification")));
            m.put("spaceAmplification", finite(r.ratio(p, "spaceAmplification")));
            m.put("peakRssBytes", finite(r.ratio(p, "peakRssBytes")));
            b.append("    ").append(Json.value(m)).append(i + 1 < phases.size() ? ",\n" : "\n");
        }
        b.append("  ],\n");
        b.append("  \"goals\": [\n");
        List<Results.Goal> goals = Results.GOALS;
        for (int i = 0; i < goals.size(); i++) {
            Results.Goal g = goals.get(i);
            double ratio = r.ratio(g.phase(), g.field());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("goal", g.what());
            m.put("phase", g.phase());
            m.put("field", g.field());
            m.put("target", (g.atLeast() ? ">= " : "<= ") + g.target());
            m.put("ratio", finite(ratio));
            m.put("met", Double.isFinite(ratio) ? (Object) g.met(ratio) : null);
            b.append("    ").append(Json.value(m)).append(i + 1 < goals.size() ? ",\n" : "\n");
        }
        b.append("  ]\n}\n");
        return b.toString();
    }

    /** The core fields first, in a fixed order (null when absent), then the rest as sent. */
    private static Map<String, Object> ordered(Map<String, Object> record) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (String f : Results.CORE_FIELDS) {
            m.put(f, record.get(f));
        }
        for (Map.Entry<String, Object> e : record.entrySet()) {
            if (!m.containsKey(e.getKey())) {
                m.put(e.getKey(), e.getValue());
            }
        }
        return m;
    }

    private static Object finite(double x) {
        return Double.isFinite(x) ? x : null;
    }

    static void write(Path file, String json) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Files.writeString(file, json, StandardCharsets.UTF_8);
    }
}
