package io.flash.e2e;

import io.flash.common.client.TopicTail;
import io.flash.common.ids.JobIds;
import io.flash.schema.CapacityAction;
import io.flash.schema.CapacityDecision;
import io.flash.schema.JobResult;
import io.flash.schema.JobState;
import io.flash.schema.JobSubmission;
import io.flash.schema.TaskSpec;
import io.flash.schema.TaskSummary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Capacity that follows the queue, on the real engine (docs/autoscaling.md): an elastic framework
 * with no node, an autoscaler with the docker provider. Work arrives, the autoscaler launches
 * executor containers (flash/executor) of the cheapest class in the shard where it waits, the work
 * runs on them, and once they stay idle they are drained and leave: back to zero. The autoscaler
 * is killed -9 right after its first launch and resumes from Kafka without launching twice.
 */
class AutoscalerTest extends StackTest {

    private static final int PORT = 18170;
    private static final String FRAMEWORK = "elastic";
    private static final Map<String, String> AUTOSCALER = Map.of("FLASH_AUTOSCALER_FRAMEWORKS", FRAMEWORK,
            "FLASH_AUTOSCALER_SCALE_UP_AFTER", "2s", "FLASH_AUTOSCALER_IDLE_BEFORE_DRAIN", "8s",
            "FLASH_AUTOSCALER_DRAIN_COOL_DOWN", "5s", "FLASH_AUTOSCALER_MAX_NODES", "3",
            "QUARKUS_KAFKA_STREAMS_TOPICS", "flash.frameworks.heartbeats,flash.capacity.decisions,flash.fw.elastic.nodes");
    private TopicTail<CapacityDecision> decisions;

    @BeforeAll
    void startAnElasticFrameworkAndItsAutoscaler() throws Exception {
        Path home = Path.of(System.getProperty("flash.home", "..")).toAbsolutePath().normalize();
        Process build = new ProcessBuilder("bash", home.resolve("infra/images/services/build.sh").toString()).inheritIO().start();
        assertEquals(0, build.waitFor(), "infra/images/services/build.sh failed");
        RequiredImages.require("infra/images/services/build.sh", List.of("flash/executor:0.1.0"));
        removeNodeContainers();
        decisions = new TopicTail<>(stack.bootstrapServers(), client.topics().capacityDecisions);
        stack.startInstance("ecs-elastic", "framework-ecs", PORT, Map.of("FLASH_FRAMEWORK_ID", FRAMEWORK,
                "FLASH_CAPACITY_ELASTIC", "true", "FLASH_FRAMEWORK_NODE_TIMEOUT", "8s"));
        stack.awaitReady("ecs-elastic", Duration.ofSeconds(120));
        stack.startInstance("autoscaler", "autoscaler", PORT + 1, AUTOSCALER);
        stack.awaitReady("autoscaler", Duration.ofSeconds(120));
    }

    @AfterAll
    void stopThem() throws Exception {
        stack.stop("autoscaler");
        stopFrameworks(List.of("ecs-elastic"), Set.of(FRAMEWORK));
        removeNodeContainers();
        if (decisions != null) decisions.close();
    }

    @Test
    void fromZeroToTheNodesTheWorkNeedsAndBackToZero() throws Exception {
        assertTrue(nodeContainers().isEmpty(), "no node before any work");
        List<TaskSpec> tasks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            TaskSpec t = task("burst-" + i, "sleep 3; echo done", 1.0, "256Mi");
            t.setFramework(FRAMEWORK);
            tasks.add(t);
        }
        JobSubmission submission = job("elastic-burst", tasks.toArray(TaskSpec[]::new));
        String jobId = JobIds.forSubmission(submission.getSubmissionId());
        long submitted = System.nanoTime();
        JobResult result;
        try (var results = client.openResults()) {
            client.submit(submission);
            await(d -> d.getAction() == CapacityAction.LAUNCH, 1, Duration.ofSeconds(60));
            long firstLaunch = System.nanoTime();
            stack.kill("autoscaler"); // kill -9 right after it decided: it resumes from its store and the decisions topic
            stack.startInstance("autoscaler", "autoscaler", PORT + 1, AUTOSCALER);
            stack.awaitReady("autoscaler", Duration.ofSeconds(120));
            result = results.await(jobId, Duration.ofSeconds(240))
                    .orElseThrow(() -> new AssertionError("no result; " + pageOrWhy(jobId) + "; decisions " + decisions.values(d -> true)
                            + "; logs in " + stack.logs()));
            System.out.printf("autoscaler: first launch %d ms after submit, job done %d ms after submit%n",
                    (firstLaunch - submitted) / 1_000_000, (System.nanoTime() - submitted) / 1_000_000);
        }
        assertEquals(JobState.SUCCEEDED, result.getState(), result::toString);
        List<CapacityDecision> launches = decisions.values(d -> d.getAction() == CapacityAction.LAUNCH);
        Set<String> launched = launches.stream().map(CapacityDecision::getNodeId).collect(Collectors.toSet());
        assertEquals(launches.size(), launched.size(), "no node launched twice: " + launches);
        assertTrue(launched.size() <= 3, "max-nodes: " + launched);
        for (TaskSummary t : result.getTasks()) {
            assertTrue(launched.contains(t.getNodeId()), t.getName() + " ran on " + t.getNodeId() + ", a launched node");
        }
        assertTrue(launches.stream().allMatch(d -> d.getNodeClass().equals("standard-2") && d.getSpot()),
                "the cheapest class, on spot: " + launches);

        long done = System.nanoTime();
        List<CapacityDecision> drains = await(d -> d.getAction() == CapacityAction.DRAIN, launched.size(), Duration.ofSeconds(90));
        assertEquals(launched, drains.stream().map(CapacityDecision::getNodeId).collect(Collectors.toSet()), "each drained once");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!nodeContainers().isEmpty() && System.nanoTime() < deadline) Thread.sleep(500);
        assertEquals(List.of(), nodeContainers(), "back to zero: every node container left");
        FlashStack.CommandResult capacity = stack.flash(null, Map.of(), "capacity");
        assertEquals(0, capacity.exit(), capacity.output());
        assertTrue(capacity.output().contains("DRAIN  " + drains.get(0).getNodeId()) && capacity.output().contains("ran nothing for"),
                "flash capacity shows the decisions with their reasons: " + capacity.output());
        System.out.printf("autoscaler: %d nodes; from the job's end to zero nodes %d ms%n", launched.size(),
                (System.nanoTime() - done) / 1_000_000);
    }

    private List<CapacityDecision> await(Predicate<CapacityDecision> wanted, int count, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            List<CapacityDecision> seen = decisions.values(wanted);
            if (seen.size() >= count) return seen;
            Thread.sleep(200);
        }
        throw new AssertionError("waited " + timeout.toSeconds() + " s for " + count + " decisions; have " + decisions.values(d -> true)
                + "; logs in " + stack.logs());
    }

    private static List<String> nodeContainers() throws IOException, InterruptedException {
        Process ps = new ProcessBuilder("docker", "ps", "-a", "-q", "--filter", "label=io.flash.framework=" + FRAMEWORK).start();
        String out = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        ps.waitFor();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    private static void removeNodeContainers() throws IOException, InterruptedException {
        for (String id : nodeContainers()) new ProcessBuilder("docker", "rm", "-f", id).start().waitFor();
    }
}
