package dev.remixdb.kafka.cluster;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.BufferedReader;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Restore through a real broker: a changelog of {@code --records} records (16-byte keys, 100-byte
 * values, all keys distinct) on a one-node KRaft cluster in this JVM, restored by a fresh Kafka
 * Streams instance in a child JVM ({@link RestoreChild}) into a RemixDB store and into Kafka's
 * RocksDB store, alternately, {@code --rounds} times each; each restore starts from an empty state
 * directory. Reports the time until the instance runs and the bytes the child process wrote
 * ({@code /proc/<pid>/io}), best of the rounds, as RemixDB/RocksDB ratios.
 *
 * <p>Args: {@code --records 5000000 --partitions 4 --rounds 2 --dir DIR} (DIR holds the broker's
 * logs and the state directories: put it on a real disk, not tmpfs, for the byte counts to mean
 * anything); {@code --stores remixdb,rocksdb}; {@code --child-jvm-opts "..."} adds flags to the
 * children's JVMs (for example a JFR recording).
 */
public final class BrokerRestoreBench {
    private static final int VALUE = 100;

    private BrokerRestoreBench() {}

    /** Key {@code i}: a mixed 8-byte prefix (so keys arrive in random order) and {@code i}. */
    static byte[] key(long i) {
        long h = i * 0x9E3779B97F4A7C15L;
        h ^= h >>> 29;
        return ByteBuffer.allocate(16).putLong(h).putLong(i).array();
    }

