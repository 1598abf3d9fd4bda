package dev.remixdb.kafka.cluster;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

/**
 * A real Kafka cluster in this JVM: one KRaft node acting as controller and broker, from Kafka's own
 * test kit, with the replication factors a one-broker cluster needs (transactions included, for
 * exactly-once applications). Topics, producing and reading back are here so tests speak Kafka, not
 * test-kit internals.
 */
final class KafkaCluster implements AutoCloseable {
    private final KafkaClusterTestKit kit;
    private final Admin admin;

    private KafkaCluster(KafkaClusterTestKit kit) {
        this.kit = kit;
        this.admin = kit.admin();
    }

    /** Starts a one-node cluster whose logs live under {@code dir}, and waits until it serves. */
    static KafkaCluster start(Path dir) throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .setBaseDirectory(dir)
                .build();
        KafkaClusterTestKit kit = new KafkaClusterTestKit.Builder(nodes)
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("offsets.topic.num.partitions", "3")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("transaction.state.log.num.partitions", "3")
                // Rebalances start at once: a test waits for each one.
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .setConfigProp("auto.create.topics.enable", "false")
                .build();
        try {
            kit.format();
            kit.startup();
            kit.waitForReadyBrokers();
            return new KafkaCluster(kit);
        } catch (Exception e) {
            try {
                kit.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    String bootstrapServers() {
        return kit.bootstrapServers();
    }

    void createTopics(int partitions, String... names) throws ExecutionException, InterruptedException {
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, partitions, (short) 1));
        }
        admin.createTopics(topics).all().get();
    }

    void createTopic(NewTopic topic) throws ExecutionException, InterruptedException {
        admin.createTopics(List.of(topic)).all().get();
    }

    /**
     * Writes {@code records} in order (per partition) and waits until all are acknowledged; throws
     * when the broker refused any.
     */
    void produce(List<ProducerRecord<byte[], byte[]>> records) throws ExecutionException, InterruptedException {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        // One request in flight per broker: the test's input needs no pipelining, and a run once
        // failed in setup with the in-process broker refusing a batch as out of sequence.
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (KafkaProducer<byte[], byte[]> producer =
                     new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
            for (ProducerRecord<byte[], byte[]> r : records) {
                sent.add(producer.send(r));
            }
            producer.flush();
            for (var f : sent) {
                f.get();
            }
        }
    }

    /**
     * Every committed record of {@code topic} from its start to its current end, in offset order per
     * partition (read_committed: an exactly-once application's aborted output is not there).
     */
    List<ConsumerRecord<byte[], byte[]>> readAll(String topic) throws ExecutionException, InterruptedException {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                     new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            // The last stable offset: what read_committed can reach now.
            Map<TopicPartition, Long> end = consumer.endOffsets(parts);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end " + end);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    /** The next offset of each partition of {@code topic} (its size, counting transaction markers). */
    Map<TopicPartition, Long> endOffsets(String topic) throws ExecutionException, InterruptedException {
        Set<TopicPartition> parts = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic)
                .partitions().stream().map(i -> new TopicPartition(topic, i.partition()))
                .collect(Collectors.toSet());
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        parts.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(latest).all().get().forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** Every topic's name. */
    Set<String> topics() throws ExecutionException, InterruptedException {
        return admin.listTopics().names().get();
    }

    @Override
    public void close() throws Exception {
        try {
            admin.close(Duration.ofSeconds(10));
        } finally {
            kit.close();
        }
    }
}
