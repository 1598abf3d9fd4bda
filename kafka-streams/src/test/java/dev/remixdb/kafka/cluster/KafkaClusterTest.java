package dev.remixdb.kafka.cluster;

import dev.remixdb.kafka.cluster.AppInstance.Restore;
import dev.remixdb.kafka.cluster.WordCountApp.Input;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static dev.remixdb.kafka.cluster.WordCountApp.CLICKS;
import static dev.remixdb.kafka.cluster.WordCountApp.LINES;
import static dev.remixdb.kafka.cluster.WordCountApp.PARTITIONS;
import static dev.remixdb.kafka.cluster.WordCountApp.REGION_CLICKS;
import static dev.remixdb.kafka.cluster.WordCountApp.REGION_OUT;
import static dev.remixdb.kafka.cluster.WordCountApp.USERS;
import static dev.remixdb.kafka.cluster.WordCountApp.USERS_TOPIC;
import static dev.remixdb.kafka.cluster.WordCountApp.WINDOWED_OUT;
import static dev.remixdb.kafka.cluster.WordCountApp.WORD_COUNTS;
import static dev.remixdb.kafka.cluster.WordCountApp.WORD_COUNTS_OUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * RemixDB stores in a Kafka Streams application on a real (in-process, KRaft) Kafka cluster, used
 * the way a team runs one: three instances of {@link WordCountApp} under exactly-once v2 with a
 * standby replica per task, one of them stopped without cleanup while processing, brought back,
 * and one wiped. At every step the outputs must equal what the input makes them (counted here) and
 * what a reference run of the same topology on Kafka's in-memory stores wrote, and interactive
 * queries routed through the cluster's metadata must answer from whichever instance holds each key.
 *
 * <p>Short by default (CI: a few thousand lines); {@code -Dremixdb.kafka.lines=200000} for a long
 * run.
 */
@Timeout(value = 60, unit = TimeUnit.MINUTES)
class KafkaClusterTest {
    private static final int LINES_TOTAL = Integer.getInteger("remixdb.kafka.lines", 3000);
    private static final Duration WAIT = Duration.ofSeconds(Integer.getInteger("remixdb.kafka.waitSeconds", 180));
    private static final List<String> REMIX_STORES = List.of(WORD_COUNTS, USERS, REGION_CLICKS);
    private static final int USER_COUNT = 300;

