package io.flash.common.client;

import io.flash.common.access.KafkaLogin;
import io.flash.common.topics.Topic;
import java.time.Duration;
import java.util.*;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Follows one topic from the moment it is opened, on a background thread, and keeps what arrives
 * with the wall-clock time it arrived — what a test or a benchmark needs to watch task events or
 * heartbeats.
 */
public final class TopicTail<V> implements AutoCloseable {

    public record Seen<V>(long at, String key, V value) {
    }

    private final KafkaConsumer<String, V> consumer;
    private final List<Seen<V>> seen = Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;

    public TopicTail(String bootstrapServers, Topic<String, V> topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaLogin.fromEnvironment().addTo(props);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer = new KafkaConsumer<>(props, topic.keySerde().deserializer(), topic.valueSerde().deserializer());
        List<TopicPartition> parts = consumer.partitionsFor(topic.name()).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(parts);
        consumer.seekToEnd(parts);
        parts.forEach(consumer::position);
        thread = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    consumer.poll(Duration.ofMillis(100)).forEach(r -> seen.add(new Seen<>(System.currentTimeMillis(), r.key(), r.value())));
                }
            } catch (WakeupException e) {
                // closing
            }
        }, "tail-" + topic.name());
        thread.setDaemon(true);
        thread.start();
    }

    public List<V> values(Predicate<V> filter) {
        synchronized (seen) {
            return seen.stream().map(Seen::value).filter(filter).toList();
        }
    }

    public List<Seen<V>> seen(Predicate<V> filter) {
        synchronized (seen) {
            return seen.stream().filter(s -> filter.test(s.value())).toList();
        }
    }

    /** Waits until at least {@code count} values match. */
    public List<V> await(Predicate<V> filter, int count, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<V> found = values(filter);
        while (found.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(100);
            found = values(filter);
        }
        if (found.size() < count) throw new AssertionError("waited " + timeout + " for " + count + " " + what + "; saw " + found.size());
        return found;
    }

    @Override
    public void close() throws InterruptedException {
        consumer.wakeup();
        thread.join(5_000);
        consumer.close();
    }
}
