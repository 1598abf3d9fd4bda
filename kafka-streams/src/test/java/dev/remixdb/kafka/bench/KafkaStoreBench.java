package dev.remixdb.kafka.bench;

import dev.remixdb.kafka.RemixStores;
import dev.remixdb.kafka.StoreFixture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * RemixDB store vs Kafka's built-in RocksDB store ({@code Stores.persistentKeyValueStore}), same JVM,
 * same data, alternating rounds:
 * <ul>
 * <li><b>restore</b>: a changelog of {@code --records} records (16-byte random keys, 100-byte values)
 *   handed to the store's registered batching restore callback in batches of {@code --batch} (the
 *   restore consumer's {@code max.poll.records} default is 1000), then one commit of the offset;
 *   the time is restore + commit, as Kafka's state manager would see it. With
 *   {@code --checkpoint-records N} the store is also committed after every N records, as Kafka's
 *   state updater does while restoring (each {@code commit.interval.ms} once 10,000 records came
 *   in: 100 ms under exactly-once, so about every 10,000-50,000 records at these speeds).</li>
 * <li><b>ranges</b>: a processor loop on the store as {@code Stores.keyValueStoreBuilder} wraps it
 *   (metered; caching and logging off, so the store itself is measured): {@code --preload} keys,
 *   then {@code --ops} times a put of a random key followed by a range scan of the
 *   {@code --width} keys from it, with a commit every 10,000 operations (a 30 s ALOS commit
 *   interval at ~300 records/s).</li>
 * </ul>
 * Every scan's length and a sample of restored keys are checked. {@code --stores remixdb} (or
 * {@code rocksdb}) runs one store alone: {@code run-bench.sh cold-restore} uses that to time each
 * store's restore in a JVM of its own whose JIT is cold, as a restarted application's first restore
 * is. The summary gives the best round and the first.
 */
public final class KafkaStoreBench {
    private static final TopicPartition CHANGELOG = new TopicPartition("bench-store-changelog", 0);
    private static final int KEY = 16;
    private static final int VALUE = 100;

    private final Map<String, String> args;
    private final Path dir;

    private KafkaStoreBench(Map<String, String> args) throws IOException {
        this.args = args;
        // --dir need not exist yet: made like mkdir -p.
        Path parent = Files.createDirectories(Path.of(args.getOrDefault("dir", System.getProperty("java.io.tmpdir"))));
        this.dir = Files.createTempDirectory(parent, "kafka-bench-");
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        new KafkaStoreBench(args).run();
    }

    private int intArg(String name, int def) {
        return Integer.parseInt(args.getOrDefault(name, Integer.toString(def)).replace("_", ""));
    }

    private void run() throws Exception {
        int records = intArg("records", 1_000_000);
        int batch = intArg("batch", 1000);
        int rounds = intArg("rounds", 2);
        int preload = intArg("preload", 100_000);
        int ops = intArg("ops", 200_000);
        int width = intArg("width", 50);
        int checkpointRecords = intArg("checkpoint-records", 0);
        List<String> stores = List.of(args.getOrDefault("stores", "remixdb,rocksdb").split(","));
        for (String store : stores) {
            if (!store.equals("remixdb") && !store.equals("rocksdb")) {
                throw new IllegalArgumentException("--stores takes remixdb, rocksdb or both (comma-separated): " + store);
            }
        }
        System.out.printf(Locale.ROOT, "KafkaStoreBench %s, Java %s, %d CPUs, max heap %d MiB, load average %s%n",
                Instant.now(), Runtime.version(), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20, Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.printf(Locale.ROOT, "args: records=%d batch=%d checkpoint-records=%d rounds=%d preload=%d ops=%d width=%d stores=%s dir=%s%n%n",
                records, batch, checkpointRecords, rounds, preload, ops, width, String.join(",", stores), dir);

        List<List<ConsumerRecord<byte[], byte[]>>> changelog = changelog(records, batch);
        Map<String, List<Double>> restore = new LinkedHashMap<>();
        Map<String, List<Double>> durable = new LinkedHashMap<>();
        Map<String, List<Double>> ranges = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (String store : stores) {
                double[] t = restore(store, round, changelog, records, checkpointRecords);
                restore.computeIfAbsent(store, k -> new ArrayList<>()).add(t[0]);
                durable.computeIfAbsent(store, k -> new ArrayList<>()).add(t[1]);
            }
        }
        changelog = null;
        System.gc();
        for (int round = 1; round <= rounds; round++) {
            for (String store : stores) {
                ranges.computeIfAbsent(store, k -> new ArrayList<>()).add(ranges(store, round, preload, ops, width));
            }
        }
        System.out.printf(Locale.ROOT, "%nsummary (best of %d rounds; the first round runs in a JVM whose JIT is cold"
                + " for the first store of --stores)%n", rounds);
        System.out.printf(Locale.ROOT, "| figure | RemixDB | RocksDB | RemixDB/RocksDB |%n|---|---|---|---|%n");
        row("restore " + String.format(Locale.ROOT, "%,d", records) + " records, s (lower is better)",
                restore, xs -> best(xs, false), "%.2f", true);
        row("restore, first round, s", restore, List::getFirst, "%.2f", true);
        row("restore + close (all on disk), s", durable, xs -> best(xs, false), "%.2f", true);
        row("put + range(" + width + ") ops/s", ranges, xs -> best(xs, true), "%,.0f", false);
        System.out.println("all rounds: restore s " + restore + ", restore + close s " + durable + ", ranges ops/s " + ranges);
        deleteTree(dir);
    }

