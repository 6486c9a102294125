package io.flash.e2e;

import io.flash.common.client.JobClient;
import io.flash.common.deadletter.DeadLetters;
import io.flash.common.topics.TopicNames;
import io.flash.schema.*;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.*;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The hostile corpus ({@link HostileCorpus}) published by a plain Kafka client on the real stack:
 * every record gets a rejection naming its field or a dead letter with a reason, every service stays
 * ready, no consumer group is left behind, and a good job submitted afterwards succeeds.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileInputTest extends StackTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private KafkaProducer<byte[], byte[]> raw;
    private HostileCorpus corpus;

    @BeforeAll
    void start() throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 << 20);
        raw = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        JobSubmission sample = JobSubmission.newBuilder().setSubmissionId("sample").setName("sample").setTasks(List.of(
                TaskSpec.newBuilder().setName("t").setImage("flash/shell:1").setShell("true").build())).build();
        JobCommand command = JobCommand.newBuilder().setJobId("job-none").setAction(JobAction.CANCEL).setAt(1L).build();
        corpus = new HostileCorpus(
                client.topics().jobsSubmitted.valueSerde().serializer().serialize(TopicNames.JOBS_SUBMITTED, new RecordHeaders(), sample),
                client.topics().jobsCommands.valueSerde().serializer().serialize(TopicNames.JOBS_COMMANDS, new RecordHeaders(), command));
    }

    @AfterAll
    void stop() {
        if (raw != null) raw.close();
    }

    @Test
    @Order(1)
    void everyUnreadableSubmissionIsRejectedAsARecord() throws Exception {
        Map<String, HostileCorpus.Case> bySource = new LinkedHashMap<>();
        for (HostileCorpus.Case c : corpus.ingestWire()) {
            bySource.put(source(publish(TopicNames.JOBS_SUBMITTED, "wire-" + bySource.size(), c.value())), c);
        }
        Map<String, JobRejected> rejected = new HashMap<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (rejected.keySet().size() < bySource.size() && System.nanoTime() < deadline) {
            for (JobRejected r : client.rejections(Duration.ofSeconds(5), Integer.MAX_VALUE)) {
                rejected.put(r.getSourceTopic() + "-" + r.getSourcePartition() + "@" + r.getSourceOffset(), r);
            }
            rejected.keySet().retainAll(bySource.keySet());
        }
        List<String> missing = new ArrayList<>();
        bySource.forEach((source, c) -> {
            JobRejected r = rejected.get(source);
            if (r == null) {
                missing.add(c.name());
                return;
            }
            assertEquals(c.field(), r.getReasons().get(0).getField(), c.name());
            assertFalse(r.getReasons().get(0).getReason().isBlank(), c.name());
            System.out.printf("rejected %-38s %s%n", c.name() + ":", r.getReasons().get(0).getReason());
        });
        assertEquals(List.of(), missing, "records without a rejection");
        String unknownId = rejected.entrySet().stream().filter(e -> bySource.get(e.getKey()).name().equals("unknown schema id"))
                .findFirst().orElseThrow().getValue().getReasons().get(0).getReason();
        assertTrue(unknownId.contains("no schema with id " + 0x7fff_ff00), unknownId);
    }

    @Test
    @Order(2)
    void everyValueThatCannotRunIsRejectedNamingItsField() throws Exception {
        List<Map.Entry<JobSubmission, String>> cases = corpus.ingestValues();
        for (var c : cases) client.submit(c.getKey());
        List<String> wrong = new ArrayList<>();
        for (var c : cases) {
            JobClient.Outcome outcome = client.awaitOutcome(c.getKey().getSubmissionId(), WAIT).orElse(null);
            if (outcome == null || outcome.rejected() == null) {
                wrong.add(c.getValue() + ": " + (outcome == null ? "no answer" : "accepted, " + outcome.result().getState()));
                continue;
            }
            Set<String> fields = new TreeSet<>();
            outcome.rejected().getReasons().forEach(r -> fields.add(r.getField()));
            if (!fields.contains(c.getValue())) wrong.add(c.getValue() + ": rejected for " + outcome.rejected().getReasons());
            else System.out.printf("rejected %-38s %s%n", c.getValue() + ":", outcome.rejected().getReasons().get(0).getReason());
        }
        assertEquals(List.of(), wrong, "cases not rejected with their field");
    }

    @Test
    @Order(3)
    void unreadableCommandsAreDeadLetteredAndThePlannerGoesOn() throws Exception {
        Map<String, HostileCorpus.Case> bySource = new LinkedHashMap<>();
        for (HostileCorpus.Case c : corpus.commandsWire()) {
            bySource.put(source(publish(TopicNames.JOBS_COMMANDS, "job-hostile-" + bySource.size(), c.value())), c);
        }
        Map<String, String> reasons = deadLetters(bySource.keySet(), WAIT);
        List<String> missing = new ArrayList<>();
        bySource.forEach((source, c) -> {
            if (!reasons.containsKey(source)) missing.add(c.name());
            else System.out.printf("dead-lettered %-33s %s%n", c.name() + ":", reasons.get(source));
        });
        assertEquals(List.of(), missing, "commands without a dead letter");
        String unknownId = bySource.entrySet().stream().filter(e -> e.getValue().name().equals("unknown schema id"))
                .map(e -> reasons.get(e.getKey())).findFirst().orElseThrow();
        assertTrue(unknownId.contains("no schema with id " + 0x7fff_ff01), unknownId);
    }

    @Test
    @Order(4)
    void afterAllOfItEveryServiceIsReadyNoGroupLagsAndAGoodJobRuns() throws Exception {
        for (String service : FlashStack.SERVICES) {
            assertEquals(200, stack.readiness(service), service + " is ready");
        }
        JobSubmission good = JobSubmission.newBuilder().setSubmissionId("after-hostile-" + UUID.randomUUID()).setName("after-hostile")
                .setOwner("e2e").setTasks(new ArrayList<>(List.of(TaskSpec.newBuilder().setName("fine").setImage("flash/shell:1")
                        .setShell("echo still here").setResources(ResourceRequest.newBuilder().setCpu(0.25).setMemory("32Mi").build())
                        .build()))).build();
        client.submit(good);
        JobClient.Outcome outcome = client.awaitOutcome(good.getSubmissionId(), Duration.ofSeconds(90)).orElseThrow();
        assertNull(outcome.rejected());
        assertEquals(JobState.SUCCEEDED, outcome.result().getState());
        assertNoLag("flash-ingest", TopicNames.JOBS_SUBMITTED);
        assertNoLag("flash-dag-planner", TopicNames.JOBS_COMMANDS);
    }

    private RecordMetadata publish(String topic, String key, byte[] value) throws Exception {
        return raw.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value)).get();
    }

    private static String source(RecordMetadata m) {
        return DeadLetters.source(m.topic(), m.partition(), m.offset());
    }

    /** flash.source → flash.reason of the dead letters on the topic, until all wanted are there. */
    private Map<String, String> deadLetters(Set<String> wanted, Duration wait) {
        Map<String, String> found = new HashMap<>();
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(TopicNames.DEAD_LETTER).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            long deadline = System.nanoTime() + wait.toNanos();
            while (!found.keySet().containsAll(wanted) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    var source = r.headers().lastHeader(DeadLetters.SOURCE);
                    var reason = r.headers().lastHeader(DeadLetters.REASON);
                    if (source != null && reason != null) {
                        found.put(new String(source.value(), StandardCharsets.UTF_8), new String(reason.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return found;
    }

    /** The group's committed offsets reach the end of every partition of the topic (within 30 s). */
    private void assertNoLag(String group, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            long lag;
            do {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                        .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
                var ends = admin.listOffsets(latest).all().get();
                lag = 0;
                for (var e : ends.entrySet()) {
                    OffsetAndMetadata c = committed.get(e.getKey());
                    lag += e.getValue().offset() - (c == null ? 0 : c.offset());
                }
                if (lag == 0) return;
                Thread.sleep(500);
            } while (System.nanoTime() < deadline);
            fail(group + " lags " + lag + " records behind the end of " + topic);
        }
    }
}
