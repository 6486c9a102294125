package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.common.client.JobClient;
import io.flash.common.client.TopicTail;
import io.flash.common.ids.JobIds;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.JobResult;
import io.flash.schema.JobSubmission;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertNull;

/** Base of the end-to-end test classes: the shared platform, a client, and waiting helpers. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StackTest {

    static final Duration TIMEOUT = Duration.ofSeconds(180);
    final HttpClient http = HttpClient.newHttpClient();
    final ObjectMapper json = new ObjectMapper();
    FlashStack stack;
    JobClient client;

    @BeforeAll
    void startPlatform() throws Exception {
        stack = FlashStack.shared();
        List<String> restarted = stack.restartStopped();
        if (!restarted.isEmpty()) System.out.println("[flash-stack] an earlier test class left " + restarted + " stopped: started again");
        client = new JobClient(stack.bootstrapServers(), stack.registryUrl());
    }

    @AfterAll
    void closeClient() {
        if (client != null) client.close();
    }

    /**
     * Stops these instances (frameworks first, then their nodes) and waits until every shard of these
     * frameworks has said it is leaving: the dispatcher then sends them nothing, so that the next
     * class's work cannot be routed to a framework that is gone (docs/frameworks.md).
     */
    void stopFrameworks(List<String> instances, Set<String> frameworks) throws Exception {
        try (TopicTail<FrameworkHeartbeat> beats = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkHeartbeats)) {
            for (String instance : instances) stack.stop(instance);
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            Map<String, FrameworkHeartbeat> latest = new HashMap<>();
            while (System.nanoTime() < deadline) {
                beats.values(h -> frameworks.contains(h.getFrameworkId())).forEach(h -> latest.put(h.getFrameworkId() + "/" + h.getShard(), h));
                boolean everyShardLeft = latest.values().stream().allMatch(FrameworkHeartbeat::getLeaving);
                boolean everyFrameworkSeen = latest.values().stream().map(FrameworkHeartbeat::getFrameworkId).distinct().count() == frameworks.size();
                if (everyShardLeft && everyFrameworkSeen) return;
                Thread.sleep(100);
            }
            throw new AssertionError("not every shard of " + frameworks + " said it was leaving: " + latest.keySet().stream()
                    .filter(k -> !latest.get(k).getLeaving()).toList() + "; service logs in " + stack.logs());
        }
    }

    JobResult run(JobSubmission job) throws Exception {
        return run(job, TIMEOUT);
    }

    /** Submits the job and returns its result; a rejection or no result in time fails the test. */
    JobResult run(JobSubmission job, Duration timeout) throws Exception {
        client.submit(job);
        JobClient.Outcome outcome = client.awaitOutcome(job.getSubmissionId(), timeout)
                .orElseThrow(() -> new AssertionError("no result for " + job.getName() + " within " + timeout
                        + "; its page: " + pageOrWhy(JobIds.forSubmission(job.getSubmissionId()))
                        + "; service logs in " + stack.logs()));
        assertNull(outcome.rejected(), () -> "rejected: " + outcome.rejected());
        return outcome.result();
    }

    /** What the status API knows of a job, for a failure message: where each task stands, not only that it is late. */
    String pageOrWhy(String jobId) {
        try {
            JsonNode p = page(jobId);
            return p == null ? "none at " + stack.apiUrl() + "/jobs/" + jobId : p.toString();
        } catch (Exception e) {
            return "unreadable (" + e + ")";
        }
    }

    /** The job's page from the status API, or null while it has none. */
    JsonNode page(String jobId) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs/" + jobId)).build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 ? json.readTree(r.body()) : null;
    }

    JsonNode awaitPage(String jobId, Predicate<JsonNode> done, Duration timeout, String what) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = page(jobId);
            if (last != null && done.test(last)) return last;
            Thread.sleep(200);
        }
        throw new AssertionError("waited for " + what + " of " + jobId + "; last seen: " + last);
    }

    /** An attempt's chunks on the log topic by seq, read from the start until its last chunk or the timeout. */
    java.util.SortedMap<Long, io.flash.schema.LogChunk> streamedLog(String attemptId, Duration timeout) {
        java.util.SortedMap<Long, io.flash.schema.LogChunk> chunks = new java.util.TreeMap<>();
        var topic = client.topics().tasksLogs;
        java.util.Properties props = new java.util.Properties();
        props.put("bootstrap.servers", stack.bootstrapServers());
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(props, topic.keySerde().deserializer(),
                topic.valueSerde().deserializer())) {
            var partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline && chunks.values().stream().noneMatch(io.flash.schema.LogChunk::getLast)) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (attemptId.equals(record.key())) chunks.put(record.value().getSeq(), record.value());
                }
            }
        }
        return chunks;
    }

    void awaitFirstTask(String jobId, String state) throws Exception {
        awaitPage(jobId, p -> p.get("tasks").size() > 0 && state.equals(p.get("tasks").get(0).get("state").asText()),
                Duration.ofSeconds(60), "first task " + state);
    }
}
