package dev.remixdb.compaction;

import java.util.List;
import java.util.Locale;

/** The built-in policies by name, for command lines and configuration files. */
public final class CompactionPolicies {
    /** The names {@link #named(String)} accepts, the default first. */
    public static final List<String> NAMES = List.of("remixdb", "garnering", "rangereduce", "garnering+rangereduce");

    private CompactionPolicies() {}

    /**
     * The built-in policy of that name, with its default settings: {@code remixdb}
     * ({@link RemixDbPolicy}), {@code garnering} ({@link GarneringPolicy}), {@code rangereduce}
     * ({@link RangeReducePolicy} over RemixDB's) or {@code garnering+rangereduce}. Case and
     * surrounding blanks are ignored.
     *
     * @param name the policy's name
     * @return the policy
     * @throws IllegalArgumentException naming the choices if no policy has that name
     */
    public static CompactionPolicy named(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "remixdb" -> RemixDbPolicy.defaults();
            case "garnering" -> GarneringPolicy.defaults();
            case "rangereduce", "remixdb+rangereduce" -> RangeReducePolicy.over(RemixDbPolicy.defaults());
            case "garnering+rangereduce" -> RangeReducePolicy.over(GarneringPolicy.defaults());
            default -> throw new IllegalArgumentException("no compaction policy named '" + name + "'; one of " + NAMES);
        };
    }
}
