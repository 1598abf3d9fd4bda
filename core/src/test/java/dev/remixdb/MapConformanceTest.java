package dev.remixdb;

import com.google.common.collect.testing.ConcurrentNavigableMapTestSuiteBuilder;
import com.google.common.collect.testing.NavigableMapTestSuiteBuilder;
import com.google.common.collect.testing.SampleElements;
import com.google.common.collect.testing.TestSortedMapGenerator;
import com.google.common.collect.testing.TestStringSortedMapGenerator;
import com.google.common.collect.testing.features.CollectionFeature;
import com.google.common.collect.testing.features.CollectionSize;
import com.google.common.collect.testing.features.Feature;
import com.google.common.collect.testing.features.MapFeature;
import junit.framework.Test;
import junit.framework.TestFailure;
import junit.framework.TestResult;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentNavigableMap;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Guava's collection conformance suites on the typed map views: every test of
 * {@link ConcurrentNavigableMapTestSuiteBuilder} and {@link NavigableMapTestSuiteBuilder}, with
 * the derived sub-map, head/tail map, descending map, key set, entry set and values suites. The
 * features declared are the ones the view has: put and remove (general purpose), iterator
 * removal, any size, known order; not nulls, not serialization, not fail-fast iterators (they are
 * weakly consistent).
 *
 * <p>Each suite runs on one store (tens of thousands of tests: a store each would spend the time
 * opening stores): every map the generator creates starts by deleting whatever the previous test
 * left, through a cursor and a batch rather than through the view under test. The string maps are
 * built twice: entries left in the memtable, and entries compacted into tables and a REMIX before
 * the test starts, so both read paths are held to the contract.
 */
class MapConformanceTest {

    @org.junit.jupiter.api.Test
    void stringMapsInTheMemtable() {
        run(ConcurrentNavigableMapTestSuiteBuilder.using(new StringMaps(new Store(), false))
                .named("asMap[STRING, STRING] in memtable").withFeatures(features()).createTestSuite());
    }

    /**
     * Each map here costs a compaction (a few fsyncs), so the test command runs the sizes where tables
     * hold entries (several; 1/3 of the suite); {@code -Dremixdb.conformance.full=true} runs every size.
     */
    @org.junit.jupiter.api.Test
    void stringMapsInTables() {
        boolean full = Boolean.getBoolean("remixdb.conformance.full");
        List<Feature<?>> features = new ArrayList<>(features());
        if (!full) {
            features.remove(CollectionSize.ANY);
            features.add(CollectionSize.SEVERAL);
        }
        run(ConcurrentNavigableMapTestSuiteBuilder.using(new StringMaps(new Store(), true))
                .named("asMap[STRING, STRING] in tables").withFeatures(features).createTestSuite());
    }

    @org.junit.jupiter.api.Test
    void longIntegerMaps() {
        run(NavigableMapTestSuiteBuilder.using(new LongMaps(new Store()))
                .named("asMap[LONG, INTEGER]").withFeatures(features()).createTestSuite());
    }

    /**
     * Runs a JUnit 3 suite in-process and fails with every failure listed. (Run through the JUnit
     * Platform's vintage engine, the reporting of tens of thousands of tiny tests costs more than
     * the tests.)
     */
    private static void run(Test suite) {
        TestResult result = new TestResult();
        suite.run(result);
        List<String> problems = new ArrayList<>();
        for (Enumeration<TestFailure> e = result.failures(); e.hasMoreElements(); ) {
            problems.add(describe(e.nextElement()));
        }
        for (Enumeration<TestFailure> e = result.errors(); e.hasMoreElements(); ) {
            problems.add(describe(e.nextElement()));
        }
        System.out.printf("%s: %,d Guava conformance tests, %d failed%n", suite, result.runCount(), problems.size());
        if (!problems.isEmpty()) {
            fail(problems.size() + " of " + result.runCount() + " conformance tests failed:\n"
                    + String.join("\n", problems.subList(0, Math.min(40, problems.size()))));
        }
    }

    private static String describe(TestFailure f) {
        StackTraceElement[] trace = f.thrownException().getStackTrace();
        String where = "";
        for (StackTraceElement t : trace) {
            if (t.getClassName().startsWith("dev.remixdb") || t.getClassName().contains("testers")) {
                where = " at " + t;
                break;
            }
        }
        return "  " + f.failedTest() + ": " + f.thrownException() + where;
    }

