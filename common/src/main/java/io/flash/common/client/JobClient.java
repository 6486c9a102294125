package io.flash.common.client;

import io.flash.common.access.KafkaLogin;
import io.flash.common.ids.JobIds;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.KeyPartitions;
import io.flash.common.topics.Topic;
import io.flash.schema.Assignment;
import io.flash.schema.AssignmentAction;
import io.flash.schema.CapacityDecision;
import io.flash.schema.JobAction;
import io.flash.schema.JobCommand;
import io.flash.schema.JobRejected;
import io.flash.schema.JobResult;
import io.flash.schema.JobSubmission;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What a user's program does with Flash, through Kafka only: publish a job, wait for its outcome,
 * read its latest status. Used by the CLI and by the end-to-end tests.
 */
public final class JobClient implements AutoCloseable {

    /** How a submission ended: accepted and finished (result), or refused (rejected). */
    public record Outcome(String jobId, JobResult result, JobRejected rejected) {
    }

    /**
     * The record header of a submission that carries the submitter's access token (a JWT of Flash's
     * identity provider); in the secure mode ingest accepts a job only with a valid one, and its owner
     * is the token's user (docs/security.md).
     */
    public static final String TOKEN_HEADER = "flash-token";

    private final String bootstrapServers;
    private final KafkaLogin login;
    private final RegistryValueSerdes values;
    private final FlashTopics topics;
    private final KafkaProducer<String, JobSubmission> producer;

    /** Signs in to the broker as the environment says ({@link KafkaLogin#fromEnvironment()}). */
    public JobClient(String bootstrapServers, String registryUrl) {
        this(bootstrapServers, registryUrl, KafkaLogin.fromEnvironment());
    }

    public JobClient(String bootstrapServers, String registryUrl, KafkaLogin login) {
        this.bootstrapServers = bootstrapServers;
        this.login = login;
        this.values = new RegistryValueSerdes(registryUrl, !login.secure());
        this.topics = new FlashTopics(values);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        login.addTo(props);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        this.producer = new KafkaProducer<>(props, topics.jobsSubmitted.keySerde().serializer(),
                topics.jobsSubmitted.valueSerde().serializer());
    }

    public FlashTopics topics() {
        return topics;
    }

    /** Publishes the job keyed by its submission id (one is made up when absent); returns the job id. */
    public String submit(JobSubmission job) throws Exception {
        return submit(job, null);
    }

    /**
     * As {@link #submit(JobSubmission)}, with the submitter's access token in {@link #TOKEN_HEADER}
     * (none when null). With a token (the secure mode) the job id is scoped by the token's user, as
     * ingest scopes it.
     */
    public String submit(JobSubmission job, String accessToken) throws Exception {
        if (job.getSubmissionId() == null || job.getSubmissionId().isBlank()) {
            job.setSubmissionId(UUID.randomUUID().toString());
        }
        ProducerRecord<String, JobSubmission> record = new ProducerRecord<>(topics.jobsSubmitted.name(), job.getSubmissionId(), job);
        if (accessToken == null) {
            producer.send(record).get();
            return JobIds.forSubmission(job.getSubmissionId());
        }
        record.headers().add(TOKEN_HEADER, accessToken.getBytes(StandardCharsets.UTF_8));
        producer.send(record).get();
        return JobIds.forSubmission(TokenClaims.user(accessToken), job.getSubmissionId());
    }

    /** Asks the planner to cancel the job: nothing new starts, running attempts are killed. */
    public void cancel(String jobId, String reason) throws Exception {
        try (KafkaProducer<String, JobCommand> commands = new KafkaProducer<>(producerProperties(), topics.jobsCommands.keySerde().serializer(),
                topics.jobsCommands.valueSerde().serializer())) {
            commands.send(new ProducerRecord<>(topics.jobsCommands.name(), jobId, JobCommand.newBuilder().setJobId(jobId)
                    .setAction(JobAction.CANCEL).setReason(reason).setRequestedBy(System.getProperty("user.name"))
                    .setAt(System.currentTimeMillis()).build())).get();
        }
    }

    /**
     * Tells a spot node its capacity is reclaimed, as its provider would (docs/cost.md): it takes no
     * new work, and at {@code leaveAt} its running attempts are lost as SPOT_RECLAIMED and it leaves.
     * Written to the node's own partition of its framework's assignments topic, where it reads.
     */
    public void reclaimNode(String frameworkId, String nodeId, int partition, long leaveAt, String reason) throws Exception {
        Topic<String, Assignment> assignments = topics.frameworkAssignments(frameworkId);
        try (KafkaProducer<String, Assignment> out = new KafkaProducer<>(producerProperties(), assignments.keySerde().serializer(),
                assignments.valueSerde().serializer())) {
            out.send(new ProducerRecord<>(assignments.name(), partition, nodeId, Assignment.newBuilder().setNodeId(nodeId)
                    .setAction(AssignmentAction.RECLAIM).setJobId("").setTaskId("").setAttemptId("").setReason(reason)
                    .setAssignedAt(System.currentTimeMillis()).setLeaveAt(leaveAt).build())).get();
        }
    }

