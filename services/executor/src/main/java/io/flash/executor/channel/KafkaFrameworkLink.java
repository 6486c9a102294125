package io.flash.executor.channel;

import io.flash.common.access.KafkaLogin;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.KeyPartitions;
import io.flash.common.topics.TopicNames;
import io.flash.executor.agent.FrameworkLink;
import io.flash.schema.AttemptEvent;
import io.flash.schema.LogChunk;
import io.flash.schema.NodeHeartbeat;
import io.flash.schema.UsageSample;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The node's link over Kafka: it reads only its own partition of the framework's assignments topic
 * (partition = murmur2(node id) mod partitions, the producer's default for the node-id key), with its
 * position committed under the group flash-executor-&lt;node&gt;, and reports through {@link NodeChannel}.
 */
public final class KafkaFrameworkLink implements FrameworkLink {

    private final String frameworkId;
    private final String nodeId;
    private final String bootstrapServers;
    private final KafkaConsumer<String, byte[]> consumer;
    private final NodeChannel channel;
    private TopicPartition partition;

    public KafkaFrameworkLink(FlashTopics topics, String frameworkId, String nodeId, String bootstrapServers) {
        this.frameworkId = frameworkId;
        this.nodeId = nodeId;
        this.bootstrapServers = bootstrapServers;
        this.consumer = NodeChannel.assignmentConsumer(bootstrapServers, "flash-executor-" + nodeId, 100);
        this.channel = new NodeChannel(topics, frameworkId, bootstrapServers, 0);
    }

    /** The Kafka cluster's id. */
    @Override
    public String platformId() throws InterruptedException {
        Properties config = KafkaLogin.fromEnvironment().addTo(new Properties());
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(config)) {
            return admin.describeCluster().clusterId().get(120, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not learn the Kafka cluster's id from " + bootstrapServers
                    + " (is the broker up?): " + e.getMessage(), e);
        }
    }

    @Override
    public String open() throws InterruptedException {
        String assignments = TopicNames.frameworkAssignments(frameworkId);
        int partitions = NodeChannel.assignmentPartitions(consumer, frameworkId, Duration.ofSeconds(120)).size();
        partition = new TopicPartition(assignments, KeyPartitions.of(nodeId, partitions));
        consumer.assign(List.of(partition));
        long position = consumer.position(partition);
        consumer.commitSync(Map.of(partition, new OffsetAndMetadata(position)));
        return partition.toString();
    }

    @Override
    public int partition() {
        return partition.partition();
    }

    @Override
    public List<Delivery> poll(Duration timeout) {
        List<Delivery> deliveries = new ArrayList<>();
        try {
            for (ConsumerRecord<String, byte[]> record : consumer.poll(timeout)) {
                boolean ours = nodeId.equals(record.key());
                deliveries.add(new Delivery(ours ? channel.decode(record) : null, record.offset() + 1));
            }
        } catch (WakeupException stopping) {
            return List.of();
        }
        return deliveries;
    }

    @Override
    public void commit(long next) {
        consumer.commitSync(Map.of(partition, new OffsetAndMetadata(next)));
    }

    @Override
    public void wakeup() {
        consumer.wakeup();
    }

    @Override
    public void closeReader() {
        consumer.close(Duration.ofSeconds(5));
    }

    @Override
    public Future<?> report(AttemptEvent event) {
        return channel.report(event);
    }

    @Override
    public Future<?> log(LogChunk chunk) {
        return channel.log(chunk);
    }

    @Override
    public void usage(UsageSample sample) {
        channel.usage(sample);
    }

    @Override
    public void heartbeat(NodeHeartbeat heartbeat, Consumer<Exception> acked) {
        channel.heartbeat(heartbeat, (metadata, error) -> acked.accept(error));
    }

    @Override
    public void bindMetrics(MeterRegistry registry) {
        new KafkaClientMetrics(consumer).bindTo(registry);
        channel.bindMetrics(registry);
    }

    @Override
    public void close() {
        channel.close();
    }
}
