package io.flash.e2e;

import io.flash.common.client.TopicTail;
import io.flash.common.cost.Costs;
import io.flash.common.ids.JobIds;
import io.flash.common.topics.KeyPartitions;
import io.flash.schema.FailureClass;
import io.flash.schema.JobResult;
import io.flash.schema.JobState;
import io.flash.schema.JobSubmission;
import io.flash.schema.TaskEvent;
import io.flash.schema.TaskEventType;
import io.flash.schema.TaskSpec;
import io.flash.schema.TaskSummary;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Spot nodes reclaimed in the middle of a task, on the real engine (docs/cost.md): the node takes
 * no new work from the notice, its attempt is lost as SPOT_RECLAIMED when the notice runs out, the
 * node leaves, and the task is retried without touching the user's budget — on spot again after
 * the first loss, and after flash.planner.max-spot-attempts (2) losses only on on-demand capacity,
 * even with a spot node idle beside it; the lost run time is the platform's cost. A task that says
 * spot: never waits for on-demand room rather than run on a spot node.
 */
class SpotReclaimTest extends StackTest {

    private static final int PORT = 18160;
    private static final String POOL = "pool=spot-e2e";
    private TopicTail<TaskEvent> events;
    /** Three spot nodes, one after the other, and the on-demand node, all in one shard of the ecs framework. */
    private List<String> spotNodes;
    private String onDemandNode;

    @BeforeAll
    void startTheSpotNode() throws Exception {
        events = new TopicTail<>(stack.bootstrapServers(), client.topics().tasksEvents);
        List<String> ids = sameShard(4);
        spotNodes = ids.subList(0, 3);
        onDemandNode = ids.get(3);
        startNode(0);
    }

    @AfterAll
    void stopTheNodes() throws Exception {
        for (int i = 0; i < 3; i++) stack.stop("spot-node-" + i);
        stack.stop("on-demand-node");
        if (events != null) events.close();
    }

    private void startNode(int spot) throws Exception {
        stack.startInstance("spot-node-" + spot, "executor", PORT + spot, node(spotNodes.get(spot), true));
        stack.awaitReady("spot-node-" + spot, Duration.ofSeconds(120));
    }

