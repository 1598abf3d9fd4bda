package dev.remixdb.kafka.cluster;

import dev.remixdb.Options;
import dev.remixdb.kafka.RemixConfigSetter;
import dev.remixdb.kafka.RemixDslStoreSuppliers;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The application the cluster tests run on several instances: what a team would write first.
 * <ul>
 * <li>a word count: {@code lines} split into words, repartitioned by word, counted in the KTable
 *   store {@value #WORD_COUNTS} and written to {@code word-counts-out};</li>
 * <li>a windowed count of the same words (10 s windows, a day of grace so that no record is late
 *   and the result does not depend on timing), to {@code windowed-counts-out};</li>
 * <li>a stream-table join: {@code clicks} (key: user) joined with the table {@value #USERS} of
 *   {@code users} (user to region), re-keyed by region and counted in {@value #REGION_CLICKS}, to
 *   {@code region-clicks-out}.</li>
 * </ul>
 * The input is generated from a seed, and {@link Input} also computes what the outputs must end at,
 * so a run can be checked against it as well as against a reference run on Kafka's in-memory stores.
 */
final class WordCountApp {
    static final String LINES = "lines";
    static final String USERS_TOPIC = "users";
    static final String CLICKS = "clicks";
    static final String WORD_COUNTS_OUT = "word-counts-out";
    static final String WINDOWED_OUT = "windowed-counts-out";
    static final String REGION_OUT = "region-clicks-out";
    static final String WORD_COUNTS = "word-counts";
    static final String WINDOWED_COUNTS = "windowed-counts";
    static final String USERS = "users-table";
    static final String REGION_CLICKS = "region-clicks";
    static final int PARTITIONS = 6;
    static final Duration WINDOW = Duration.ofSeconds(10);

    private WordCountApp() {}

    /**
     * The topology on the input topics named with {@code in} before them; output topics get {@code in}
     * before and {@code outSuffix} after, so several applications and tests can share a cluster.
     */
    static Topology topology(String in, String outSuffix) {
        StreamsBuilder b = new StreamsBuilder();
        KGroupedStream<String, String> byWord = b.stream(in + LINES, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.split(" ")))
                .selectKey((line, word) -> word)
                .groupByKey(Grouped.with("by-word", Serdes.String(), Serdes.String()));
        byWord.count(Materialized.as(WORD_COUNTS))
                .toStream()
                .to(in + WORD_COUNTS_OUT + outSuffix, Produced.with(Serdes.String(), Serdes.Long()));
        byWord.windowedBy(TimeWindows.ofSizeAndGrace(WINDOW, Duration.ofDays(1)))
                .count(Materialized.as(WINDOWED_COUNTS))
                .toStream((w, count) -> w.key() + "@" + w.window().start())
                .to(in + WINDOWED_OUT + outSuffix, Produced.with(Serdes.String(), Serdes.Long()));
        KTable<String, String> users = b.table(in + USERS_TOPIC, Consumed.with(Serdes.String(), Serdes.String()),
                Materialized.as(USERS));
        b.stream(in + CLICKS, Consumed.with(Serdes.String(), Serdes.String()))
                .join(users, (page, region) -> region)
                .groupBy((user, region) -> region, Grouped.with("by-region", Serdes.String(), Serdes.String()))
                .count(Materialized.as(REGION_CLICKS))
                .toStream()
                .to(in + REGION_OUT + outSuffix, Produced.with(Serdes.String(), Serdes.Long()));
        return b.build();
    }

    /**
     * One instance's configuration: exactly-once v2, RemixDB as every DSL key-value store (or
     * Kafka's in-memory stores for the reference run), {@code host} as its {@code application.server}.
     */
    static Properties config(String appId, String bootstrap, Path stateDir, String host, int standbys, boolean remix) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, host);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbys);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, remix
                ? RemixDslStoreSuppliers.class : BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class);
        p.put(RemixConfigSetter.CONFIG, SmallStores.class);
        // The join must see the users table before the clicks: wait for a partition with data fetched late.
        p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, 2000L);
        // A killed instance is noticed after 6 s (the broker's minimum), not the default 45 s.
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
        return p;
    }

    /** Small stores: a test JVM holds dozens (every task's stores and their standbys). */
    public static final class SmallStores implements RemixConfigSetter {
        @Override
        public void setConfig(String storeName, Options.Builder options, Map<String, Object> configs) {
            options.memtableBytes(1L << 20).blockCacheBytes(4L << 20);
        }
    }

    /**
     * Deterministic input, and what the outputs must hold after any prefix of it: line {@code i}
     * and click {@code i} go together, so "the first n" means both.
     */
    static final class Input {
        /** Time between consecutive lines: a 10 s window holds about 270 of them. */
        static final long STEP_MILLIS = 37;
        /**
         * The first record's time, on a window boundary, chosen so that the last record is an hour
         * old. Not a fixed date: the brokers' 7-day retention would delete old-stamped records (and
         * window changelogs) at once; and not in the future, which brokers refuse beyond an hour.
         */
        final long start;
        final List<ProducerRecord<byte[], byte[]>> users = new ArrayList<>();
        final List<ProducerRecord<byte[], byte[]>> lines = new ArrayList<>();
        final List<ProducerRecord<byte[], byte[]>> clicks = new ArrayList<>();
        private final List<String[]> words = new ArrayList<>();
        private final List<String> clickRegion = new ArrayList<>();
        private final String[] region;

        /**
         * For the topics named with {@code in} before them: {@code lines} lines of 1-8 words from a
         * skewed vocabulary of {@code vocabulary}, as many clicks, and the users they come from.
         */
        Input(String in, long seed, int lines, int vocabulary, int userCount, int regions) {
            SplittableRandom r = new SplittableRandom(seed);
            long first = System.currentTimeMillis() - 3_600_000L - lines * STEP_MILLIS;
            start = first - first % WINDOW.toMillis();
            region = new String[userCount];
            for (int u = 0; u < userCount; u++) {
                region[u] = "region-" + (u % regions);
                users.add(record(in + USERS_TOPIC, start - 1000, "user-" + u, region[u]));
            }
            for (int i = 0; i < lines; i++) {
                String[] line = new String[1 + r.nextInt(8)];
                for (int w = 0; w < line.length; w++) {
                    // Squaring skews the choice toward small numbers: a few hot words, a long tail.
                    double x = r.nextDouble();
                    line[w] = "w" + (int) (x * x * vocabulary);
                }
                words.add(line);
                this.lines.add(record(in + LINES, timestamp(i), "line-" + i, String.join(" ", line)));
                int u = r.nextInt(userCount);
                clicks.add(record(in + CLICKS, timestamp(i), "user-" + u, "page-" + r.nextInt(100)));
                clickRegion.add(region[u]);
            }
        }

        long timestamp(int i) {
            return start + i * STEP_MILLIS;
        }

        String regionOf(int user) {
            return region[user];
        }

        /** Lines and clicks {@code from} (inclusive) to {@code to} (exclusive), to produce. */
        List<ProducerRecord<byte[], byte[]>> part(int from, int to) {
            List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(lines.subList(from, to));
            out.addAll(clicks.subList(from, to));
            return out;
        }

        /** Word counts after the first {@code n} lines. */
        Map<String, Long> wordCounts(int n) {
            Map<String, Long> m = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                for (String w : words.get(i)) {
                    m.merge(w, 1L, Long::sum);
                }
            }
            return m;
        }

        /** Windowed counts ("word@windowStart") after the first {@code n} lines. */
        Map<String, Long> windowedCounts(int n) {
            Map<String, Long> m = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                long ts = timestamp(i);
                for (String w : words.get(i)) {
                    m.merge(w + "@" + (ts - ts % WINDOW.toMillis()), 1L, Long::sum);
                }
            }
            return m;
        }

        /** Clicks per region after the first {@code n} clicks. */
        Map<String, Long> regionClicks(int n) {
            Map<String, Long> m = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                m.merge(clickRegion.get(i), 1L, Long::sum);
            }
            return m;
        }

        private static ProducerRecord<byte[], byte[]> record(String topic, long ts, String key, String value) {
            return new ProducerRecord<>(topic, null, ts, key.getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The last value of each key of an output topic: the table it describes. */
    static Map<String, Long> table(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<String, Long> t = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            if (r.value() == null) {
                t.remove(key);
            } else {
                t.put(key, Serdes.Long().deserializer().deserialize(r.topic(), r.value()));
            }
        }
        return t;
    }
}
