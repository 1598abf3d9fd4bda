package dev.remixdb.bench.dbbench;

import dev.remixdb.bench.UsageException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One phase of a db run: its kind, the scan length of seek phases, and its label in the results
 * (its name, with "-2", "-3" added when a name repeats, e.g. readrandom after deletes).
 *
 * @param name   the name as typed (e.g. "seeknext50")
 * @param label  the name in results, unique within a run
 * @param kind   what it does
 * @param length entries copied per scan (seeknextN / seekprevN), puts per batch (overwritebatchN),
 *               keys per call (multigetN), lookups in flight per thread (getasyncN);
 *               1 for seekrandom; 0 otherwise
 */
public record PhaseSpec(String name, String label, Kind kind, int length) {

    /** What a phase does; see bench/README.md for each. */
    public enum Kind {
        /** Empty store, all keys in a shuffled order (db_bench fillrandom), then wait until idle. */
        LOAD(true, true),
        /** Empty store, all keys in ascending order, then wait until idle. */
        FILLSEQ(true, true),
        /**
         * An import: LOAD's keys and order in batches of N without the WAL (RemixDB: writeDeferred;
         * RocksDB: write batches with disableWAL), then wait until idle. Ops count puts.
         */
        BULKLOAD(true, true),
        /** Overwrite random loaded keys with new values, then wait until idle. */
        OVERWRITE(true, false),
        /** As OVERWRITE, N puts per atomic write batch (ops count puts; latency is per batch). */
        OVERWRITEBATCH(true, false),
        /** Point reads of random keys (uniform or Zipfian), every value checked. */
        READRANDOM(false, false),
        /** Point reads of N random keys per call (RocksDB: multiGetAsList); ops count keys. */
        MULTIGET(false, false),
        /**
         * Point reads with N lookups in flight on each thread (RemixDB: getAsync; RocksDB has no
         * asynchronous get in Java, so it reads blocking, one at a time); ops count keys.
         */
        GETASYNC(false, false),
        /** Point reads of keys that are not there (each falls between two present keys). */
        READMISSING(false, false),
        /** Seek to a random key and copy the entry found. */
        SEEKRANDOM(false, false),
        /** Seek, then copy N entries going forward. */
        SEEKNEXT(false, false),
        /** Seek for the last key at or before, then copy N entries going backward. */
        SEEKPREV(false, false),
        /** Point reads measured while one writer overwrites at full speed; then wait until idle. */
        READWHILEWRITING(true, false),
        /** Delete a random 10% (--deletes) of the keys, then wait until idle. */
        DELETES(true, false),
        /**
         * --scans operations on one thread, 90% seek + N entries forward and 10% overwrites of a
         * random key (so every scan stays checkable); ops count both; then wait until idle.
         */
        SCANMIX(true, false);

        private final boolean writes;
        private final boolean fills;

        Kind(boolean writes, boolean fills) {
            this.writes = writes;
            this.fills = fills;
        }

        /** Whether the phase writes (and so waits until idle at its end and has a write amplification). */
        public boolean writes() {
            return writes;
        }

        /** Whether the phase starts from an empty store. */
        public boolean fills() {
            return fills;
        }
    }

    /** The "micro1" sequence, the default. */
    public static final List<String> MICRO1 = List.of("load", "readrandom", "seekrandom", "seeknext50");

    /**
     * {@code --phases all}: every kind once (seeknext at 10, 50 and 100), readrandom again after the
     * deletes, fillseq last (it starts over on an empty store).
     */
    public static final List<String> ALL = List.of("load", "readrandom", "readmissing", "seekrandom", "seeknext10",
            "seeknext50", "seeknext100", "seekprev50", "overwrite", "overwritebatch100", "readwhilewriting", "deletes",
            "readrandom", "fillseq");

    /** Longest scan of seeknextN / seekprevN. */
    public static final int MAX_SCAN = 10_000;

    /** Whether the phase reads through cursors or gets (and so runs on {@code --threads} threads). */
    public boolean reads() {
        return !kind.writes();
    }

