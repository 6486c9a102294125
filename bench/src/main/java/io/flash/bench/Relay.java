package io.flash.bench;

import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The physical limit of the same path: records of a given size relayed through the same number of
 * Kafka hops by plain consumer → producer loops with no scheduling logic (acks=all, idempotent,
 * offsets committed after each poll), same broker, same run. Each loop runs on its own thread in
 * this JVM. Reports when the last record has passed {@code startHops} hops (what "started" costs
 * in Flash) and all {@code hops} hops (what a result costs).
 */
final class Relay {

    record Result(int records, int valueBytes, int hops, long firstSentMs, long lastAtStartHopMs, long lastAtEndMs) {
        double perSecondToStart() {
            return records * 1000.0 / Math.max(1, lastAtStartHopMs - firstSentMs);
        }

        double perSecondToEnd() {
            return records * 1000.0 / Math.max(1, lastAtEndMs - firstSentMs);
        }
    }

    private Relay() {
    }

    static Result run(String bootstrap, int records, byte[] value, int startHops, int hops, int partitions) throws Exception {
        String run = "bench.relay." + Long.toHexString(System.nanoTime());
        List<String> topics = new ArrayList<>();
        for (int i = 0; i <= hops; i++) topics.add(run + "." + i);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(topics.stream().map(t -> new NewTopic(t, partitions, (short) 1)).toList()).all().get();
        }
        List<Thread> loops = new ArrayList<>();
        List<KafkaConsumer<String, byte[]>> consumers = new ArrayList<>();
        for (int i = 0; i < hops; i++) {
            KafkaConsumer<String, byte[]> in = consumer(bootstrap, run + ".loop" + i);
            consumers.add(in);
            String from = topics.get(i), to = topics.get(i + 1);
            Thread t = new Thread(() -> loop(bootstrap, in, from, to), "relay-" + i);
            t.setDaemon(true);
            t.start();
            loops.add(t);
        }
        AtomicLong lastAtStart = new AtomicLong(), lastAtEnd = new AtomicLong();
        long first;
        try (KafkaConsumer<String, byte[]> watch = consumer(bootstrap, run + ".watch");
             KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
            watch.subscribe(List.of(topics.get(startHops), topics.get(hops)));
            while (watch.assignment().size() < 2L * partitions) watch.poll(Duration.ofMillis(100));
            Thread.sleep(2_000); // every loop has joined its group and holds its partitions
            first = System.currentTimeMillis();
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topics.get(0), "r" + i, value));
            }
            producer.flush();
            int atStart = 0, atEnd = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while ((atStart < records || atEnd < records) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : watch.poll(Duration.ofMillis(100))) {
                    if (r.topic().equals(topics.get(hops))) {
                        atEnd++;
                        lastAtEnd.set(System.currentTimeMillis());
                    } else {
                        atStart++;
                        lastAtStart.set(System.currentTimeMillis());
                    }
                }
            }
            if (atEnd < records) throw new IllegalStateException("relay: only " + atEnd + " of " + records + " records arrived");
        } finally {
            for (KafkaConsumer<String, byte[]> c : consumers) c.wakeup();
            for (Thread t : loops) t.join(10_000);
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.deleteTopics(topics).all().get();
            }
        }
        return new Result(records, value.length, hops, first, lastAtStart.get(), lastAtEnd.get());
    }

    private static void loop(String bootstrap, KafkaConsumer<String, byte[]> in, String from, String to) {
        try (in; KafkaProducer<String, byte[]> out = producer(bootstrap)) {
            in.subscribe(List.of(from));
            while (true) {
                var records = in.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, byte[]> r : records) {
                    out.send(new ProducerRecord<>(to, r.key(), r.value()));
                }
                if (!records.isEmpty()) in.commitAsync();
            }
        } catch (WakeupException e) {
            // done
        }
    }

    private static KafkaConsumer<String, byte[]> consumer(String bootstrap, String group) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        return new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
    }

    static KafkaProducer<String, byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }
}
