package io.flash.ingest.history;

import io.flash.common.access.KafkaLogin;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.schema.JobAccepted;
import io.flash.schema.LogChunk;
import io.flash.schema.TaskEvent;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Predicate;

/**
 * Reads one job's records back from the week-long topics, on request: its acceptance (the DAG),
 * its task events (every attempt) and its log chunks. From the job's acceptance on, up to each
 * topic's end at the time of asking, bounded in time. A fresh consumer per request, assigned, no
 * group: nothing is committed.
 */
@ApplicationScoped
public class JobRecords {

    private static final Logger LOG = Logger.getLogger(JobRecords.class);
    private static final Duration READ_FOR_AT_MOST = Duration.ofSeconds(15);
    /** Records are read from a little before the job's acceptance: producers' clocks differ. */
    private static final long CLOCK_SLACK_MS = 5_000;

    private final String bootstrap;
    private final FlashTopics topics;

    public JobRecords(@ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap,
                      @ConfigProperty(name = "flash.registry.url") String registryUrl) {
        this.bootstrap = bootstrap;
        this.topics = new FlashTopics(new RegistryValueSerdes(registryUrl));
    }

    /** Every log chunk of the job: the topic is keyed by attempt id (which begins with the job id), so every partition. */
    public List<LogChunk> chunksOf(String jobId, long acceptedAt) {
        return read(topics.tasksLogs, key -> key.startsWith(jobId + "."), null, acceptedAt);
    }

    /** Every task event of the job, in the order they were written (the topic is keyed by job id). */
    public List<TaskEvent> eventsOf(String jobId, long acceptedAt) {
        return read(topics.tasksEvents, jobId::equals, jobId, acceptedAt);
    }

    /** The job as ingest accepted it (its tasks and their dependencies), while the topic keeps it. */
    public Optional<JobAccepted> acceptedOf(String jobId, long acceptedAt) {
        List<JobAccepted> found = read(topics.jobsAccepted, jobId::equals, jobId, acceptedAt);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }

    /**
     * @param partitionKey when the topic is keyed so that all wanted records share this key, only
     *                     its partition (Kafka's default partitioner) is read; null: all of them
     */
    private <V> List<V> read(Topic<String, V> topic, Predicate<String> wanted, String partitionKey, long since) {
        Properties props = KafkaLogin.fromEnvironment().addTo(new Properties());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Deserializer<V> values = topic.valueSerde().deserializer();
        List<V> found = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            var infos = consumer.partitionsFor(topic.name(), Duration.ofSeconds(10));
            if (partitionKey != null) {
                parts.add(new TopicPartition(topic.name(),
                        BuiltInPartitioner.partitionForKey(partitionKey.getBytes(StandardCharsets.UTF_8), infos.size())));
            } else {
                infos.forEach(p -> parts.add(new TopicPartition(topic.name(), p.partition())));
            }
            consumer.assign(parts);
            Map<TopicPartition, Long> from = new HashMap<>();
            parts.forEach(p -> from.put(p, Math.max(0, since - CLOCK_SLACK_MS)));
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
            Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(from);
            parts.forEach(p -> consumer.seek(p, starts.get(p) == null ? ends.get(p) : starts.get(p).offset()));
            long deadline = System.nanoTime() + READ_FOR_AT_MOST.toNanos();
            while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue()) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() == null || !wanted.test(r.key()) || r.value() == null) continue;
                    try {
                        found.add(values.deserialize(r.topic(), r.headers(), r.value()));
                    } catch (RuntimeException e) {
                        LOG.warnf("skipped an undecodable record %s-%d@%d: %s", r.topic(), r.partition(), r.offset(), e.getMessage());
                    }
                }
            }
        }
        return found;
    }
}
