package io.flash.ingest.logs;

import io.flash.common.access.KafkaLogin;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.schema.LogChunk;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Reads one job's chunks from flash.tasks.logs: every partition from the job's acceptance on (the
 * topic is keyed by attempt id, which begins with the job id) up to its end at the time of asking,
 * bounded in time. A fresh consumer per request, assigned, no group: nothing is committed.
 */
@ApplicationScoped
public class LogReader {

    private static final Logger LOG = Logger.getLogger(LogReader.class);
    private static final Duration READ_FOR_AT_MOST = Duration.ofSeconds(15);

    private final String bootstrap;
    private final Deserializer<LogChunk> chunks;
    private final String topic;

    public LogReader(@ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap,
                     @ConfigProperty(name = "flash.registry.url") String registryUrl) {
        this.bootstrap = bootstrap;
        FlashTopics topics = new FlashTopics(new RegistryValueSerdes(registryUrl));
        this.chunks = topics.tasksLogs.valueSerde().deserializer();
        this.topic = topics.tasksLogs.name();
    }

    /** @param since the job's acceptance (ms); records from a little before are read too */
    public List<LogChunk> chunksOf(String jobId, long since) {
        Properties props = KafkaLogin.fromEnvironment().addTo(new Properties());
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        List<LogChunk> found = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(10)).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
            consumer.assign(parts);
            Map<TopicPartition, Long> from = new HashMap<>();
            parts.forEach(p -> from.put(p, Math.max(0, since - 5_000)));
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
            Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(from);
            parts.forEach(p -> consumer.seek(p, starts.get(p) == null ? ends.get(p) : starts.get(p).offset()));
            long deadline = System.nanoTime() + READ_FOR_AT_MOST.toNanos();
            while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue()) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() == null || !r.key().startsWith(jobId + ".") || r.value() == null) continue;
                    try {
                        found.add(chunks.deserialize(r.topic(), r.headers(), r.value()));
                    } catch (RuntimeException e) {
                        LOG.warnf("skipped an undecodable log chunk %s-%d@%d: %s", r.topic(), r.partition(), r.offset(), e.getMessage());
                    }
                }
            }
        }
        return found;
    }
}
