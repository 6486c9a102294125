package io.flash.ingest.view;

import io.flash.common.access.KafkaLogin;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.TopicNames;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.JobStatus;
import io.flash.schema.NodeHeartbeat;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * Reads the compacted job- and task-status topics from the beginning, then follows them, into
 * {@link JobViews}; the frameworks' heartbeats into {@link FrameworkLimits} and
 * {@link UtilisationHistory}; and the nodes topic of every framework that has reported into
 * {@link NodeViews}. Partitions are assigned, not subscribed: every instance holds the whole view.
 * Ready once it has caught up with the end offsets it saw at start.
 */
@ApplicationScoped
@Readiness
public class StatusFeed implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(StatusFeed.class);

    @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap;
    @ConfigProperty(name = "flash.registry.url") String registryUrl;

    private final JobViews views;
    private final FrameworkLimits limits = new FrameworkLimits();
    private final NodeViews nodes = new NodeViews();
    /** One point a quarter minute, two hours kept: the console's utilisation charts. */
    private final UtilisationHistory utilisation = new UtilisationHistory(15_000, 2 * 3600_000);
    private static final Duration LOOK_FOR_NODE_TOPICS_EVERY = Duration.ofSeconds(10);
    private static final Duration SETTLE_EVERY = Duration.ofSeconds(10);
    private KafkaConsumer<String, byte[]> consumer;
    private Thread thread;
    private volatile boolean caughtUp;
    private volatile boolean stopping;

    public StatusFeed(JobViews views) {
        this.views = views;
    }

    @Produces
    FrameworkLimits frameworkLimits() {
        return limits;
    }

    @Produces
    NodeViews nodeViews() {
        return nodes;
    }

    @Produces
    UtilisationHistory utilisationHistory() {
        return utilisation;
    }

    @Inject
    MeterRegistry meters;

    void onStart(@Observes StartupEvent event) {
        for (TaskState state : TaskState.values()) {
            Gauge.builder("flash.tasks", views, v -> v.unitsIn(state)).tag("state", state.name())
                    .description("tasks and shards in this state, as this instance's status view sees them").register(meters);
        }
        FlashTopics topics = new FlashTopics(new RegistryValueSerdes(registryUrl));
        Deserializer<JobStatus> jobs = topics.jobsStatus.valueSerde().deserializer();
        Deserializer<TaskSummary> tasks = topics.tasksStatus.valueSerde().deserializer();
        Deserializer<FrameworkHeartbeat> frameworks = topics.frameworkHeartbeats.valueSerde().deserializer();
        Deserializer<NodeHeartbeat> nodeBeats = topics.frameworkNodes("any").valueSerde().deserializer();
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        KafkaLogin.fromEnvironment().addTo(props);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        thread = new Thread(() -> follow(topics, jobs, tasks, frameworks, nodeBeats), "status-feed");
        thread.setDaemon(true);
        thread.start();
    }

    private void follow(FlashTopics topics, Deserializer<JobStatus> jobs, Deserializer<TaskSummary> tasks,
                        Deserializer<FrameworkHeartbeat> frameworks, Deserializer<NodeHeartbeat> nodeBeats) {
        try {
            List<TopicPartition> parts = new ArrayList<>();
            for (String topic : List.of(topics.jobsStatus.name(), topics.tasksStatus.name(), topics.frameworkHeartbeats.name())) {
                consumer.partitionsFor(topic, Duration.ofSeconds(60)).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
            Set<String> nodeTopics = new HashSet<>();
            long lookedForNodeTopics = 0;
            long settled = System.nanoTime();
            while (!stopping) {
                if (System.nanoTime() - lookedForNodeTopics > LOOK_FOR_NODE_TOPICS_EVERY.toNanos()) {
                    followNewNodeTopics(parts, nodeTopics);
                    lookedForNodeTopics = System.nanoTime();
                }
                // Not while catching up: a unit read after its packed job would unpack it again.
                if (caughtUp && System.nanoTime() - settled > SETTLE_EVERY.toNanos()) {
                    views.settle(System.currentTimeMillis());
                    settled = System.nanoTime();
                }
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    try {
                        if (r.topic().equals(topics.frameworkHeartbeats.name())) {
                            FrameworkHeartbeat beat = r.value() == null ? null : frameworks.deserialize(r.topic(), r.headers(), r.value());
                            limits.update(r.key(), beat);
                            if (beat != null) utilisation.record(beat);
                        } else if (nodeTopics.contains(r.topic())) {
                            nodes.update(r.topic(), r.key(), r.value() == null ? null : nodeBeats.deserialize(r.topic(), r.headers(), r.value()));
                        } else if (r.topic().equals(topics.jobsStatus.name())) {
                            views.putJob(r.key(), r.value() == null ? null : jobs.deserialize(r.topic(), r.headers(), r.value()));
                        } else {
                            views.putTask(r.key(), r.value() == null ? null : tasks.deserialize(r.topic(), r.headers(), r.value()));
                        }
                    } catch (RuntimeException e) {
                        LOG.warnf("skipped undecodable status record %s-%d@%d: %s", r.topic(), r.partition(), r.offset(), e.getMessage());
                    }
                }
                if (!caughtUp && ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
                    caughtUp = true;
                    LOG.infof("status view caught up: %d jobs", views.jobCount());
                }
            }
        } catch (WakeupException e) {
            // stopping
        } catch (RuntimeException e) {
            LOG.error("status feed stopped", e);
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    /**
     * Adds the nodes topic of every framework heard from that exists and is not followed yet, read
     * from its beginning; partitions already assigned keep their positions.
     */
    private void followNewNodeTopics(List<TopicPartition> parts, Set<String> followed) {
        try {
            Map<String, List<PartitionInfo>> existing = null;
            for (FrameworkHeartbeat beat : limits.heartbeats()) {
                String topic = TopicNames.frameworkNodes(beat.getFrameworkId());
                if (followed.contains(topic)) continue;
                if (existing == null) existing = consumer.listTopics(Duration.ofSeconds(5));
                if (!existing.containsKey(topic)) continue;
                List<TopicPartition> added = existing.get(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
                parts.addAll(added);
                consumer.assign(parts);
                consumer.seekToBeginning(added);
                followed.add(topic);
            }
        } catch (TimeoutException | AuthorizationException e) {
            LOG.warnf("could not follow the nodes topics yet: %s", e.getMessage()); // looked for again shortly
        }
    }

    void onStop(@Observes ShutdownEvent event) throws InterruptedException {
        stopping = true;
        if (consumer != null) consumer.wakeup();
        if (thread != null) thread.join(5000);
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("status-view").status(caughtUp && thread != null && thread.isAlive())
                .withData("jobs", views.jobCount()).build();
    }
}
