package io.flash.e2e;

import io.flash.common.events.AttemptTimeline;

import io.flash.common.client.TopicTail;
import io.flash.common.ids.JobIds;
import io.flash.schema.*;
import org.junit.jupiter.api.*;

import java.time.Duration;
import java.util.*;
import java.util.stream.Collectors;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * An executor killed (kill -9) mid-run and back with the same node ids within the node timeout:
 * the attempts it forgot are not a black hole. Simulated nodes forget everything on restart, the
 * worst case; the shard sees the restart in the heartbeats and, one node timeout later, loses what
 * the nodes do not hold, and the planner retries it.
 */
class NodeRestartTest extends StackTest {

    private static final int PORT = 18140, NODES = 20, SHARDS = 120;
    private static final Map<String, String> FLEET = Map.of("FLASH_FRAMEWORK_ID", "restart", "FLASH_NODE_ID", "restartnode",
            "FLASH_SIM_NODES", String.valueOf(NODES), "FLASH_SIM_RUN_TIME", "uniform:1s..3s", "FLASH_NODE_CPU", "2",
            "FLASH_NODE_MEMORY", "4Gi");
    private TopicTail<TaskEvent> events;
    private TopicTail<AttemptEvent> nodeEvents;

    @BeforeAll
    void startFrameworkAndFleet() throws Exception {
        events = new TopicTail<>(stack.bootstrapServers(), client.topics().tasksEvents);
        stack.startInstance("ecs-restart", "framework-ecs", PORT, Map.of("FLASH_FRAMEWORK_ID", "restart"));
        stack.startInstance("restart-fleet", "executor", PORT + 1, FLEET);
        stack.awaitReady("ecs-restart", Duration.ofSeconds(120));
        nodeEvents = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkNodeEvents("restart"));
        stack.awaitReady("restart-fleet", Duration.ofSeconds(120));
    }

    @AfterAll
    void stopThem() throws Exception {
        stopFrameworks(List.of("ecs-restart", "restart-fleet"), Set.of("restart"));
        if (events != null) events.close();
        if (nodeEvents != null) nodeEvents.close();
    }

    @Test
    void attemptsANodeForgotInARestartAreRetriedAndEveryUnitSucceedsOnce() throws Exception {
        TaskSpec shards = task("shards", "true", 0.5, "64Mi");
        shards.setFramework("restart");
        shards.setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo((long) SHARDS).setShardSize(1).build());
        JobSubmission submission = job("node-restart", shards);
        String jobId = JobIds.forSubmission(submission.getSubmissionId());
        try (var results = client.openResults()) {
            client.submit(submission);
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (succeeded(jobId) < SHARDS * 2 / 5 && System.nanoTime() < deadline) Thread.sleep(100);
            int before = succeeded(jobId);
            stack.kill("restart-fleet");
            long killed = System.nanoTime();
            stack.startInstance("restart-fleet", "executor", PORT + 1, FLEET);
            stack.awaitReady("restart-fleet", Duration.ofSeconds(60));
            System.out.printf("node restart: fleet killed at %d/%d shards done, back after %d ms%n", before, SHARDS,
                    (System.nanoTime() - killed) / 1_000_000);
            JobResult result = results.await(jobId, Duration.ofSeconds(150))
                    .orElseThrow(() -> new AssertionError("the job stalled at " + succeeded(jobId) + "/" + SHARDS + "; logs in " + stack.logs()));
            assertEquals(JobState.SUCCEEDED, result.getState(), () -> String.valueOf(result));
        }
        List<TaskEvent> jobEvents = events.values(e -> e.getJobId().equals(jobId));
        Map<String, Long> successes = jobEvents.stream().filter(e -> e.getType() == TaskEventType.SUCCEEDED)
                .collect(Collectors.groupingBy(TaskEvent::getTaskId, Collectors.counting()));
        assertEquals(SHARDS, successes.size(), "every shard succeeded");
        assertTrue(successes.values().stream().allMatch(n -> n == 1), "no shard succeeded twice: " + successes);
        long lostInRestart = jobEvents.stream().filter(e -> e.getType() == TaskEventType.LOST && e.getReason() != null
                && e.getReason().contains("restarted and does not hold")).count();
        assertTrue(lostInRestart > 0, "attempts the fleet forgot were lost and retried");
        // The forgotten attempts died with the fleet's process: they end where the shard declared them lost.
        AttemptTimeline timeline = new AttemptTimeline(nodeEvents.values(e -> e.getJobId().equals(jobId)), jobEvents);
        assertEquals(List.of(), timeline.overlaps(), "no retry started before its lost attempt was declared over");
        System.out.printf("node restart: %d attempts lost in the restart and retried, every one of %d shards succeeded once%n",
                lostInRestart, SHARDS);
    }

    private int succeeded(String jobId) {
        return (int) events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.SUCCEEDED).stream()
                .map(TaskEvent::getTaskId).distinct().count();
    }
}