    private Properties producerProperties() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        login.addTo(props);
        return props;
    }

    /** Publishes raw bytes to the ingest topic (what a misbehaving client might do). */
    public void submitRaw(String key, byte[] value) throws Exception {
        try (KafkaProducer<byte[], byte[]> raw = new KafkaProducer<>(producerProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topics.jobsSubmitted.name(),
                    key == null ? null : key.getBytes(StandardCharsets.UTF_8), value)).get();
        }
    }

    /**
     * Waits for the job's result or its rejection, reading both topics from the partition of its key.
     * Reads from the start of that partition, so an outcome that came before the call is found too.
     */
    public Optional<Outcome> awaitOutcome(String submissionId, Duration timeout) {
        return awaitOutcome(JobIds.forSubmission(submissionId), submissionId, timeout);
    }

    /** As {@link #awaitOutcome(String, Duration)} for a job whose id {@link #submit} returned (scoped by its owner). */
    public Optional<Outcome> awaitOutcome(String jobId, String submissionId, Duration timeout) {
        try (KafkaConsumer<String, Object> consumer = consumer()) {
            TopicPartition results = partitionOf(consumer, topics.jobsResults, jobId);
            TopicPartition rejected = partitionOf(consumer, topics.jobsRejected, submissionId);
            consumer.assign(List.of(results, rejected));
            consumer.seekToBeginning(List.of(results, rejected));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Object> record : poll(consumer, Duration.ofMillis(200))) {
                    if (record.value() instanceof JobResult r && jobId.equals(record.key())) {
                        return Optional.of(new Outcome(jobId, r, null));
                    }
                    if (record.value() instanceof JobRejected r && submissionId.equals(r.getSubmissionId())) {
                        return Optional.of(new Outcome(jobId, null, r));
                    }
                }
            }
            return Optional.empty();
        }
    }

    /**
     * Follows the result topic from now on: open it before submitting, so waiting costs no consumer
     * start-up and no re-reading. Not thread-safe; one waiter at a time.
     */
    public ResultStream openResults() {
        return new ResultStream(consumer(), topics.jobsResults.name());
    }

    public static final class ResultStream implements AutoCloseable {
        private final KafkaConsumer<String, Object> consumer;
        private final Map<String, JobResult> seen = new HashMap<>();

        ResultStream(KafkaConsumer<String, Object> consumer, String topic) {
            this.consumer = consumer;
            List<TopicPartition> parts = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToEnd(parts);
            parts.forEach(consumer::position); // resolve "end" now, before anything is submitted
        }

        public Optional<JobResult> await(String jobId, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!seen.containsKey(jobId) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Object> record : poll(consumer, Duration.ofMillis(100))) {
                    if (record.value() instanceof JobResult r) seen.put(record.key(), r);
                }
            }
            return Optional.ofNullable(seen.remove(jobId));
        }

        @Override
        public void close() {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    public Optional<JobResult> result(String jobId) {
        return latest(topics.jobsResults, jobId).map(JobResult.class::cast);
    }

    /** The autoscaler's last {@code count} decisions (flash.capacity.decisions has one partition), oldest first. */
    public List<CapacityDecision> recentDecisions(int count) {
        List<CapacityDecision> found = new ArrayList<>();
        try (KafkaConsumer<String, Object> consumer = consumer()) {
            TopicPartition tp = new TopicPartition(topics.capacityDecisions.name(), 0);
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            consumer.seek(tp, Math.max(0, end - count));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Object> record : poll(consumer, Duration.ofMillis(200))) {
                    if (record.value() instanceof CapacityDecision d) found.add(d);
                }
            }
        }
        return found;
    }

    /** Every rejection on the rejected topic so far (for tests and troubleshooting). */
    public List<JobRejected> rejections(Duration wait, int atLeast) {
        List<JobRejected> found = new ArrayList<>();
        try (KafkaConsumer<String, Object> consumer = consumer()) {
            List<TopicPartition> parts = consumer.partitionsFor(topics.jobsRejected.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() < deadline && found.size() < atLeast) {
                for (ConsumerRecord<String, Object> record : poll(consumer, Duration.ofMillis(200))) {
                    if (record.value() instanceof JobRejected r) {
                        found.add(r);
                    }
                }
            }
        }
        return found;
    }

    private Optional<Object> latest(Topic<String, ?> topic, String key) {
        try (KafkaConsumer<String, Object> consumer = consumer()) {
            TopicPartition tp = partitionOf(consumer, topic, key);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            Object latest = null;
            while (consumer.position(tp) < end) {
                for (ConsumerRecord<String, Object> record : poll(consumer, Duration.ofMillis(500))) {
                    if (key.equals(record.key())) {
                        latest = record.value();
                    }
                }
            }
            return Optional.ofNullable(latest);
        }
    }

    /** Polls, stepping over a record that cannot be decoded (e.g. written under a schema the registry lost). */
    private static ConsumerRecords<String, Object> poll(KafkaConsumer<String, Object> consumer, Duration timeout) {
        try {
            return consumer.poll(timeout);
        } catch (RecordDeserializationException e) {
            System.err.println("skipping undecodable record " + e.topicPartition() + "@" + e.offset() + ": " + e.getMessage());
            consumer.seek(e.topicPartition(), e.offset() + 1);
            return ConsumerRecords.empty();
        }
    }

    private static TopicPartition partitionOf(KafkaConsumer<String, Object> consumer, Topic<String, ?> topic, String key) {
        int partitions = consumer.partitionsFor(topic.name()).size();
        int partition = KeyPartitions.of(key, partitions);
        return new TopicPartition(topic.name(), partition);
    }

    private KafkaConsumer<String, Object> consumer() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        login.addTo(props);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // One deserializer for every Flash value: the writer schema picks the class.
        var deserializer = values.anyValue();
        return new KafkaConsumer<>(props, topics.jobsResults.keySerde().deserializer(), deserializer);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
