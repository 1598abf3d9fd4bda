package dev.remixdb.bench.dbbench;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.remixdb.bench.MachineInfo;
import dev.remixdb.bench.json.Json;
import dev.remixdb.bench.json.OneLine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of a db run ({@code --json FILE}): machine, command, date, options, each store's
 * settings, the children's exit codes, then {@code results} (one flat record per phase and store, one
 * per line: the fields every phase has first, null where they do not apply, then the phase's and the
 * store's own), {@code ratios} (ours/RocksDB per phase) and {@code goals}.
 */
final class DbJson {
    private static final TypeReference<LinkedHashMap<String, Object>> FIELDS = new TypeReference<>() {};

    private DbJson() {}

    /** The whole file; its components are its fields, in this order. */
    record Report(@OneLine Map<String, Object> machine, String command, String date, double wallSeconds,
                  @OneLine Map<String, Object> options, Map<String, Map<String, String>> storeOptions,
                  List<Child> children, long errors, List<Map<String, Object>> results,
                  List<Map<String, Object>> ratios, List<Goal> goals) {}

    /** What one child JVM did. */
    record Child(String store, int exitCode, double seconds, int phasesReported) {}

    /** One of the goals and whether this run met it (null when a store did not run it). */
    record Goal(String goal, String phase, String field, String target, double ratio, Boolean met) {}

    static Report report(String command, String date, double wallSeconds, DbOptions o,
                         Map<String, List<Store.Setting>> settings, List<ChildLauncher.ChildRun> children, Results r) {
        Map<String, Map<String, String>> storeOptions = new LinkedHashMap<>();
        for (Map.Entry<String, List<Store.Setting>> e : settings.entrySet()) {
            Map<String, String> m = new LinkedHashMap<>();
            for (Store.Setting s : e.getValue()) {
                m.put(s.name(), s.value());
            }
            storeOptions.put(e.getKey(), m);
        }
        List<Child> childRows = children.stream()
                .map(c -> new Child(c.store(), c.exitCode(), c.seconds(), c.results().size())).toList();
        List<Map<String, Object>> ratios = new ArrayList<>();
        for (String p : r.phases()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("phase", p);
            for (Results.Metric metric : Results.RATIOS) {
                m.put(metric.name(), r.ratio(p, metric));
            }
            ratios.add(m);
        }
        List<Goal> goals = new ArrayList<>();
        for (Results.Goal g : Results.GOALS) {
            double ratio = r.ratio(g.phase(), g.metric());
            goals.add(new Goal(g.what(), g.phase(), g.metric().name(), (g.atLeast() ? ">= " : "<= ") + g.target(),
                    ratio, Double.isFinite(ratio) ? g.met(ratio) : null));
        }
        return new Report(MachineInfo.describe(), command, date, wallSeconds, o.describe(), storeOptions, childRows,
                r.errors(), r.records().stream().map(DbJson::flat).toList(), ratios, goals);
    }

    /**
     * A result as one flat record: its own fields in order, then those of its nested parts in their
     * place (scan, writer, the store's counters), RocksDB's files per level as {@code filesL0..6}
     * for the levels that have any.
     */
    static Map<String, Object> flat(PhaseResult r) {
        Map<String, Object> m = Json.EXACT.convertValue(r, FIELDS);
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (!(e.getValue() instanceof Map<?, ?> part)) {
                if (e.getValue() != null || !isPart(e.getKey())) {
                    out.put(e.getKey(), e.getValue());
                }
                continue;
            }
            for (Map.Entry<?, ?> f : part.entrySet()) {
                if (f.getValue() instanceof List<?> files && f.getKey().equals("filesPerLevel")) {
                    for (int level = 0; level < files.size(); level++) {
                        if (files.get(level) instanceof Number n && n.longValue() > 0) {
                            out.put("filesL" + level, n);
                        }
                    }
                } else {
                    out.put(String.valueOf(f.getKey()), f.getValue());
                }
            }
        }
        return out;
    }

    /** The nested parts of a result: left out of the flat record when absent. */
    private static boolean isPart(String field) {
        return switch (field) {
            case "scan", "writer", "remixdb", "rocksdb" -> true;
            default -> false;
        };
    }

    static void write(Path file, Report report) throws IOException {
        Json.writeReport(file, report);
    }
}
