package io.flash.executor.channel;

import io.flash.common.access.KafkaLogin;
import io.flash.common.deadletter.SetAside;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.TopicNames;
import io.flash.schema.Assignment;
import io.flash.schema.AssignmentAction;
import io.flash.schema.AttemptEvent;
import io.flash.schema.AttemptState;
import io.flash.schema.LogChunk;
import io.flash.schema.NodeHeartbeat;
import io.flash.schema.UsageSample;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * How nodes speak to their framework: attempt events and heartbeats keyed by node id, logs and
 * usage keyed by attempt id, and records that are not assignments set aside on the dead-letter
 * topic. One channel serves one real node or a whole simulated fleet, so both report alike.
 */
public final class NodeChannel implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(NodeChannel.class);

    private final String eventsTopic;
    private final String nodesTopic;
    private final KafkaProducer<String, byte[]> producer;
    private final SetAside<Assignment> assignments;
    private final Serializer<AttemptEvent> events;
    private final Serializer<NodeHeartbeat> heartbeats;
    private final Serializer<UsageSample> usage;
    private final Serializer<LogChunk> logs;

    /** @param lingerMs 0 for one node (each report waits for its write); a few ms batch a fleet's reports */
    public NodeChannel(FlashTopics topics, String frameworkId, String bootstrapServers, int lingerMs) {
        this.eventsTopic = TopicNames.frameworkNodeEvents(frameworkId);
        this.nodesTopic = TopicNames.frameworkNodes(frameworkId);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaLogin.fromEnvironment().addTo(p);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        this.assignments = new SetAside<>("executor", "assignment", topics.frameworkAssignments(frameworkId).valueSerde().deserializer(),
                producer, LOG::warn);
        this.events = topics.frameworkNodeEvents(frameworkId).valueSerde().serializer();
        this.heartbeats = topics.frameworkNodes(frameworkId).valueSerde().serializer();
        this.usage = topics.tasksUsage.valueSerde().serializer();
        this.logs = topics.tasksLogs.valueSerde().serializer();
    }

    /** A consumer of assignment partitions (assigned, not subscribed; positions committed under {@code groupId}). */
    public static KafkaConsumer<String, byte[]> assignmentConsumer(String bootstrapServers,
                                                                                                   String groupId, int fetchMaxWaitMs) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaLogin.fromEnvironment().addTo(c);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetchMaxWaitMs);
        return new KafkaConsumer<>(c, new StringDeserializer(),
                new ByteArrayDeserializer());
    }

    /**
     * The partitions of the framework's assignments topic, waiting for it to exist: a node may start
     * before its framework has created the topic.
     */
    public static List<TopicPartition> assignmentPartitions(
            KafkaConsumer<String, byte[]> consumer, String frameworkId, Duration timeout)
            throws InterruptedException {
        String topic = TopicNames.frameworkAssignments(frameworkId);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            var infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
            if (infos != null && !infos.isEmpty()) {
                return infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topic " + topic + " does not exist after " + timeout.toSeconds()
                        + " s: start framework-ecs with FLASH_FRAMEWORK_ID=" + frameworkId + " (it creates the topic), or check the framework id");
            }
            Thread.sleep(500);
        }
    }

    /** Written in order per node: a node's events share its key, and the producer is idempotent. */
    public Future<RecordMetadata> report(AttemptEvent event) {
        return producer.send(new ProducerRecord<>(eventsTopic, event.getNodeId(),
                events.serialize(eventsTopic, new RecordHeaders(), event)));
    }

    public void heartbeat(NodeHeartbeat heartbeat, Callback acked) {
        producer.send(new ProducerRecord<>(nodesTopic, heartbeat.getNodeId(),
                heartbeats.serialize(nodesTopic, new RecordHeaders(), heartbeat)), acked);
    }

    public Future<RecordMetadata> log(LogChunk chunk) {
        return producer.send(new ProducerRecord<>(TopicNames.TASKS_LOGS, chunk.getAttemptId(),
                logs.serialize(TopicNames.TASKS_LOGS, new RecordHeaders(), chunk)));
    }

    public void usage(UsageSample sample) {
        producer.send(new ProducerRecord<>(TopicNames.TASKS_USAGE, sample.getAttemptId(),
                usage.serialize(TopicNames.TASKS_USAGE, new RecordHeaders(), sample)));
    }

    /** The assignment, or null after dead-lettering a record that is not one. */
    public Assignment decode(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            assignments.setAside(record, "empty assignment");
            return null;
        }
        Assignment assignment = assignments.decode(record);
        if (assignment != null && assignment.getAction() == AssignmentAction.RUN && assignment.getTask() == null) {
            assignments.setAside(record, "RUN assignment without a task");
            return null;
        }
        return assignment;
    }

    public void bindMetrics(MeterRegistry registry) {
        new KafkaClientMetrics(producer).bindTo(registry);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