    @TempDir
    static Path tmp;
    private static KafkaCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = KafkaCluster.start(tmp.resolve("kafka"));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void failoverStandbysReturnAndWipe() throws Exception {
        String in = "f-";
        String app = "f-app";
        Input input = new Input(in, 42, LINES_TOTAL, 400, USER_COUNT, 7);
        int third = LINES_TOTAL / 3;
        createTopics(in, "", "-ref");
        cluster.produce(input.users);
        Path state = tmp.resolve("f-state");
        List<AppInstance> started = new CopyOnWriteArrayList<>();
        Prober prober = null;
        try {
            AppInstance ref = start(started, "f-ref", in, "-ref", state.resolve("ref"), 9100, 0, false);
            AppInstance a = start(started, app, in, "", state.resolve("a"), 9101, 1, true);
            AppInstance b = start(started, app, in, "", state.resolve("b"), 9102, 1, true);
            AppInstance c = start(started, app, in, "", state.resolve("c"), 9103, 1, true);
            Instances live = new Instances(List.of(a, b, c));
            await("three instances running", () -> live.all.stream().allMatch(AppInstance::running), live::errors);

            // 1. A third of the input, processed by all three: outputs and queries as counted.
            cluster.produce(input.part(0, third));
            awaitOutputs(in, "", input, third, live);
            awaitOutputs(in, "-ref", input, third, new Instances(List.of(ref)));
            assertQueriesAnswer(live, input, third);
            assertTrue(c.activeTasks().size() > 0, "each instance has tasks: " + c.activeTasks());

            // 2. The second third arrives and C stops mid-way (no cleanup, still a group member until
            // its session times out). Its tasks move to A and B, which restore them. Queries go on all
            // along, through the metadata, and never see a count below the committed first third or
            // above the second.
            Prober p = new Prober(live, input.wordCounts(third), input.wordCounts(2 * third));
            prober = p;
            p.start();
            cluster.produce(input.part(third, 2 * third));
            c.kill();
            Set<String> cDirs = storeDirs(state.resolve("c"), app);
            live.remove(c);
            awaitOutputs(in, "", input, 2 * third, live);
            assertQueriesAnswer(live, input, 2 * third);
            await("the prober answered from the survivors", () -> p.answered.get() > 20, p::summary);
            p.stop();
            assertNull(p.violation(), p::summary);

            // Standbys: the copies on the other instance hold the same counts (kept up to date by the
            // store's restore path), queryable as stale stores.
            assertTrue(a.standbyRecords.get() + b.standbyRecords.get() > 0, "standbys loaded changelog records");
            assertStandbysCaughtUp(live, input, 2 * third);

            // 3. C comes back with its state directory: it restores what it missed, from the offsets
            // its stores committed, not from scratch; then the last third.
            assertTrue(!cDirs.isEmpty(), "C left store directories behind");
            AppInstance c2 = start(started, app, in, "", state.resolve("c"), 9103, 1, true);
            live.add(c2);
            await("C back and running", () -> live.all.stream().allMatch(AppInstance::running), live::errors);
            cluster.produce(input.part(2 * third, LINES_TOTAL));
            awaitOutputs(in, "", input, LINES_TOTAL, live);
            await("C active again", () -> !c2.activeTasks().isEmpty(), () -> "C has no active task");
            assertIncremental(c2, cDirs);
            assertQueriesAnswer(live, input, LINES_TOTAL);

            // 4. B's state is wiped: it restores everything it gets from the changelogs, and every
            // answer stays the same.
            b.close();
            b.streams.cleanUp();
            assertTrue(storeDirs(state.resolve("b"), app).isEmpty(), "cleanUp removed B's stores");
            live.remove(b);
            AppInstance b2 = start(started, app, in, "", state.resolve("b"), 9102, 1, true);
            live.add(b2);
            await("B back and running", () -> live.all.stream().allMatch(AppInstance::running), live::errors);
            await("B has restored state", () -> b2.restores.stream().anyMatch(r -> REMIX_STORES.contains(r.store())),
                    () -> "B's restores: " + b2.restores);
            for (Restore r : b2.restores) {
                if (REMIX_STORES.contains(r.store())) {
                    assertEquals(0, r.startOffset(), "a wiped store restores from the start: " + r);
                }
            }
            assertQueriesAnswer(live, input, LINES_TOTAL);

            // The reference run on in-memory stores wrote the same tables.
            awaitOutputs(in, "-ref", input, LINES_TOTAL, new Instances(List.of(ref)));
            for (String out : List.of(WORD_COUNTS_OUT, WINDOWED_OUT, REGION_OUT)) {
                assertEquals(WordCountApp.table(cluster.readAll(in + out + "-ref")),
                        WordCountApp.table(cluster.readAll(in + out)), out + ": RemixDB run vs in-memory run");
            }
            assertEquals(List.of(), live.all.stream().map(i -> i.error.get()).filter(Objects::nonNull).toList());
            System.out.printf("failover: survivors restored %d records (standbys loaded %d); C came back restoring"
                            + " %s (%d records); wiped B restored %d records; prober %s%n",
                    a.restoredRecords.get() + b.restoredRecords.get(), a.standbyRecords.get() + b.standbyRecords.get(),
                    c2.restores, c2.restoredRecords.get(), b2.restoredRecords.get(), p.summary());
        } finally {
            if (prober != null) {
                prober.stop();
            }
            for (AppInstance i : started) {
                i.close();
            }
        }
    }

