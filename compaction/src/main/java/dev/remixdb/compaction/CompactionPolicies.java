package dev.remixdb.compaction;

import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;

/** The built-in policies by name, for command lines and configuration files. */
public final class CompactionPolicies {
    /** The names {@link #named(String)} accepts, the default first. */
    public static final List<String> NAMES = List.of("remixdb", "garnering", "rangereduce", "garnering+rangereduce");

    private CompactionPolicies() {}

    /**
     * The built-in policy of that name, with its default settings: {@code remixdb}
     * ({@link RemixDbPolicy}), {@code garnering} ({@link GarneringPolicy}), {@code rangereduce}
     * ({@link RangeReducePolicy} over RemixDB's) or {@code garnering+rangereduce}. Case and
     * surrounding blanks are ignored. {@code remixdb} takes its idle-merge settings after a colon,
     * {@code remixdb:idleMergeRuns=5,idleMergeScanned=0.05,budget=1}
     * ({@link RemixDbPolicy.Builder#idleMergeRuns}, {@link RemixDbPolicy.Builder#idleMergeScanned},
     * {@link RemixDbPolicy.Builder#optionalWriteBudget}). The RangeReduce names take settings after a colon,
     * {@code rangereduce:budget=0.3,rho=0.2}: {@code budget} ({@link RangeReducePolicy.Builder#budget},
     * a share or {@code unlimited}) and {@code rho} ({@link RangeReducePolicy.Builder#rho}).
     *
     * @param name the policy's name
     * @return the policy
     * @throws IllegalArgumentException naming the choices if no policy has that name, or naming the
     *                                  setting that is unknown or out of range
     */
    public static CompactionPolicy named(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        int colon = n.indexOf(':');
        String settings = colon < 0 ? null : n.substring(colon + 1);
        n = colon < 0 ? n : n.substring(0, colon).trim();
        CompactionPolicy base = switch (n) {
            case "remixdb", "rangereduce", "remixdb+rangereduce" -> RemixDbPolicy.defaults();
            case "garnering", "garnering+rangereduce" -> GarneringPolicy.defaults();
            default -> throw new IllegalArgumentException("no compaction policy named '" + name + "'; one of " + NAMES);
        };
        if (n.equals("remixdb") && settings != null) {
            return remixDb(settings, name);
        }
        if (!n.endsWith("rangereduce")) {
            if (settings != null) {
                throw new IllegalArgumentException("policy '" + n + "' takes no settings: " + name);
            }
            return base;
        }
        RangeReducePolicy.Builder b = RangeReducePolicy.builder(base);
        forEachSetting(settings, name, (key, value) -> {
            switch (key) {
                case "budget" -> b.budget(value.equals("unlimited") ? Double.POSITIVE_INFINITY : number(value, name));
                case "rho" -> b.rho(number(value, name));
                default -> throw new IllegalArgumentException("unknown setting '" + key + "' in '" + name
                        + "'; RangeReduce takes budget and rho");
            }
        });
        return b.build();
    }

    /** {@code remixdb:idleMergeRuns=5,idleMergeScanned=0.05,budget=1} (keys in any case). */
    private static RemixDbPolicy remixDb(String settings, String name) {
        RemixDbPolicy.Builder b = RemixDbPolicy.builder();
        boolean[] tuned = {false};
        forEachSetting(settings, name, (key, value) -> {
            switch (key) {
                case "idlemergeruns" -> b.idleMergeRuns(integer(value, name));
                case "idlemergescanned" -> b.idleMergeScanned(number(value, name));
                case "budget" -> b.optionalWriteBudget(number(value, name));
                default -> throw new IllegalArgumentException("unknown setting '" + key + "' in '" + name
                        + "'; remixdb takes idleMergeRuns, idleMergeScanned and budget");
            }
            tuned[0] |= !key.equals("idlemergeruns");
        });
        RemixDbPolicy policy = b.build();
        if (tuned[0] && policy.idleMergeRuns() == 0) {
            throw new IllegalArgumentException("'" + name + "': idleMergeScanned and budget do nothing without"
                    + " idleMergeRuns > 0");
        }
        return policy;
    }

    /** Hands each {@code key=value} of a comma-separated {@code settings} (null: none) to {@code setting}. */
    private static void forEachSetting(String settings, String name, BiConsumer<String, String> setting) {
        if (settings == null) {
            return;
        }
        for (String pair : settings.split(",")) {
            String[] kv = pair.split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("setting '" + pair.trim() + "' of '" + name + "' needs a value");
            }
            setting.accept(kv[0].trim(), kv[1].trim());
        }
    }

    private static int integer(String value, String name) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + value + "' in '" + name + "' is not a whole number", e);
        }
    }

    private static double number(String value, String name) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + value + "' in '" + name + "' is not a number", e);
        }
    }
}
