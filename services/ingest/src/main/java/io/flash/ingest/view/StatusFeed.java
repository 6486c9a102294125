package io.flash.ingest.view;

import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.JobStatus;
import io.flash.schema.TaskSummary;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.*;

/**
 * Reads the compacted job- and task-status topics from the beginning, then follows them, into
 * {@link JobViews}. Partitions are assigned, not subscribed: every instance holds the whole view.
 * Ready once it has caught up with the end offsets it saw at start.
 */
@ApplicationScoped
@Readiness
public class StatusFeed implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(StatusFeed.class);

    @ConfigProperty(name = "kafka.bootstrap.servers") String bootstrap;
    @ConfigProperty(name = "flash.registry.url") String registryUrl;

    private final JobViews views = new JobViews();
    private final FrameworkLimits limits = new FrameworkLimits();
    private KafkaConsumer<String, byte[]> consumer;
    private Thread thread;
    private volatile boolean caughtUp;
    private volatile boolean stopping;

    @Produces
    JobViews views() {
        return views;
    }

    @Produces
    FrameworkLimits frameworkLimits() {
        return limits;
    }

    @jakarta.inject.Inject
    io.micrometer.core.instrument.MeterRegistry meters;

    void onStart(@Observes StartupEvent event) {
        for (io.flash.schema.TaskState state : io.flash.schema.TaskState.values()) {
            io.micrometer.core.instrument.Gauge.builder("flash.tasks", views, v -> v.unitsIn(state)).tag("state", state.name())
                    .description("tasks and shards in this state, as this instance's status view sees them").register(meters);
        }
        FlashTopics topics = new FlashTopics(new RegistryValueSerdes(registryUrl));
        Deserializer<JobStatus> jobs = topics.jobsStatus.valueSerde().deserializer();
        Deserializer<TaskSummary> tasks = topics.tasksStatus.valueSerde().deserializer();
        Deserializer<FrameworkHeartbeat> frameworks = topics.frameworkHeartbeats.valueSerde().deserializer();
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        io.flash.common.access.KafkaLogin.fromEnvironment().addTo(props);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        thread = new Thread(() -> follow(topics, jobs, tasks, frameworks), "status-feed");
        thread.setDaemon(true);
        thread.start();
    }

    private void follow(FlashTopics topics, Deserializer<JobStatus> jobs, Deserializer<TaskSummary> tasks,
                        Deserializer<FrameworkHeartbeat> frameworks) {
        try {
            List<TopicPartition> parts = new ArrayList<>();
            for (String topic : List.of(topics.jobsStatus.name(), topics.tasksStatus.name(), topics.frameworkHeartbeats.name())) {
                consumer.partitionsFor(topic, Duration.ofSeconds(60)).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
            while (!stopping) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    try {
                        if (r.topic().equals(topics.frameworkHeartbeats.name())) {
                            limits.update(r.key(), r.value() == null ? null : frameworks.deserialize(r.topic(), r.headers(), r.value()));
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
