package io.flash.executor.channel;

import io.flash.common.access.KafkaLogin;
import io.flash.common.cache.CacheKeys;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.executor.cache.CacheIndex;
import io.flash.schema.CacheEntry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.logging.Logger;

/**
 * The task-result cache's index as this node reads it: every entry of the compacted
 * {@code flash.cache.entries}, followed from its beginning on a background thread, the latest per
 * scope and key. Read committed: an entry is seen once the planner's transaction that wrote it is.
 * A record that cannot be read is skipped and logged (a lookup then misses). At most
 * {@link #MAX_ENTRIES} are held; past it new keys are not (a miss, never a wrong hit).
 */
public final class KafkaCacheIndex implements CacheIndex, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(KafkaCacheIndex.class);
    static final int MAX_ENTRIES = 200_000;

    private final Map<String, CacheEntry> entries = new ConcurrentHashMap<>();
    private final KafkaConsumer<String, byte[]> consumer;
    private final Topic<String, CacheEntry> topic;
    private final Thread thread;
    private volatile boolean closing;

    public KafkaCacheIndex(FlashTopics topics, String bootstrapServers) {
        this.topic = topics.cacheEntries;
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaLogin.fromEnvironment().addTo(c);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
        thread = new Thread(this::follow, "cache-index");
        thread.setDaemon(true);
    }

    public KafkaCacheIndex start() {
        thread.start();
        return this;
    }

    @Override
    public Optional<CacheEntry> get(String scope, String key) {
        return Optional.ofNullable(entries.get(CacheKeys.entryId(scope, key)));
    }

    private void follow() {
        try {
            List<TopicPartition> parts = partitions();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            while (!Thread.currentThread().isInterrupted()) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) apply(record);
            }
        } catch (WakeupException stopped) {
            // closed
        } catch (RuntimeException e) {
            if (closing) return;
            LOG.errorf("the cache index stopped being read (%s): this node serves nothing more from the cache", e.getMessage());
        }
    }

    /** The topic's partitions, waiting for it: a node may start before ingest has created the platform's topics. */
    private List<TopicPartition> partitions() {
        while (true) {
            List<TopicPartition> parts = consumer.partitionsFor(topic.name(), Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            if (!parts.isEmpty()) return parts;
            LOG.infof("waiting for topic %s (ingest creates it): until then this node serves nothing from the cache", topic.name());
            try {
                Thread.sleep(5_000);
            } catch (InterruptedException e) {
                throw new WakeupException();
            }
        }
    }

    private void apply(ConsumerRecord<String, byte[]> record) {
        if (record.key() == null) return;
        if (record.value() == null) {
            entries.remove(record.key());
            return;
        }
        try {
            CacheEntry entry = topic.valueSerde().deserializer().deserialize(record.topic(), record.value());
            if (entries.size() < MAX_ENTRIES || entries.containsKey(record.key())) entries.put(record.key(), entry);
        } catch (RuntimeException e) {
            LOG.warnf("skipped unreadable cache entry %s at %s-%d@%d: %s", record.key(), record.topic(), record.partition(),
                    record.offset(), e.getMessage());
        }
    }

    @Override
    public void close() {
        closing = true;
        consumer.wakeup();
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(Duration.ofSeconds(5));
    }
}