    static byte[] value(long i) {
        byte[] v = new byte[VALUE];
        for (int j = 0; j < VALUE; j++) {
            v[j] = (byte) (i * 31 + j * 7);
        }
        return v;
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new LinkedHashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.put(argv[i].replaceFirst("^--", ""), argv[i + 1]);
        }
        long records = Long.parseLong(args.getOrDefault("records", "5000000").replace("_", ""));
        int partitions = Integer.parseInt(args.getOrDefault("partitions", "4"));
        int rounds = Integer.parseInt(args.getOrDefault("rounds", "2"));
        Path parent = Files.createDirectories(Path.of(args.getOrDefault("dir", "/var/tmp")));
        Path dir = Files.createTempDirectory(parent, "broker-restore-");
        System.out.printf(Locale.ROOT, "BrokerRestoreBench %s, Java %s, %d CPUs, load average %s%n",
                Instant.now(), Runtime.version(), Runtime.getRuntime().availableProcessors(),
                Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.printf(Locale.ROOT, "args: records=%d partitions=%d rounds=%d dir=%s%n%n", records, partitions,
                rounds, dir);
        try (KafkaCluster cluster = KafkaCluster.start(dir.resolve("kafka"))) {
            Map<String, List<String>> results = new LinkedHashMap<>();
            for (String store : args.getOrDefault("stores", "remixdb,rocksdb").split(",")) {
                results.put(store, new ArrayList<>());
            }
            int app = 0;
            for (int round = 1; round <= rounds; round++) {
                for (String store : results.keySet()) {
                    // Each run is a new application with its own changelog, written here first.
                    String appId = "restore-" + (++app);
                    String input = appId + "-input";
                    String changelog = appId + "-" + RestoreChild.STORE + "-changelog";
                    cluster.createTopics(partitions, input);
                    createChangelog(cluster, changelog, partitions);
                    long t0 = System.nanoTime();
                    fill(cluster, changelog, records);
                    System.out.printf(Locale.ROOT, "round %d %s: changelog %s written in %.1f s%n", round, store,
                            changelog, (System.nanoTime() - t0) / 1e9);
                    String line = runChild(store, cluster.bootstrapServers(), dir.resolve(appId), appId, input,
                            partitions, records, args.getOrDefault("child-jvm-opts", ""));
                    System.out.println("round " + round + " " + line);
                    results.get(store).add(line);
                }
            }
            summary(records, results);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /** Created as Kafka Streams would (compacted), so the instance finds and uses it. */
    private static void createChangelog(KafkaCluster cluster, String name, int partitions) throws Exception {
        NewTopic t = new NewTopic(name, partitions, (short) 1).configs(Map.of("cleanup.policy", "compact"));
        cluster.createTopic(t);
    }

    private static void fill(KafkaCluster cluster, String topic, long records) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(1 << 20));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(256L << 20));
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            java.util.concurrent.atomic.AtomicReference<Exception> failed = new java.util.concurrent.atomic.AtomicReference<>();
            for (long i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, key(i), value(i)), (meta, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
            if (failed.get() != null) {
                throw new IllegalStateException("the broker refused changelog records", failed.get());
            }
        }
    }

    private static String runChild(String store, String bootstrap, Path stateDir, String appId, String input,
                                   int partitions, long records, String jvmOpts) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED", "-Xmx2g", "-XX:+UseParallelGC"));
        if (!jvmOpts.isBlank()) {
            cmd.addAll(List.of(jvmOpts.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), RestoreChild.class.getName(),
                store, bootstrap, stateDir.toString(), appId, input, Integer.toString(partitions),
                Long.toString(records)));
        Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String result = null;
        try (BufferedReader out = child.inputReader()) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("result ")) {
                    result = line;
                }
            }
        }
        int exit = child.waitFor();
        if (exit != 0 || result == null) {
            throw new IllegalStateException("restore child for " + store + " failed with exit " + exit
                    + " (rerun it by hand to see its errors)");
        }
        return result;
    }

    private static void summary(long records, Map<String, List<String>> results) {
        Map<String, Map<String, Double>> best = new LinkedHashMap<>();
        for (var e : results.entrySet()) {
            Map<String, Double> b = new LinkedHashMap<>();
            for (String line : e.getValue()) {
                for (String field : line.substring("result ".length()).split(" ")) {
                    String[] kv = field.split("=");
                    if (kv[0].equals("store")) {
                        continue;
                    }
                    double v = Double.parseDouble(kv[1]);
                    b.merge(kv[0], v, Math::min);
                }
            }
            best.put(e.getKey(), b);
        }
        Map<String, Double> r = best.get("remixdb");
        Map<String, Double> k = best.get("rocksdb");
        if (r == null || k == null) {
            System.out.println("all rounds: " + results);
            return;
        }
        System.out.printf(Locale.ROOT, "%nsummary, %,d records (best of the rounds)%n", records);
        System.out.printf(Locale.ROOT, "| figure | RemixDB | RocksDB | RemixDB/RocksDB |%n|---|---|---|---|%n");
        System.out.printf(Locale.ROOT, "| restore until running, s | %.2f | %.2f | %.2fx time (%.2fx speed) |%n",
                r.get("seconds"), k.get("seconds"), r.get("seconds") / k.get("seconds"), k.get("seconds") / r.get("seconds"));
        System.out.printf(Locale.ROOT, "| CPU of the restoring process, s | %.2f | %.2f | %.2fx |%n",
                r.get("cpuSeconds"), k.get("cpuSeconds"), r.get("cpuSeconds") / k.get("cpuSeconds"));
        System.out.printf(Locale.ROOT, "| writes waiting for compaction (RemixDB gauge), s | %.2f | - | |%n",
                r.get("stallMs") / 1e3);
        row("bytes written by the restoring process, MB", r.get("written"), k.get("written"));
        row("state directory after the restore, MB", r.get("dir"), k.get("dir"));
        System.out.printf(Locale.ROOT, "| close after the restore, s | %.2f | %.2f | %.2fx |%n",
                r.get("closeSeconds"), k.get("closeSeconds"), r.get("closeSeconds") / k.get("closeSeconds"));
        row("bytes written by the process through close, MB", r.get("writtenAfterClose"), k.get("writtenAfterClose"));
        row("state directory after close, MB", r.get("dirAfterClose"), k.get("dirAfterClose"));
        System.out.println("all rounds: " + results);
    }

    private static void row(String name, double remix, double rocks) {
        System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.2fx |%n", name, remix / 1e6, rocks / 1e6, remix / rocks);
    }
}