    /** One summary row: each store's figure, and their ratio when both ran. */
    private static void row(String figure, Map<String, List<Double>> byStore,
                            java.util.function.ToDoubleFunction<List<Double>> pick, String format, boolean time) {
        List<Double> remix = byStore.get("remixdb");
        List<Double> rocks = byStore.get("rocksdb");
        double r = remix == null ? Double.NaN : pick.applyAsDouble(remix);
        double k = rocks == null ? Double.NaN : pick.applyAsDouble(rocks);
        String ratio = remix == null || rocks == null ? "-"
                : time ? String.format(Locale.ROOT, "%.2fx time (%.2fx speed)", r / k, k / r)
                : String.format(Locale.ROOT, "%.2fx", r / k);
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s |%n", figure,
                remix == null ? "-" : String.format(Locale.ROOT, format, r),
                rocks == null ? "-" : String.format(Locale.ROOT, format, k), ratio);
    }

    private static double best(List<Double> xs, boolean highest) {
        return highest ? xs.stream().mapToDouble(d -> d).max().orElseThrow() : xs.stream().mapToDouble(d -> d).min().orElseThrow();
    }

    private static KeyValueBytesStoreSupplier supplier(String store, String name) {
        return store.equals("remixdb") ? RemixStores.persistentKeyValueStore(name) : Stores.persistentKeyValueStore(name);
    }

    // ------------------------------------------------------------------ restore

    private static List<List<ConsumerRecord<byte[], byte[]>>> changelog(int records, int batch) {
        SplittableRandom random = new SplittableRandom(42);
        List<List<ConsumerRecord<byte[], byte[]>>> batches = new ArrayList<>();
        List<ConsumerRecord<byte[], byte[]>> current = new ArrayList<>(batch);
        for (int i = 0; i < records; i++) {
            byte[] key = ByteBuffer.allocate(KEY).putLong(random.nextLong()).putLong(random.nextLong()).array();
            byte[] value = new byte[VALUE];
            random.nextBytes(value);
            current.add(new ConsumerRecord<>(CHANGELOG.topic(), 0, i, key, value));
            if (current.size() == batch) {
                batches.add(current);
                current = new ArrayList<>(batch);
            }
        }
        if (!current.isEmpty()) {
            batches.add(current);
        }
        return batches;
    }

    /** Returns the seconds of restore + commits, and of restore + commits + close. */
    private double[] restore(String kind, int round, List<List<ConsumerRecord<byte[], byte[]>>> changelog, int records,
            int checkpointRecords) throws IOException {
        Path state = dir.resolve(kind + "-restore-" + round);
        StoreFixture context = new StoreFixture(state.toFile(), remixProps());
        KeyValueStore<Bytes, byte[]> store = supplier(kind, "restore").get();
        store.init(context, store);
        var callback = (RecordBatchingStateRestoreCallback) context.callbacks.get("restore");
        long start = System.nanoTime();
        long sinceCheckpoint = 0;
        int checkpoints = 0;
        for (List<ConsumerRecord<byte[], byte[]>> batch : changelog) {
            callback.restoreBatch(batch);
            sinceCheckpoint += batch.size();
            if (checkpointRecords > 0 && sinceCheckpoint >= checkpointRecords) {
                store.commit(Map.of(CHANGELOG, batch.get(batch.size() - 1).offset()));
                sinceCheckpoint = 0;
                checkpoints++;
            }
        }
        long restored = System.nanoTime();
        store.commit(Map.of(CHANGELOG, (long) records - 1));
        long committed = System.nanoTime();
        // Spot check: every 997th record reads back.
        int checked = 0;
        for (List<ConsumerRecord<byte[], byte[]>> batch : changelog) {
            for (int i = 0; i < batch.size(); i += 997) {
                ConsumerRecord<byte[], byte[]> r = batch.get(i);
                if (!Arrays.equals(r.value(), store.get(Bytes.wrap(r.key())))) {
                    throw new AssertionError(kind + ": restored value differs at offset " + r.offset());
                }
                checked++;
            }
        }
        String gauges = kind.equals("remixdb") ? "; " + remixGauges(context) : "";
        long closeStart = System.nanoTime();
        store.close();
        long closed = System.nanoTime();
        double seconds = (committed - start) / 1e9;
        System.out.printf(Locale.ROOT,
                "restore  %-8s round %d: %.2f s (batches and %d checkpoints %.2f s + commit %.3f s) = %,.0f records/s;"
                        + " close %.2f s; %d spot checks ok; disk %s%s%n",
                kind, round, seconds, checkpoints, (restored - start) / 1e9, (committed - restored) / 1e9, records / seconds,
                (closed - closeStart) / 1e9, checked, mib(size(state)), gauges);
        deleteTree(state);
        return new double[] {seconds, seconds + (closed - closeStart) / 1e9};
    }

    /** The store's own gauges (see StoreMetrics): write stalls, compactions, write amplification. */
    private static String remixGauges(StoreFixture context) {
        StringBuilder out = new StringBuilder();
        context.metrics().metrics().forEach((name, metric) -> {
            if (name.tags().containsKey("remixdb-state-id") && List.of("write-stall-time-total",
                    "write-slowdown-time-total", "compactions-total", "write-amplification", "off-heap-bytes")
                    .contains(name.name())) {
                out.append(name.name()).append(' ').append(String.format(Locale.ROOT, "%.2f",
                        ((Number) metric.metricValue()).doubleValue())).append(", ");
            }
        });
        return out.length() == 0 ? "" : out.substring(0, out.length() - 2);
    }

    /** Configs of the RemixDB stores: {@code --memtable-mib} overrides the module's default memtable. */
    private Properties remixProps() {
        Properties props = new Properties();
        if (args.containsKey("memtable-mib")) {
            System.setProperty("kafka.bench.memtable.mib", args.get("memtable-mib"));
            props.put(dev.remixdb.kafka.RemixConfigSetter.CONFIG, MemtableSetter.class);
        }
        return props;
    }

    /** Sets the memtable from a system property (the setter is made by class, so it has no state). */
    public static final class MemtableSetter implements dev.remixdb.kafka.RemixConfigSetter {
        @Override
        public void setConfig(String storeName, dev.remixdb.Options.Builder options, Map<String, Object> configs) {
            options.memtableBytes(Long.parseLong(System.getProperty("kafka.bench.memtable.mib")) << 20);
        }
    }

    // ------------------------------------------------------------------ ranges

    private static Bytes key(long i) {
        return Bytes.wrap(ByteBuffer.allocate(KEY).putLong(0x6b65792dL).putLong(i).array());
    }

    /** Returns put + range operations per second. */
    private double ranges(String kind, int round, int preload, int ops, int width) throws IOException {
        Path state = dir.resolve(kind + "-ranges-" + round);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.putAll(remixProps());
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props, new TaskId(0, 0), state.toFile());
        KeyValueStore<Bytes, byte[]> store = Stores.keyValueStoreBuilder(supplier(kind, "ranges"), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        SplittableRandom random = new SplittableRandom(7);
        byte[] value = new byte[VALUE];

        long start = System.nanoTime();
        long[] order = random.longs(preload).toArray();
        Integer[] idx = new Integer[preload];
        for (int i = 0; i < preload; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, Comparator.comparingLong(i -> order[i]));  // a shuffled load order
        List<KeyValue<Bytes, byte[]>> chunk = new ArrayList<>();
        for (int i = 0; i < preload; i++) {
            random.nextBytes(value);
            chunk.add(KeyValue.pair(key(idx[i]), value.clone()));
            if (chunk.size() == 1000) {
                store.putAll(chunk);
                chunk.clear();
            }
        }
        store.putAll(chunk);
        store.commit(Map.of());
        long loaded = System.nanoTime();

        long scanned = 0;
        for (int op = 0; op < ops; op++) {
            long k = random.nextLong(preload - width);
            context.setRecordMetadata("input", 0, op);
            random.nextBytes(value);
            store.put(key(k), value);
            try (KeyValueIterator<Bytes, byte[]> it = store.range(key(k), key(k + width - 1))) {
                while (it.hasNext()) {
                    it.next();
                    scanned++;
                }
            }
            if (op % 10_000 == 9_999) {
                store.commit(Map.of());
            }
        }
        store.commit(Map.of());
        long done = System.nanoTime();
        if (scanned != (long) ops * width) {
            throw new AssertionError(kind + ": scanned " + scanned + " entries, expected " + (long) ops * width);
        }
        store.close();
        double seconds = (done - loaded) / 1e9;
        System.out.printf(Locale.ROOT,
                "ranges   %-8s round %d: preload %,d keys %.2f s; %,d x (put + range of %d) %.2f s = %,.0f ops/s"
                        + " (%,.0f entries scanned/s); disk %s%n",
                kind, round, preload, (loaded - start) / 1e9, ops, width, seconds, ops / seconds, scanned / seconds,
                mib(size(state)));
        deleteTree(state);
        return ops / seconds;
    }

    // ------------------------------------------------------------------ files

    private static long size(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