    /**
     * An instance in its own process, killed with SIGKILL while processing under exactly-once: its
     * stores are left open with writes of a transaction that never committed. The survivor takes
     * over; the instance restarts on the same state directory, where Kafka and the store must not
     * trust that state (the store refuses to open it and Kafka restores it from the changelog), and
     * the outputs and queries come out exact.
     */
    @Test
    void killedProcessRestartsOnItsStateDirectory() throws Exception {
        String in = "k-";
        String app = "k-app";
        Input input = new Input(in, 7, LINES_TOTAL, 300, USER_COUNT, 5);
        int third = LINES_TOTAL / 3;
        createTopics(in, "");
        cluster.produce(input.users);
        Path state = tmp.resolve("k-state");
        List<AppInstance> started = new CopyOnWriteArrayList<>();
        Process child = null;
        try {
            AppInstance a = start(started, app, in, "", state.resolve("a"), 9201, 1, true);
            String java = ProcessHandle.current().info().command().orElse("java");
            child = new ProcessBuilder(java, "--add-modules", "jdk.incubator.vector",
                    "--enable-native-access=ALL-UNNAMED", "-Xmx512m", "-XX:+UseSerialGC",
                    "-cp", System.getProperty("java.class.path"), InstanceChild.class.getName(),
                    app, in, cluster.bootstrapServers(), state.resolve("b").toString(), "9202")
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            AtomicLong childActive = new AtomicLong(-1);
            Process watched = child;
            Thread.ofPlatform().daemon().start(() -> {
                try (var lines = watched.inputReader().lines()) {
                    lines.filter(l -> l.startsWith("active ")).forEach(l -> childActive.set(Long.parseLong(l.substring(7))));
                }
            });
            Instances live = new Instances(List.of(a));
            await("both instances running with tasks", () -> a.running() && !a.activeTasks().isEmpty()
                    && childActive.get() > 0, () -> live.errors() + " child active " + childActive);
            cluster.produce(input.part(0, third));
            awaitOutputs(in, "", input, third, live);
            assertTrue(childActive.get() > 0, "the child has active tasks");

            cluster.produce(input.part(third, 2 * third));
            Thread.sleep(300);
            child.destroyForcibly();
            assertEquals(137, child.waitFor(), "killed by SIGKILL");
            Set<String> left = storeDirs(state.resolve("b"), app);
            assertTrue(!left.isEmpty(), "the killed instance left stores behind");
            awaitOutputs(in, "", input, 2 * third, live);
            assertQueriesAnswer(live, input, 2 * third);

            AppInstance b = start(started, app, in, "", state.resolve("b"), 9202, 1, true);
            live.add(b);
            await("the restarted instance running", () -> live.all.stream().allMatch(AppInstance::running), live::errors);
            cluster.produce(input.part(2 * third, LINES_TOTAL));
            awaitOutputs(in, "", input, LINES_TOTAL, live);
            await("the restarted instance active", () -> !b.activeTasks().isEmpty(), live::errors);
            assertQueriesAnswer(live, input, LINES_TOTAL);
            assertEquals(List.of(), live.all.stream().map(i -> i.error.get()).filter(Objects::nonNull).toList());
            // Under exactly-once the killed process's stores may hold writes of its aborted transaction:
            // none of them may be trusted, so whatever the restarted instance got of them came from offset 0.
            for (Restore r : b.restores) {
                if (left.contains(r.store() + "/" + r.changelog().partition())) {
                    assertEquals(0, r.startOffset(), "a store left open by the killed process was trusted: " + r);
                }
            }
            System.out.printf("kill -9: restarted instance restores %s (%d records, %d standby records)%n",
                    b.restores, b.restoredRecords.get(), b.standbyRecords.get());
        } finally {
            if (child != null) {
                child.destroyForcibly();
            }
            for (AppInstance i : started) {
                i.close();
            }
        }
    }

    // ------------------------------------------------------------------ steps

    private static AppInstance start(List<AppInstance> started, String appId, String in, String outSuffix,
                                     Path stateDir, int port, int standbys, boolean remix) {
        AppInstance i = new AppInstance(appId, in, outSuffix, cluster.bootstrapServers(), stateDir, port,
                standbys, remix);
        started.add(i);
        return i;
    }

    private static void createTopics(String in, String... outSuffixes) throws Exception {
        List<String> names = new ArrayList<>(List.of(in + LINES, in + USERS_TOPIC, in + CLICKS));
        for (String s : outSuffixes) {
            names.addAll(List.of(in + WORD_COUNTS_OUT + s, in + WINDOWED_OUT + s, in + REGION_OUT + s));
        }
        cluster.createTopics(PARTITIONS, names.toArray(String[]::new));
    }

    /** Waits until the three output tables hold what the first {@code n} lines and clicks make them. */
    private static void awaitOutputs(String in, String suffix, Input input, int n, Instances live) {
        Map<String, Map<String, Long>> expected = Map.of(
                WORD_COUNTS_OUT, input.wordCounts(n),
                WINDOWED_OUT, input.windowedCounts(n),
                REGION_OUT, input.regionClicks(n));
        Map<String, Map<String, Long>> seen = new TreeMap<>();
        await("outputs" + suffix + " after " + n + " lines", () -> {
            boolean equal = true;
            for (var e : expected.entrySet()) {
                Map<String, Long> t = WordCountApp.table(unchecked(() -> cluster.readAll(in + e.getKey() + suffix)));
                seen.put(e.getKey(), t);
                equal &= t.equals(e.getValue());
            }
            return equal;
        }, () -> live.errors() + " " + diff(expected, seen));
    }