    /**
     * Node ids that land in the same shard of the ecs framework (the partition of their heartbeats'
     * key), so an attempt waiting for room waits where that room appears.
     */
    private List<String> sameShard(int count) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        int shards;
        try (KafkaConsumer<byte[], byte[]> metadata = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            shards = metadata.partitionsFor(client.topics().frameworkNodes("ecs").name(), Duration.ofSeconds(30)).size();
        }
        int wanted = KeyPartitions.of("spot-e2e-0", shards);
        List<String> ids = new ArrayList<>();
        for (int i = 0; ids.size() < count; i++) {
            if (KeyPartitions.of("spot-e2e-" + i, shards) == wanted) ids.add("spot-e2e-" + i);
        }
        return ids;
    }

    private static Map<String, String> node(String id, boolean spot) {
        return Map.of("FLASH_NODE_ID", id, "FLASH_NODE_SPOT", String.valueOf(spot), "FLASH_NODE_LABELS", POOL,
                "FLASH_NODE_CPU", "1", "FLASH_NODE_MEMORY", "1Gi");
    }

    private static TaskSpec pooled(String name, String spot) {
        TaskSpec t = task(name, "sleep 6; echo done", 0.5, "64Mi");
        t.setNodeLabels(Map.of("pool", "spot-e2e"));
        t.setSpot(spot);
        return t;
    }

    @Test
    void reclaimedSpotAttemptsAreRetriedFreeThenOnDemandAndSpotNeverWaitsForOnDemand() throws Exception {
        JobSubmission submission = job("spot-reclaim", pooled("on-spot", null), pooled("never-spot", "never"));
        String jobId = JobIds.forSubmission(submission.getSubmissionId());
        String onSpotId = jobId + ".on-spot";
        try (var results = client.openResults()) {
            client.submit(submission);
            TaskEvent started = await(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.STARTED, "on-spot to start");
            assertEquals(List.of(spotNodes.get(0), onSpotId), List.of(started.getNodeId(), started.getTaskId()),
                    "only the task that allows spot starts on the spot node");
            TaskEvent held = await(e -> e.getTaskId().equals(jobId + ".never-spot") && e.getType() == TaskEventType.HELD
                    && e.getReason() != null && e.getReason().contains("spot capacity"), "never-spot to wait");
            assertTrue(held.getReason().contains("are spot capacity, which this attempt may not use"), held.getReason());

            reclaim(0); // the first loss: the retry may use spot again
            startNode(1);
            TaskEvent second = await(e -> e.getTaskId().equals(onSpotId) && e.getType() == TaskEventType.STARTED
                    && spotNodes.get(1).equals(e.getNodeId()), "the retry to start on the second spot node");
            assertEquals(2, attemptOf(second));

            reclaim(1); // the second loss: from now on only on-demand capacity, though a spot node is idle
            startNode(2);
            TaskEvent refused = await(e -> e.getTaskId().equals(onSpotId) && e.getType() == TaskEventType.HELD && attemptOf(e) == 3
                    && e.getReason() != null && e.getReason().contains("spot capacity, which this attempt may not use"),
                    "the third attempt to refuse the idle spot node");
            assertNotNull(refused);
            stack.startInstance("on-demand-node", "executor", PORT + 3, node(onDemandNode, false));
            stack.awaitReady("on-demand-node", Duration.ofSeconds(120));

            JobResult result = results.await(jobId, Duration.ofSeconds(120))
                    .orElseThrow(() -> new AssertionError("no result; " + pageOrWhy(jobId) + "; logs in " + stack.logs()));
            assertEquals(JobState.SUCCEEDED, result.getState(), result::toString);
            TaskSummary onSpot = result.getTasks().stream().filter(t -> t.getName().equals("on-spot")).findFirst().orElseThrow();
            assertEquals(List.of(3, 0, 0, 2), List.of(onSpot.getAttempts(), onSpot.getUserFailures(), onSpot.getInfraFailures(),
                    onSpot.getSpotLosses()), "two free spot losses, then a success on demand: " + onSpot);
            assertEquals(onDemandNode, onSpot.getNodeId());
            TaskSummary never = result.getTasks().stream().filter(t -> t.getName().equals("never-spot")).findFirst().orElseThrow();
            assertEquals(List.of(1, onDemandNode), List.of(never.getAttempts(), never.getNodeId()));

            List<TaskEvent> lost = events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.FAILED);
            assertEquals(List.of(FailureClass.SPOT_RECLAIMED, FailureClass.SPOT_RECLAIMED), lost.stream().map(TaskEvent::getFailureClass).toList());
            assertTrue(result.getPlatformCost() > 0, "the reclaimed run time is the platform's: " + result);
            assertTrue(Costs.platformPays(lost.get(0).getType(), lost.get(0).getFailureClass()));
            assertEquals(onSpot.getUserCost() + never.getUserCost(), result.getUserCost(), 1e-12, "the user pays for the successes only");
        }
        assertTrue(events.values(e -> e.getNodeId() != null && spotNodes.contains(e.getNodeId()) && e.getTaskId().endsWith(".never-spot"))
                .isEmpty(), "spot: never never reached a spot node");
    }

    /** `flash capacity reclaim` with a 2 s notice, and the node's exit once it runs out. */
    private void reclaim(int spot) throws Exception {
        awaitListed(spotNodes.get(spot)); // the status API follows a framework's nodes topic from its first heartbeat on, every 10 s
        FlashStack.CommandResult reclaim = stack.flash(null, Map.of(), "capacity", "reclaim", spotNodes.get(spot), "--notice", "2");
        assertEquals(0, reclaim.exit(), reclaim.output());
        assertTrue(stack.awaitExit("spot-node-" + spot, Duration.ofSeconds(60)), "the reclaimed node left");
    }

    private static int attemptOf(TaskEvent e) {
        return Integer.parseInt(e.getAttemptId().substring(e.getAttemptId().lastIndexOf('.') + 1));
    }

    /** Waits until GET /nodes lists the node, as `flash capacity reclaim` needs (it finds the node's partition there). */
    private void awaitListed(String nodeId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> nodes = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/nodes")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (nodes.statusCode() == 200 && nodes.body().contains("\"nodeId\":\"" + nodeId + "\"")) return;
            Thread.sleep(250);
        }
        throw new AssertionError("GET /nodes did not list " + nodeId + " within 30 s; logs in " + stack.logs());
    }

    private TaskEvent await(Predicate<TaskEvent> wanted, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            List<TaskEvent> seen = events.values(wanted);
            if (!seen.isEmpty()) return seen.get(0);
            Thread.sleep(100);
        }
        throw new AssertionError("waited 90 s for " + what + "; the events: " + events.values(e -> e.getTaskId().contains(".on-spot")
                || e.getTaskId().contains(".never-spot")).stream().map(e -> e.getAttemptId() + " " + e.getType() + " " + e.getNodeId() + " "
                + e.getReason()).toList() + "; logs in " + stack.logs());
    }
}
