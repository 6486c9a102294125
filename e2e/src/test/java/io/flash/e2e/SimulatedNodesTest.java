package io.flash.e2e;

import io.flash.common.client.TopicTail;
import io.flash.schema.*;
import org.junit.jupiter.api.*;

import java.time.Duration;
import java.util.*;
import java.util.stream.Collectors;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Simulated and real nodes serving one framework: framework "sim" gets 300 simulated nodes from
 * one executor process (FLASH_SIM_NODES, label kind=sim, 5 % of attempts fail as infrastructure
 * failures) and one real Docker node (label kind=real), each kind chosen by node labels.
 */
class SimulatedNodesTest extends StackTest {

    private static final int PORT = 18102, SIMULATED = 300;
    private TopicTail<TaskEvent> events;
    private TopicTail<FrameworkHeartbeat> heartbeats;
    private final List<String> started = new ArrayList<>();

    @BeforeAll
    void startFrameworkAndNodes() throws Exception {
        events = new TopicTail<>(stack.bootstrapServers(), client.topics().tasksEvents);
        heartbeats = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkHeartbeats);
        start("ecs-sim", "framework-ecs", PORT, Map.of("FLASH_FRAMEWORK_ID", "sim"));
        start("sim-fleet", "executor", PORT + 1, Map.of("FLASH_FRAMEWORK_ID", "sim", "FLASH_NODE_ID", "simnode",
                "FLASH_SIM_NODES", String.valueOf(SIMULATED), "FLASH_SIM_RUN_TIME", "uniform:50ms..300ms",
                "FLASH_SIM_FAILURE_RATE", "0.05", "FLASH_NODE_LABELS", "kind=sim", "FLASH_NODE_CPU", "2", "FLASH_NODE_MEMORY", "4Gi"));
        start("sim-real-1", "executor", PORT + 2, Map.of("FLASH_FRAMEWORK_ID", "sim", "FLASH_NODE_ID", "sim-real-1",
                "FLASH_NODE_LABELS", "kind=real", "FLASH_NODE_CPU", "1", "FLASH_NODE_MEMORY", "1Gi"));
        for (String instance : started) stack.awaitReady(instance, Duration.ofSeconds(120));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        int nodes = 0;
        while (nodes < SIMULATED + 1 && System.nanoTime() < deadline) {
            Map<Integer, Integer> latest = new HashMap<>();
            heartbeats.values(h -> h.getFrameworkId().equals("sim")).forEach(h -> latest.put(h.getShard(), h.getNodes()));
            nodes = latest.values().stream().mapToInt(Integer::intValue).sum();
            Thread.sleep(200);
        }
        assertEquals(SIMULATED + 1, nodes, "framework sim sees every simulated node and the real one; logs in " + stack.logs());
    }

    @AfterAll
    void stopFrameworkAndNodes() throws Exception {
        stopFrameworks(started, Set.of("sim"));
        if (events != null) events.close();
        if (heartbeats != null) heartbeats.close();
    }

    private void start(String instance, String service, int port, Map<String, String> env) throws Exception {
        stack.startInstance(instance, service, port, env);
        started.add(instance);
    }

    @Test
    void simulatedNodesRunAScatterAndARealNodeOfTheSameFrameworkRunsAContainer() throws Exception {
        TaskSpec shards = task("shards", "true", 0.25, "64Mi");
        shards.setFramework("sim");
        shards.setNodeLabels(Map.of("kind", "sim"));
        shards.setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo(500L).setShardSize(1).build());
        TaskSpec real = task("real", "echo ran in a real container", 0.25, "64Mi");
        real.setFramework("sim");
        real.setNodeLabels(Map.of("kind", "real"));
        JobSubmission submission = job("simulated", shards, real);
        JobResult result = run(submission, Duration.ofMinutes(3));

        assertEquals(JobState.SUCCEEDED, result.getState(), () -> "result: " + result);
        TaskSummary realTask = result.getTasks().stream().filter(t -> t.getName().equals("real")).findFirst().orElseThrow();
        assertEquals("sim-real-1", realTask.getNodeId());
        assertTrue(realTask.getStdoutTail().contains("ran in a real container"), realTask.getStdoutTail());

        String jobId = io.flash.common.ids.JobIds.forSubmission(submission.getSubmissionId());
        List<TaskEvent> jobEvents = events.values(e -> e.getJobId().equals(jobId));
        Map<String, Long> successes = jobEvents.stream().filter(e -> e.getType() == TaskEventType.SUCCEEDED)
                .collect(Collectors.groupingBy(TaskEvent::getTaskId, Collectors.counting()));
        assertEquals(501, successes.size(), "every shard and the real task succeeded");
        assertTrue(successes.values().stream().allMatch(n -> n == 1), "no unit succeeded twice: " + successes);
        Set<String> simulatedNodes = jobEvents.stream().filter(e -> e.getType() == TaskEventType.STARTED && !e.getTaskId().equals(realTask.getTaskId()))
                .map(TaskEvent::getNodeId).collect(Collectors.toSet());
        assertTrue(simulatedNodes.stream().allMatch(n -> n.startsWith("simnode-")), "shards ran only on simulated nodes: " + simulatedNodes);
        long infraFailures = jobEvents.stream().filter(e -> e.getType() == TaskEventType.FAILED
                && e.getFailureClass() == FailureClass.INFRASTRUCTURE && "simulated infrastructure failure".equals(e.getReason())).count();
        assertTrue(infraFailures > 0, "about 5 % of 500 attempts fail as infrastructure failures and are retried");
        System.out.printf("simulated nodes: 500 shards on %d distinct simulated nodes, %d simulated failures retried%n",
                simulatedNodes.size(), infraFailures);
    }
}