    /** Parses {@code --phases}: names, {@code micro1} and {@code all} expanded, labels made unique. */
    public static List<PhaseSpec> parseList(List<String> names) {
        List<String> expanded = new ArrayList<>();
        for (String n : names) {
            switch (n) {
                case "micro1", "default" -> expanded.addAll(MICRO1);
                case "all" -> expanded.addAll(ALL);
                default -> expanded.add(n);
            }
        }
        if (expanded.isEmpty()) {
            throw new UsageException("--phases needs at least one phase");
        }
        Map<String, Integer> seen = new HashMap<>();
        List<PhaseSpec> out = new ArrayList<>();
        boolean filled = false;
        for (String n : expanded) {
            PhaseSpec p = parseOne(n);
            int count = seen.merge(n, 1, Integer::sum);
            if (count > 1) {
                p = new PhaseSpec(n, n + "-" + count, p.kind, p.length);
            }
            if (!p.kind.fills() && !filled) {
                throw new UsageException("phase " + n + " needs a loaded store: put load or fillseq before it in --phases");
            }
            filled |= p.kind.fills();
            out.add(p);
        }
        return out;
    }

    /** One phase name. */
    static PhaseSpec parseOne(String name) {
        return switch (name) {
            case "load", "fillrandom" -> new PhaseSpec(name, name, Kind.LOAD, 0);
            case "fillseq" -> new PhaseSpec(name, name, Kind.FILLSEQ, 0);
            case "overwrite" -> new PhaseSpec(name, name, Kind.OVERWRITE, 0);
            case "readrandom" -> new PhaseSpec(name, name, Kind.READRANDOM, 0);
            case "readmissing" -> new PhaseSpec(name, name, Kind.READMISSING, 0);
            case "seekrandom" -> new PhaseSpec(name, name, Kind.SEEKRANDOM, 1);
            case "readwhilewriting" -> new PhaseSpec(name, name, Kind.READWHILEWRITING, 0);
            case "deletes", "deleterandom" -> new PhaseSpec(name, name, Kind.DELETES, 0);
            default -> {
                if (name.startsWith("seeknext")) {
                    yield new PhaseSpec(name, name, Kind.SEEKNEXT, scanLength(name, "seeknext"));
                }
                if (name.startsWith("seekprev")) {
                    yield new PhaseSpec(name, name, Kind.SEEKPREV, scanLength(name, "seekprev"));
                }
                if (name.startsWith("multiget")) {
                    yield new PhaseSpec(name, name, Kind.MULTIGET, scanLength(name, "multiget"));
                }
                if (name.startsWith("getasync")) {
                    yield new PhaseSpec(name, name, Kind.GETASYNC, scanLength(name, "getasync"));
                }
                if (name.startsWith("scanmix")) {
                    yield new PhaseSpec(name, name, Kind.SCANMIX, scanLength(name, "scanmix"));
                }
                if (name.startsWith("bulkload")) {
                    yield new PhaseSpec(name, name, Kind.BULKLOAD, scanLength(name, "bulkload"));
                }
                if (name.startsWith("overwritebatch")) {
                    yield new PhaseSpec(name, name, Kind.OVERWRITEBATCH, scanLength(name, "overwritebatch"));
                }
                throw new UsageException("unknown phase '" + name + "'; phases: load (fillrandom), fillseq, bulkloadN, overwrite, "
                        + "overwritebatchN, readrandom, readmissing, multigetN, getasyncN, seekrandom, seeknextN, seekprevN, scanmixN (N = 1.."
                        + MAX_SCAN
                        + "), readwhilewriting, deletes, and the lists micro1, all");
            }
        };
    }

    private static int scanLength(String name, String prefix) {
        String digits = name.substring(prefix.length());
        if (!digits.matches("[0-9]{1,5}")) {
            throw new UsageException("phase '" + name + "': " + prefix + " must be followed by a number, e.g. "
                    + prefix + "50");
        }
        int n = Integer.parseInt(digits);
        if (n < 1 || n > MAX_SCAN) {
            throw new UsageException("phase '" + name + "': scan length must be in [1, " + MAX_SCAN + "]");
        }
        return n;
    }
}
