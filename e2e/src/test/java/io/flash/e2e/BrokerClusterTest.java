package io.flash.e2e;

import io.flash.common.events.AttemptTimeline;
import io.flash.common.client.TopicTail;
import io.flash.common.client.JobClient;
import io.flash.common.ids.JobIds;
import io.flash.schema.*;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.*;

import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.stream.Collectors;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The five services on a three-node Kafka cluster ({@code FLASH_KAFKA_BROKERS=3}), a platform of its
 * own beside the shared one: every topic — the platform's, the Streams changelogs, the consumer
 * offsets and the transaction log — has three replicas and {@code min.insync.replicas=2}, and
 * kill -9 of one node mid-run loses nothing and stalls nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrokerClusterTest {

    private static final int SHARDS = 200;
    private FlashStack cluster;
    private JobClient client;
    private TopicTail<TaskEvent> events;
    private TopicTail<AttemptEvent> nodeEvents;

    @BeforeAll
    void startCluster() throws Exception {
        cluster = new FlashStack(Path.of("target/e2e-cluster"), 19192, 18281, 18290, 3, Map.of("FLASH_SIM_NODES", "8",
                "FLASH_SIM_RUN_TIME", "uniform:1s..3s", "FLASH_NODE_CPU", "2", "FLASH_NODE_MEMORY", "4Gi"));
        cluster.start();
        client = new JobClient(cluster.bootstrapServers(), cluster.registryUrl());
        events = new TopicTail<>(cluster.bootstrapServers(), client.topics().tasksEvents);
        nodeEvents = new TopicTail<>(cluster.bootstrapServers(), client.topics().frameworkNodeEvents("ecs"));
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (events != null) events.close();
        if (nodeEvents != null) nodeEvents.close();
        if (client != null) client.close();
        if (cluster != null) cluster.close();
    }

    @Test
    void everyTopicIsReplicatedThreeTimesAndOneNodeKilledMidRunLosesAndStallsNothing() throws Exception {
        TaskSpec shards = task("shards", "true", 0.5, "64Mi");
        shards.setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo((long) SHARDS).setShardSize(1).build());
        JobSubmission submission = job("broker-of-three", shards);
        String jobId = JobIds.forSubmission(submission.getSubmissionId());
        long killedAt;
        try (var results = client.openResults()) {
            client.submit(submission);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (succeeded(jobId) < SHARDS * 2 / 5 && System.nanoTime() < deadline) Thread.sleep(100);
            assertReplicatedThreeTimes(); // every changelog and the transaction log exist by now
            int before = succeeded(jobId);
            cluster.killBroker(2);
            killedAt = System.currentTimeMillis();
            JobResult result = results.await(jobId, Duration.ofSeconds(180))
                    .orElseThrow(() -> new AssertionError("stalled at " + succeeded(jobId) + "/" + SHARDS + "; logs in " + cluster.logs()
                            + "\n" + cluster.threadDumps()));
            assertEquals(JobState.SUCCEEDED, result.getState(), () -> String.valueOf(result));
            System.out.printf("broker of three: node 2 killed at %d/%d units; longest pause between successes %d ms after, %d ms before%n",
                    before, SHARDS, longestPause(jobId, killedAt, Long.MAX_VALUE, true), longestPause(jobId, 0, killedAt, false));
        }
        Thread.sleep(3_000);
        Map<String, Long> successes = events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.SUCCEEDED).stream()
                .collect(Collectors.groupingBy(TaskEvent::getTaskId, Collectors.counting()));
        assertEquals(SHARDS, successes.size(), "every unit succeeded");
        assertTrue(successes.values().stream().allMatch(n -> n == 1), "no unit succeeded twice");
        AttemptTimeline timeline = new AttemptTimeline(nodeEvents.values(e -> e.getJobId().equals(jobId)),
                events.values(e -> e.getJobId().equals(jobId)));
        assertEquals(List.of(), timeline.overlaps(), "no two attempts of one unit ran at once");
    }

    private void assertReplicatedThreeTimes() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            Set<String> names = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true)).names().get();
            assertTrue(names.contains("__transaction_state") && names.contains("__consumer_offsets"), names::toString);
            assertTrue(names.stream().anyMatch(n -> n.endsWith("-changelog")), "the Streams changelogs exist: " + names);
            Map<String, TopicDescription> topics = admin.describeTopics(names).allTopicNames().get();
            List<String> under = topics.values().stream()
                    .filter(t -> t.partitions().stream().anyMatch(p -> p.replicas().size() != 3))
                    .map(TopicDescription::name).toList();
            assertEquals(List.of(), under, "topics without three replicas");
            List<ConfigResource> resources = names.stream().map(n -> new ConfigResource(ConfigResource.Type.TOPIC, n)).toList();
            List<String> weak = admin.describeConfigs(resources).all().get().entrySet().stream()
                    .filter(e -> !"2".equals(e.getValue().get("min.insync.replicas").value()))
                    .map(e -> e.getKey().name()).toList();
            assertEquals(List.of(), weak, "topics whose min.insync.replicas is not 2");
            System.out.printf("broker of three: %d topics, all with 3 replicas and min.insync.replicas=2%n", names.size());
        }
    }

    /** The longest gap between consecutive successes of the job within [from, to), counted from {@code from} when asked. */
    private long longestPause(String jobId, long from, long to, boolean fromStart) {
        List<Long> at = new ArrayList<>(events.seen(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.SUCCEEDED).stream()
                .map(TopicTail.Seen::at).filter(t -> t >= from && t < to).sorted().toList());
        if (fromStart) at.add(0, from);
        long longest = 0;
        for (int i = 1; i < at.size(); i++) longest = Math.max(longest, at.get(i) - at.get(i - 1));
        return longest;
    }

    private int succeeded(String jobId) {
        return (int) events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.SUCCEEDED).stream()
                .map(TaskEvent::getTaskId).distinct().count();
    }
}
