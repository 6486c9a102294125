package io.flash.ingest.history;

import io.flash.common.access.KafkaLogin;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.ingest.app.IngestConfig;
import io.flash.schema.JobAccepted;
import io.flash.schema.JobSubmission;
import io.flash.schema.LogChunk;
import io.flash.schema.TaskEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.function.Predicate;
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

/**
 * Reads one job's records back from the week-long topics, on request: its acceptance (the DAG),
 * its task events (every attempt) and its log chunks. From the job's acceptance on, up to each
 * topic's end at the time of asking, bounded in time. Consumers are assigned, with no group
 * (nothing is committed), and kept for the next request: setting one up (connections, metadata)
 * cost more than the read itself.
 */
@ApplicationScoped
public class JobRecords {

    private static final Logger LOG = Logger.getLogger(JobRecords.class);
    private static final Duration READ_FOR_AT_MOST = Duration.ofSeconds(15);
    /** Records are read from a little before the job's acceptance: producers' clocks differ. */
    private static final long CLOCK_SLACK_MS = 5_000;

    /** Consumers kept between requests; more are made when requests overlap, and closed beyond this. */
    private static final int KEEP_IDLE = 4;

    private final String bootstrap;
    private final FlashTopics topics;
    private final BlockingDeque<KafkaConsumer<String, byte[]>> idle = new LinkedBlockingDeque<>();

    public JobRecords(@ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap,
                      IngestConfig config) {
        this.bootstrap = bootstrap;
        this.topics = new FlashTopics(new RegistryValueSerdes(config.registry().url()));
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
     * The submission a job was accepted from ({@link JobAccepted#getSourcePartition()}, offset): read
     * at its offset, so what is read is exactly what ingest verified and accepted, whatever else was
     * published under the same key. Empty when the topic no longer keeps it (past its retention).
     */
    public Optional<JobSubmission> submissionAt(int partition, long offset) {
        Deserializer<JobSubmission> values = topics.jobsSubmitted.valueSerde().deserializer();
        TopicPartition part = new TopicPartition(topics.jobsSubmitted.name(), partition);
        KafkaConsumer<String, byte[]> consumer = borrow();
        boolean reusable = false;
        try {
            consumer.assign(List.of(part));
            long first = consumer.beginningOffsets(List.of(part)).get(part);
            long end = consumer.endOffsets(List.of(part)).get(part);
            Optional<JobSubmission> found = Optional.empty();
            if (offset >= first && offset < end) {
                consumer.seek(part, offset);
                long deadline = System.nanoTime() + READ_FOR_AT_MOST.toNanos();
                while (found.isEmpty() && consumer.position(part) <= offset && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.offset() == offset && r.value() != null) found = Optional.of(values.deserialize(r.topic(), r.headers(), r.value()));
                    }
                }
            }
            reusable = true;
            return found;
        } finally {
            giveBack(consumer, reusable);
        }
    }

    /**
     * @param partitionKey when the topic is keyed so that all wanted records share this key, only
     *                     its partition (Kafka's default partitioner) is read; null: all of them
     */
    private <V> List<V> read(Topic<String, V> topic, Predicate<String> wanted, String partitionKey, long since) {
        Deserializer<V> values = topic.valueSerde().deserializer();
        List<V> found = new ArrayList<>();
        KafkaConsumer<String, byte[]> consumer = borrow();
        boolean reusable = false;
        try {
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
            reusable = true;
        } finally {
            giveBack(consumer, reusable);
        }
        return found;
    }

    private KafkaConsumer<String, byte[]> borrow() {
        KafkaConsumer<String, byte[]> kept = idle.pollFirst();
        if (kept != null) return kept;
        Properties props = KafkaLogin.fromEnvironment().addTo(new Properties());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // Reading up to a known end: a transaction's commit marker at the end is passed only by a
        // fetch that finds nothing after it, which would otherwise wait the default 500 ms.
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        return new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
    }

    /** A consumer that failed mid-read is closed, not kept: its state is unknown. */
    private void giveBack(KafkaConsumer<String, byte[]> consumer, boolean reusable) {
        if (reusable && idle.size() < KEEP_IDLE) {
            consumer.unsubscribe();
            idle.offerFirst(consumer);
        } else {
            consumer.close(Duration.ofSeconds(1));
        }
    }

    @PreDestroy
    void close() {
        for (KafkaConsumer<String, byte[]> c; (c = idle.pollFirst()) != null; ) c.close(Duration.ofSeconds(1));
    }
}