    /**
     * Every word's count and some users' regions through IQv2 {@code KeyQuery}s routed by the
     * metadata to the active instance, and the counts again through a {@code RangeQuery} on every
     * instance, which together must hold each word exactly once.
     */
    private static void assertQueriesAnswer(Instances live, Input input, int n) {
        Map<String, Long> counts = input.wordCounts(n);
        Map<String, Object> seen = new TreeMap<>();
        await("key queries after " + n + " lines", () -> {
            for (var e : counts.entrySet()) {
                if (!Objects.equals(e.getValue(), live.get(WORD_COUNTS, e.getKey(), new StringBuilder()))) {
                    seen.put(e.getKey(), live.get(WORD_COUNTS, e.getKey(), new StringBuilder()));
                    return false;
                }
            }
            for (int u = 0; u < USER_COUNT; u += 17) {
                if (!input.regionOf(u).equals(live.get(USERS, "user-" + u, new StringBuilder()))) {
                    return false;
                }
            }
            for (var e : input.regionClicks(n).entrySet()) {
                if (!e.getValue().equals(live.get(REGION_CLICKS, e.getKey(), new StringBuilder()))) {
                    return false;
                }
            }
            return true;
        }, () -> "first mismatch " + seen + " " + live.errors());
        StringBuilder failure = new StringBuilder();
        await("range queries after " + n + " lines", () -> {
            failure.setLength(0);
            Map<String, Object> union = new TreeMap<>();
            for (AppInstance i : live.all) {
                Map<String, Object> part = i.activeRange(WORD_COUNTS, failure);
                if (part == null) {
                    return false;
                }
                for (var e : part.entrySet()) {
                    if (union.put(e.getKey(), e.getValue()) != null) {
                        failure.append(e.getKey()).append(" active on two instances; ");
                        return false;
                    }
                }
            }
            return union.equals(new TreeMap<String, Object>(counts));
        }, failure::toString);
    }

    /** The standby copy of each word's partition, on the instance the metadata names, holds the count. */
    private static void assertStandbysCaughtUp(Instances live, Input input, int n) {
        StringBuilder last = new StringBuilder();
        await("standbys caught up", () -> {
            last.setLength(0);
            int checked = 0;
            for (var e : input.wordCounts(n).entrySet()) {
                KeyQueryMetadata m = live.any().locate(WORD_COUNTS, e.getKey());
                for (HostInfo h : m.standbyHosts()) {
                    AppInstance standby = live.at(h);
                    if (standby == null) {
                        continue;
                    }
                    Object v;
                    try {
                        v = standby.standbyGet(WORD_COUNTS, e.getKey(), m.partition());
                    } catch (RuntimeException ex) {
                        last.append(ex);
                        return false;
                    }
                    if (!e.getValue().equals(v)) {
                        last.append(e.getKey()).append(" on standby ").append(h).append(": ").append(v)
                                .append(" != ").append(e.getValue());
                        return false;
                    }
                    checked++;
                }
            }
            last.append("no standby host named");
            return checked > 0;
        }, last::toString);
    }

    /**
     * C restored (or caught up as a standby) the stores it still had on disk from where their
     * committed offsets were, not from offset 0.
     */
    private static void assertIncremental(AppInstance c, Set<String> dirsBefore) {
        List<Restore> known = new ArrayList<>();
        for (Restore r : c.restores) {
            if (REMIX_STORES.contains(r.store()) && dirsBefore.contains(r.store() + "/" + r.changelog().partition())) {
                known.add(r);
            }
        }
        assertTrue(!known.isEmpty(), "C restored none of its former stores: " + c.restores + " had " + dirsBefore);
        for (Restore r : known) {
            assertTrue(r.startOffset() > 0, "a store C had restored from scratch: " + r);
        }
    }

