package dev.remixdb.remix;

import dev.remixdb.remix.RemixModel.Dataset;
import dev.remixdb.remix.RemixModel.Kv;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Named datasets that cover the shapes a REMIX must handle, each paired with every segment size
 * that can index it, with and without hash tags.
 */
final class Scenarios {

    /** A named dataset and the block size its runs are cut into. */
    record Scenario(String name, int blockBytes, Dataset data) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A scenario built with one configuration. */
    record Case(Scenario scenario, RemixConfig config) {
        RemixFixture open() {
            return RemixFixture.build(scenario.data(), config, scenario.blockBytes());
        }

        @Override
        public String toString() {
            return scenario.name() + ", D=" + config.segmentSize() + (config.tags() ? ", tags" : ", no tags");
        }
    }

    private static final List<Scenario> ALL = create();

    private Scenarios() {}

    static List<Scenario> all() {
        return ALL;
    }

    /** Every scenario with every segment size {@code >=} its run count, tags on and off. */
    static Stream<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (Scenario s : ALL) {
            for (int d : new int[] {16, 32, 64}) {
                if (d >= s.data().runCount()) {
                    cases.add(new Case(s, new RemixConfig(d, false)));
                    cases.add(new Case(s, new RemixConfig(d, true)));
                }
            }
        }
        return cases.stream();
    }

    private static List<Scenario> create() {
        List<Scenario> s = new ArrayList<>();
        s.add(new Scenario("no runs", 4096, new Dataset(List.of())));
        s.add(new Scenario("one empty run", 4096, new Dataset(List.of(List.of()))));
        RandomRuns r = new RandomRuns(1);
        s.add(new Scenario("single run", 256, new Dataset(List.of(r.run(r.mixedKeys(600), 400)))));
        s.add(new Scenario("empty runs between full ones", 64, new Dataset(List.of(
                List.of(), r.run(r.mixedKeys(400), 150), List.of(), List.of(), r.run(r.mixedKeys(400), 150), List.of()))));
        s.add(new Scenario("4 overlapping runs, 64-byte blocks", 64, new RandomRuns(2).tombstones(0.3)
                .runs(new RandomRuns(2).mixedKeys(350), 4, 250)));
        RandomRuns r16 = new RandomRuns(3);
        s.add(new Scenario("16 runs, 64-byte blocks", 64, r16.runs(r16.mixedKeys(500), 16, 150)));
        RandomRuns rp = new RandomRuns(4);
        s.add(new Scenario("100-byte shared prefixes", 256, rp.runs(rp.prefixedKeys(200), 6, 120)));
        RandomRuns rw = new RandomRuns(12);
        s.add(new Scenario("keys agreeing on whole 8-byte words", 128, rw.runs(rw.wordGroupedKeys(600), 6, 300)));
        s.add(new Scenario("every byte value in every run", 128, everyByteValue(new RandomRuns(5), 8)));
        s.add(new Scenario("jumbo values", 4096, new RandomRuns(6).jumbo(0.3).runs(new RandomRuns(6).mixedKeys(300), 5, 60)));
        s.add(new Scenario("keys present in all 16 runs", 64, sameKeysEverywhere(new RandomRuns(7), 16, 40)));
        s.add(new Scenario("only tombstones", 128, new RandomRuns(8).tombstones(1.0).runs(new RandomRuns(8).mixedKeys(300), 5, 100)));
        s.add(new Scenario("empty key in every run", 64, emptyKeyEverywhere(new RandomRuns(9), 7)));
        RandomRuns r63 = new RandomRuns(10);
        s.add(new Scenario("63 runs", 128, r63.runs(r63.mixedKeys(400), 63, 40)));
        RandomRuns r63full = new RandomRuns(11);
        s.add(new Scenario("keys present in all 63 runs", 4096, sameKeysEverywhere(r63full, 63, 12)));
        return List.copyOf(s);
    }

    /** Each run holds a random subset of the 256 one-byte keys and some two-byte keys. */
    private static Dataset everyByteValue(RandomRuns r, int runs) {
        List<byte[]> universe = new ArrayList<>();
        for (int b = 0; b < 256; b++) {
            universe.add(new byte[] {(byte) b});
            universe.add(new byte[] {(byte) b, (byte) (255 - b)});
        }
        List<List<Kv>> out = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            out.add(r.run(universe, 100 + r.random().nextInt(300)));
        }
        return new Dataset(out);
    }

    /**
     * {@code keys} keys that every run holds (so one key's versions fill a whole segment when
     * D == H), plus a few keys of each run's own.
     */
    private static Dataset sameKeysEverywhere(RandomRuns r, int runs, int keys) {
        List<byte[]> universe = r.mixedKeys(300 + keys);
        List<byte[]> common = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            common.add(universe.get(i * universe.size() / keys));
        }
        List<List<Kv>> out = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            List<byte[]> mine = new ArrayList<>(common);
            for (Kv extra : r.run(universe, 5)) {
                if (!containsKey(mine, extra.key())) {
                    mine.add(extra.key());
                }
            }
            mine.sort(Arrays::compareUnsigned);
            out.add(mine.stream().map(r::entry).toList());
        }
        return new Dataset(out);
    }

    /** Every run holds the empty key (as a value or a tombstone) and some other keys. */
    private static Dataset emptyKeyEverywhere(RandomRuns r, int runs) {
        List<byte[]> universe = r.mixedKeys(300);
        List<List<Kv>> out = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            List<Kv> run = new ArrayList<>(r.run(universe.subList(1, universe.size()), 30));
            run.addFirst(i % 3 == 2 ? Kv.delete(new byte[0]) : Kv.put(new byte[0], r.value()));
            out.add(run);
        }
        return new Dataset(out);
    }

    private static boolean containsKey(List<byte[]> keys, byte[] k) {
        return keys.stream().anyMatch(x -> Arrays.equals(x, k));
    }
}
