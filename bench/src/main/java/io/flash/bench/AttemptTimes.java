package io.flash.bench;

import io.flash.common.topics.FlashTopics;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskEventType;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** Follows the task events from now on and answers how long a job's attempt took from PLACED to SUCCEEDED. */
final class AttemptTimes implements AutoCloseable {

    private final KafkaConsumer<String, TaskEvent> consumer;
    private final Map<String, Long> placed = new ConcurrentHashMap<>();
    private final Map<String, Long> succeeded = new ConcurrentHashMap<>();

    AttemptTimes(String bootstrap, FlashTopics topics) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer = new KafkaConsumer<>(props, topics.tasksEvents.keySerde().deserializer(), topics.tasksEvents.valueSerde().deserializer());
        List<TopicPartition> parts = consumer.partitionsFor(topics.tasksEvents.name()).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(parts);
        consumer.seekToEnd(parts);
        parts.forEach(consumer::position);
    }

    /** Milliseconds from the framework placing the job's attempt to the executor reporting it succeeded. */
    double placedToExit(String jobId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!(placed.containsKey(jobId) && succeeded.containsKey(jobId)) && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(50)).forEach(r -> {
                TaskEvent e = r.value();
                if (e.getType() == TaskEventType.PLACED) placed.put(e.getJobId(), e.getAt());
                if (e.getType() == TaskEventType.SUCCEEDED) succeeded.put(e.getJobId(), e.getAt());
            });
        }
        if (!placed.containsKey(jobId) || !succeeded.containsKey(jobId)) {
            throw new IllegalStateException("no PLACED/SUCCEEDED events seen for " + jobId);
        }
        return succeeded.remove(jobId) - placed.remove(jobId);
    }

    @Override
    public void close() {
        consumer.close();
    }
}