    /** "store/partition" for each RemixDB store directory under an instance's state directory. */
    private static Set<String> storeDirs(Path stateDir, String appId) throws IOException {
        Set<String> out = new HashSet<>();
        Path root = stateDir.resolve(appId);
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (Stream<Path> tasks = Files.list(root)) {
            for (Path task : tasks.filter(Files::isDirectory).toList()) {
                String name = task.getFileName().toString();
                int underscore = name.indexOf('_');
                if (underscore < 0) {
                    continue;
                }
                String partition = name.substring(underscore + 1);
                for (String store : REMIX_STORES) {
                    if (Files.isDirectory(task.resolve(store))) {
                        out.add(store + "/" + partition);
                    }
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ helpers

    /** The live instances and the routing a service does: the metadata names a host, the host answers. */
    static final class Instances {
        final List<AppInstance> all = new CopyOnWriteArrayList<>();

        Instances(List<AppInstance> instances) {
            all.addAll(instances);
        }

        void add(AppInstance i) {
            all.add(i);
        }

        void remove(AppInstance i) {
            all.remove(i);
        }

        AppInstance any() {
            return all.getFirst();
        }

        AppInstance at(HostInfo host) {
            return all.stream().filter(i -> i.port == host.port()).findFirst().orElse(null);
        }

        /** The value of {@code key} from its active instance, or null with why in {@code failure}. */
        Object get(String store, String key, StringBuilder failure) {
            try {
                KeyQueryMetadata m = any().locate(store, key);
                AppInstance host = m == null || m.activeHost() == null ? null : at(m.activeHost());
                if (host == null) {
                    failure.append("no live active host for ").append(key).append(": ").append(m);
                    return null;
                }
                return host.activeGet(store, key, m.partition(), failure);
            } catch (RuntimeException e) {
                // Rebalancing, or the store migrating: a service retries.
                failure.append(e);
                return null;
            }
        }

        String errors() {
            StringBuilder s = new StringBuilder();
            for (AppInstance i : all) {
                s.append(i.port).append(':').append(i.streams.state());
                if (i.error.get() != null) {
                    s.append(" error ").append(i.error.get());
                }
                s.append("; ");
            }
            return s.toString();
        }
    }

    /**
     * Queries random words while the cluster fails over, as a service's readers would, and records the
     * first answer outside [count after the committed first part, count after the second part].
     */
    static final class Prober {
        private final Instances live;
        private final Map<String, Long> low;
        private final Map<String, Long> high;
        private final List<String> words;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong failed = new AtomicLong();
        final AtomicLong answered = new AtomicLong();
        private volatile String violation;
        private Thread thread;

        Prober(Instances live, Map<String, Long> low, Map<String, Long> high) {
            this.live = live;
            this.low = low;
            this.high = high;
            this.words = List.copyOf(high.keySet());
        }

        void start() {
            thread = Thread.ofPlatform().name("iq-prober").daemon().start(() -> {
                SplittableRandom r = new SplittableRandom(7);
                while (!stop.get()) {
                    String w = words.get(r.nextInt(words.size()));
                    Object v = live.get(WORD_COUNTS, w, new StringBuilder());
                    if (v == null) {
                        failed.incrementAndGet();
                    } else {
                        answered.incrementAndGet();
                        long n = (Long) v;
                        if (n < low.getOrDefault(w, 0L) || n > high.get(w)) {
                            violation = w + " = " + n + " outside [" + low.getOrDefault(w, 0L) + ", " + high.get(w) + "]";
                        }
                    }
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        void stop() throws InterruptedException {
            stop.set(true);
            if (thread != null) {
                thread.join(10_000);
            }
        }

        String violation() {
            return violation;
        }

        String summary() {
            return "answered " + answered + ", not answerable " + failed + ", violation " + violation;
        }
    }

    private static void await(String what, BooleanSupplier condition, Supplier<String> detail) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after " + WAIT.toSeconds() + " s waiting for " + what + ": " + detail.get());
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + what);
            }
        }
    }

    private static String diff(Map<String, Map<String, Long>> expected, Map<String, Map<String, Long>> seen) {
        StringBuilder s = new StringBuilder();
        for (var e : expected.entrySet()) {
            Map<String, Long> got = seen.getOrDefault(e.getKey(), Map.of());
            int shown = 0;
            for (var x : e.getValue().entrySet()) {
                if (!x.getValue().equals(got.get(x.getKey())) && shown++ < 10) {
                    s.append(e.getKey()).append('[').append(x.getKey()).append("] ").append(got.get(x.getKey()))
                            .append(" != ").append(x.getValue()).append("; ");
                }
            }
            if (got.size() != e.getValue().size()) {
                s.append(e.getKey()).append(" has ").append(got.size()).append(" keys, expected ")
                        .append(e.getValue().size()).append("; ");
            }
        }
        return s.toString();
    }

    interface ThrowingSupplier<T> {
        T get() throws Exception;
    }

    private static <T> T unchecked(ThrowingSupplier<T> s) {
        try {
            return s.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
