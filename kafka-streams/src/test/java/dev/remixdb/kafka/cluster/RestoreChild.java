package dev.remixdb.kafka.cluster;

import dev.remixdb.kafka.RemixStores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * One fresh application instance that restores a store from its changelog on a real broker, in a
 * process of its own so that {@code /proc/self/io} counts its writes alone; run by
 * {@link BrokerRestoreBench}. Args: store ({@code remixdb} or {@code rocksdb}), bootstrap servers,
 * state directory, application id, input topic, changelog partitions, records in the changelog.
 *
 * <p>Prints one {@code result} line: seconds from {@code start()} until every changelog partition
 * is restored and the instance runs, the CPU seconds the process used meanwhile (all threads, the
 * stores' native ones included), the time writes waited for compaction (RemixDB's gauge), the bytes
 * the process wrote, the store directory's size, and the same after {@code close()} (which puts
 * everything still in memory on disk).
 */
public final class RestoreChild {
    static final String STORE = "restored";

    private RestoreChild() {}

    public static void main(String[] args) throws Exception {
        String store = args[0];
        Path stateDir = Path.of(args[2]);
        int partitions = Integer.parseInt(args[5]);
        long records = Long.parseLong(args[6]);
        KeyValueBytesStoreSupplier supplier = store.equals("remixdb")
                ? RemixStores.persistentTimestampedKeyValueStore(STORE)
                : Stores.persistentTimestampedKeyValueStore(STORE);
        StreamsBuilder b = new StreamsBuilder();
        b.stream(args[4], Consumed.with(Serdes.Bytes(), Serdes.ByteArray()))
                .toTable(Materialized.<Bytes, byte[]>as(supplier)
                        .withKeySerde(Serdes.Bytes()).withValueSerde(Serdes.ByteArray()));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[3]);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);

        Set<TopicPartition> done = ConcurrentHashMap.newKeySet();
        AtomicLong restored = new AtomicLong();
        KafkaStreams streams = new KafkaStreams(b.build(), p);
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String name, long start, long end) {}

            @Override
            public void onBatchRestored(TopicPartition tp, String name, long batchEnd, long count) {
                restored.addAndGet(count);
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String name, long total) {
                done.add(tp);
            }
        });
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long written0 = writtenBytes();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        streams.start();
        while (done.size() < partitions || streams.state() != KafkaStreams.State.RUNNING) {
            if (streams.state() == KafkaStreams.State.ERROR || streams.state() == KafkaStreams.State.NOT_RUNNING) {
                throw new IllegalStateException("instance stopped: " + streams.state());
            }
            Thread.sleep(20);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cpuSeconds = (os.getProcessCpuTime() - cpu0) / 1e9;
        long written = writtenBytes() - written0;
        // RemixDB's store gauge: time writes waited for compaction to make room (none for RocksDB's).
        double stallMs = streams.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("write-stall-time-total"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
        long dirBytes = size(stateDir);
        if (restored.get() != records) {
            throw new IllegalStateException("restored " + restored + " records of " + records);
        }
        // A sample of keys must read back as written.
        ReadOnlyKeyValueStore<Bytes, byte[]> view = streams.store(StoreQueryParameters.fromNameAndType(
                STORE, QueryableStoreTypes.<Bytes, byte[]>keyValueStore()));
        for (long i = 0; i < records; i += Math.max(1, records / 1000)) {
            byte[] v = view.get(Bytes.wrap(BrokerRestoreBench.key(i)));
            if (!Arrays.equals(v, BrokerRestoreBench.value(i))) {
                throw new IllegalStateException("record " + i + " reads back wrong");
            }
        }
        long t1 = System.nanoTime();
        streams.close();
        double closeSeconds = (System.nanoTime() - t1) / 1e9;
        System.out.printf(Locale.ROOT, "result store=%s seconds=%.3f cpuSeconds=%.3f stallMs=%.0f written=%d dir=%d"
                        + " closeSeconds=%.3f writtenAfterClose=%d dirAfterClose=%d%n",
                store, seconds, cpuSeconds, stallMs, written, dirBytes, closeSeconds, writtenBytes() - written0,
                size(stateDir));
    }

    /** Bytes this process caused to be written to storage ({@code write_bytes} of /proc/self/io). */
    static long writtenBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
            if (line.startsWith("write_bytes:")) {
                return Long.parseLong(line.substring("write_bytes:".length()).trim());
            }
        }
        throw new IOException("no write_bytes in /proc/self/io");
    }

    static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0;  // a file removed by compaction meanwhile
                }
            }).sum();
        }
    }
}