    private static List<Feature<?>> features() {
        return List.of(MapFeature.GENERAL_PURPOSE, CollectionFeature.SUPPORTS_ITERATOR_REMOVE,
                CollectionFeature.KNOWN_ORDER, CollectionSize.ANY);
    }

    /** One store for a suite, opened on first use and closed (and deleted) when the JVM exits. */
    static final class Store {
        private RemixDB db;

        synchronized RemixDB db() {
            if (db == null) {
                try {
                    Path dir = Files.createTempDirectory("remixdb-map-");
                    RemixDB opened = RemixDB.open(dir, Options.builder().memtableBytes(1 << 20)
                            .blockCacheBytes(1 << 20).compactionThreads(1).build());
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> closeAndDelete(opened, dir)));
                    db = opened;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return db;
        }

        private static void closeAndDelete(RemixDB db, Path dir) {
            try {
                db.close();
                try (var files = Files.walk(dir)) {
                    for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            } catch (IOException e) {
                System.err.println("cannot clean up " + dir + ": " + e);
            }
        }

        /** Empties the store, then fills it through a typed map view, optionally moving it into tables. */
        <K, V> ConcurrentNavigableMap<K, V> fresh(KeyCodec<K> kc, ValueCodec<V> vc, Object[] entries, boolean compact) {
            RemixDB store = db();
            try {
                WriteBatch wipe = new WriteBatch();
                try (Cursor c = store.cursor()) {
                    for (c.seekToFirst(); c.isValid(); c.next()) {
                        wipe.delete(c.key());
                    }
                }
                store.write(wipe);
                ConcurrentNavigableMap<K, V> map = store.asMap(kc, vc);
                for (Object o : entries) {
                    @SuppressWarnings("unchecked") Map.Entry<K, V> e = (Map.Entry<K, V>) o;
                    map.put(e.getKey(), e.getValue());
                }
                if (compact) {
                    store.compactMemtable();
                }
                return map;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static final class StringMaps extends TestStringSortedMapGenerator {
        private final Store store;
        private final boolean compacted;

        StringMaps(Store store, boolean compacted) {
            this.store = store;
            this.compacted = compacted;
        }

        @Override
        protected SortedMap<String, String> create(Map.Entry<String, String>[] entries) {
            return store.fresh(Codecs.STRING, Codecs.STRING, entries, compacted);
        }
    }

    private static final class LongMaps implements TestSortedMapGenerator<Long, Integer> {
        private final Store store;

        LongMaps(Store store) {
            this.store = store;
        }

        @Override
        public SampleElements<Map.Entry<Long, Integer>> samples() {
            return new SampleElements<>(Map.entry(-7L, 1), Map.entry(0L, -2), Map.entry(3L, 3),
                    Map.entry(1L << 40, 4), Map.entry(Long.MAX_VALUE - 7, Integer.MIN_VALUE));
        }

        @Override
        public SortedMap<Long, Integer> create(Object... entries) {
            return store.fresh(Codecs.LONG, Codecs.INTEGER, entries, false);
        }

        @SuppressWarnings("unchecked")
        @Override
        public Map.Entry<Long, Integer>[] createArray(int length) {
            return new Map.Entry[length];
        }

        @Override
        public Iterable<Map.Entry<Long, Integer>> order(List<Map.Entry<Long, Integer>> insertionOrder) {
            List<Map.Entry<Long, Integer>> sorted = new ArrayList<>(insertionOrder);
            sorted.sort(Map.Entry.comparingByKey());
            return sorted;
        }

        @Override
        public Long[] createKeyArray(int length) {
            return new Long[length];
        }

        @Override
        public Integer[] createValueArray(int length) {
            return new Integer[length];
        }

        @Override
        public Map.Entry<Long, Integer> belowSamplesLesser() {
            return Map.entry(Long.MIN_VALUE, 10);
        }

        @Override
        public Map.Entry<Long, Integer> belowSamplesGreater() {
            return Map.entry(-100L, 11);
        }

        @Override
        public Map.Entry<Long, Integer> aboveSamplesLesser() {
            return Map.entry(Long.MAX_VALUE - 1, 12);
        }

        @Override
        public Map.Entry<Long, Integer> aboveSamplesGreater() {
            return Map.entry(Long.MAX_VALUE, 13);
        }
    }
}
