package io.flash.e2e;

import io.flash.common.client.TopicTail;
import io.flash.common.client.JobClient;
import io.flash.schema.*;
import org.junit.jupiter.api.*;

import java.nio.file.Path;
import java.time.Duration;
import java.util.*;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * What a task cannot do to its node. A container the engine refuses to kill or remove (produced
 * with {@link RefusingEngine} in front of the real engine) still ends its attempt within the kill
 * grace, with the engine's words, and the node takes no work until the container is gone; a fork
 * bomb is stopped by the pids limit and its timeout, reported, and leaves nothing behind.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ContainmentTest extends StackTest {

    private static final int PORT = 18130;
    private static final String NODE = "stubborn-node";
    private RefusingEngine engine;
    private TopicTail<NodeHeartbeat> heartbeats;

    @BeforeAll
    void startAStubbornNode() throws Exception {
        heartbeats = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkNodes("ecs"));
        engine = new RefusingEngine(Path.of("/var/run/docker.sock"), stack.dataDir().resolve("refusing-docker.sock"),
                line -> line.matches("(POST \\S*/containers/\\S+/kill|DELETE \\S*/containers/\\S+)(\\?\\S*)? HTTP/1.1"));
        engine.refusing = false;
        stack.startInstance(NODE, "executor", PORT, Map.of("FLASH_NODE_ID", NODE, "FLASH_DOCKER_HOST", engine.dockerHost(),
                "FLASH_NODE_LABELS", "kind=stubborn", "FLASH_NODE_KILL_GRACE", "5s", "FLASH_NODE_CPU", "1", "FLASH_NODE_MEMORY", "1Gi"));
        stack.awaitReady(NODE, Duration.ofSeconds(120));
        // Level 1 sends a labelled task only to a framework that reports a node with the label.
        try (TopicTail<FrameworkHeartbeat> frameworks = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkHeartbeats)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (frameworks.values(h -> h.getNodeLabels().contains("kind=stubborn")).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertFalse(frameworks.values(h -> h.getNodeLabels().contains("kind=stubborn")).isEmpty(), "ecs reports the stubborn node");
        }
    }

    @AfterAll
    void stopIt() throws Exception {
        if (engine != null) engine.refusing = false;
        stack.stop(NODE);
        // Later classes' tasks must not be placed on the stopped node: wait out the node timeout (15 s).
        Thread.sleep(16_000);
        if (engine != null) engine.close();
        if (heartbeats != null) heartbeats.close();
        Process rm = new ProcessBuilder("sh", "-c", "docker ps -aq --filter label=io.flash.node=" + NODE + " | xargs -r docker rm -f")
                .inheritIO().start();
        rm.waitFor();
    }

    @Test
    @Order(1)
    void aContainerTheEngineCannotKillStillEndsItsAttemptAndTheNodeTakesNoWorkUntilItIsGone() throws Exception {
        engine.refusing = true;
        TaskSpec stuck = task("stuck", "sleep 600", 0.25, "32Mi");
        stuck.setTimeout("3s");
        stuck.setNodeLabels(Map.of("kind", "stubborn"));
        long t0 = System.nanoTime();
        JobResult result = run(job("unkillable", stuck), Duration.ofSeconds(90));
        long endedMs = (System.nanoTime() - t0) / 1_000_000;
        TaskSummary t = result.getTasks().get(0);
        assertEquals(JobState.FAILED, result.getState(), () -> String.valueOf(result));
        assertEquals(FailureClass.TIMEOUT, t.getFailureClass(), t.getReason());
        assertTrue(t.getReason().contains("did not stop the container within 5 s") && t.getReason().contains("simulated refusal"),
                t.getReason());
        assertTrue(engine.refusals.get() > 0, "the engine refused the kill");
        NodeHeartbeat sick = awaitHeartbeat(h -> h.getUnhealthy() != null, Duration.ofSeconds(20));
        assertEquals(0.0, sick.getFree().getCpu(), "an unhealthy node offers nothing");
        System.out.printf("unkillable container: attempt ended %d ms after submit (timeout 3 s + kill grace 5 s); node unhealthy: %s%n",
                endedMs, sick.getUnhealthy());

        // Work for this node waits while it is unhealthy, and runs once the engine lets the container go.
        TaskSpec next = task("next", "echo after the stuck one", 0.25, "32Mi");
        next.setNodeLabels(Map.of("kind", "stubborn"));
        JobSubmission waiting = job("after-unkillable", next);
        try (JobClient.ResultStream results = client.openResults()) {
            String jobId = client.submit(waiting);
            assertTrue(results.await(jobId, Duration.ofSeconds(8)).isEmpty(), "nothing runs on an unhealthy node");
            long released = System.nanoTime(), releasedAt = System.currentTimeMillis();
            engine.refusing = false;
            awaitHeartbeat(h -> h.getUnhealthy() == null && h.getSentAt() > releasedAt, Duration.ofSeconds(30));
            System.out.printf("stuck container removed and node healthy %d ms after the engine let it go%n",
                    (System.nanoTime() - released) / 1_000_000);
            JobResult after = results.await(jobId, Duration.ofSeconds(60)).orElseThrow(() -> new AssertionError("no result after recovery"));
            assertEquals(JobState.SUCCEEDED, after.getState(), () -> String.valueOf(after));
        }
        assertEquals("", containersOf(NODE), "no container of the stubborn node is left");
    }

    @Test
    @Order(2)
    void aCancelCompletesWhenTheEngineCannotKillTheContainer() throws Exception {
        TaskSpec endless = task("endless", "sleep 600", 0.25, "32Mi");
        endless.setNodeLabels(Map.of("kind", "stubborn"));
        try (TopicTail<TaskEvent> events = new TopicTail<>(stack.bootstrapServers(), client.topics().tasksEvents);
             JobClient.ResultStream results = client.openResults()) {
            engine.refusing = true;
            String jobId = client.submit(job("cancel-unkillable", endless));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.STARTED).isEmpty()
                    && System.nanoTime() < deadline) Thread.sleep(200);
            long cancelled = System.nanoTime();
            client.cancel(jobId, "the test cancels it");
            JobResult result = results.await(jobId, Duration.ofSeconds(60)).orElseThrow(() -> new AssertionError("cancel never completed"));
            assertEquals(JobState.CANCELLED, result.getState(), () -> String.valueOf(result));
            assertFalse(events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.CANCELLED
                    && e.getReason() != null && e.getReason().contains("did not stop the container within 5 s")).isEmpty(),
                    () -> "the node's CANCELLED event says the engine did not stop it: " + events.values(e -> e.getJobId().equals(jobId)));
            System.out.printf("cancel of an unkillable container completed in %d ms (kill grace 5 s)%n",
                    (System.nanoTime() - cancelled) / 1_000_000);
            awaitHeartbeat(h -> h.getUnhealthy() != null, Duration.ofSeconds(20));
            long released = System.currentTimeMillis();
            engine.refusing = false;
            awaitHeartbeat(h -> h.getUnhealthy() == null && h.getSentAt() > released, Duration.ofSeconds(30));
        }
        assertEquals("", containersOf(NODE), "no container of the stubborn node is left");
    }

    @Test
    @Order(3)
    void aForkBombStopsAtItsPidsLimitIsKilledAtItsTimeoutAndLeavesNothingBehind() throws Exception {
        // PID 1 starts its sleep before the bomb and then only waits (a builtin, no fork), so only the timeout ends it:
        // a fork after the bomb races it for the last pid and, when it loses, ends the task with the shell's exit 2.
        // 0.25 cpu gives the floor of 256 pids.
        TaskSpec bomb = task("bomb", "sleep 600 & b(){ b|b& }; b; wait", 0.25, "64Mi");
        bomb.setTimeout("10s");
        JobSubmission job = job("fork-bomb", bomb);
        long t0 = System.nanoTime();
        JobResult result = run(job, Duration.ofSeconds(90));
        long reportedMs = (System.nanoTime() - t0) / 1_000_000;
        TaskSummary t = result.getTasks().get(0);
        assertEquals(JobState.FAILED, result.getState(), () -> String.valueOf(result));
        assertEquals(FailureClass.TIMEOUT, t.getFailureClass(), t.getReason());
        assertTrue(t.getReason().contains("killed after its timeout of 10 s") && !t.getReason().contains("did not stop"),
                () -> "the engine stopped it, within the kill grace: " + t.getReason());
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String left;
        while (!(left = containersOfJob(result.getJobId())).isEmpty() && System.nanoTime() < deadline) Thread.sleep(200);
        assertEquals("", left, "the fork bomb's container is gone");
        System.out.printf("fork bomb: contained and reported FAILED/TIMEOUT %d ms after submit (timeout 10 s), container gone%n", reportedMs);
        NodeHeartbeat ranIt = awaitOtherHeartbeat(t.getNodeId(), Duration.ofSeconds(10));
        assertNull(ranIt.getUnhealthy(), "the node that ran it stays healthy");
    }

    @Test
    @Order(4)
    void aKillFromOutsideIsRetriedAsInfrastructureWhileAProgramThatKillsItsChildFailsAsItsOwn() throws Exception {
        TaskSpec victim = task("victim", "sleep 3", 0.25, "32Mi");
        victim.setNodeLabels(Map.of("kind", "stubborn"));
        TaskSpec own = task("own", "sleep 60 & kill -9 $!; wait $!", 0.25, "32Mi");
        own.setNodeLabels(Map.of("kind", "stubborn"));
        try (TopicTail<TaskEvent> events = new TopicTail<>(stack.bootstrapServers(), client.topics().tasksEvents);
             JobClient.ResultStream results = client.openResults()) {
            String jobId = client.submit(job("killed-from-outside", victim));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            List<TaskEvent> started;
            while ((started = events.values(e -> e.getJobId().equals(jobId) && e.getType() == TaskEventType.STARTED)).isEmpty()
                    && System.nanoTime() < deadline) Thread.sleep(100);
            String attemptId = started.get(0).getAttemptId();
            Process kill = new ProcessBuilder("docker", "kill", "flash-" + attemptId.replaceAll("[^a-zA-Z0-9_.-]", "_"))
                    .redirectErrorStream(true).start();
            assertEquals(0, kill.waitFor(), new String(kill.getInputStream().readAllBytes()));
            JobResult result = results.await(jobId, Duration.ofSeconds(90)).orElseThrow(() -> new AssertionError("no result"));
            assertEquals(JobState.SUCCEEDED, result.getState(), () -> String.valueOf(result));
            TaskSummary t = result.getTasks().get(0);
            assertEquals(1, t.getInfraFailures(), "the outside kill is the infrastructure's");
            assertEquals(0, t.getUserFailures(), "and costs the task none of its attempts");
            TaskEvent failed = events.values(e -> e.getAttemptId() != null && e.getAttemptId().equals(attemptId)
                    && e.getType() == TaskEventType.FAILED).get(0);
            assertEquals(FailureClass.INFRASTRUCTURE, failed.getFailureClass());
            assertTrue(failed.getReason().contains("killed from outside Flash (signal 9"), failed.getReason());

            String ownJob = client.submit(job("kills-its-child", own));
            JobResult mine = results.await(ownJob, Duration.ofSeconds(60)).orElseThrow(() -> new AssertionError("no result"));
            assertEquals(JobState.FAILED, mine.getState());
            assertEquals(FailureClass.USER, mine.getTasks().get(0).getFailureClass(), mine.getTasks().get(0).getReason());
            assertEquals(137, mine.getTasks().get(0).getExitCode());
        }
    }

    @Test
    @Order(5)
    void aRestartedNodeLeavesAnotherPlatformsContainerWithTheSameNodeIdAlone() throws Exception {
        String name = "flash-other-platform-" + UUID.randomUUID();
        Process create = new ProcessBuilder("docker", "create", "--name", name, "--label", "io.flash.node=" + NODE,
                "--label", "io.flash.attempt=other.job.t.1", "--label", "io.flash.job=other.job", "--label", "io.flash.task=other.job.t",
                "--label", "io.flash.platform=another-kafka-cluster", "flash/shell:1", "true").redirectErrorStream(true).start();
        assertEquals(0, create.waitFor(), new String(create.getInputStream().readAllBytes()));
        try {
            stack.kill(NODE);
            stack.startInstance(NODE, "executor", PORT, Map.of("FLASH_NODE_ID", NODE, "FLASH_DOCKER_HOST", engine.dockerHost(),
                    "FLASH_NODE_LABELS", "kind=stubborn", "FLASH_NODE_KILL_GRACE", "5s", "FLASH_NODE_CPU", "1", "FLASH_NODE_MEMORY", "1Gi"));
            stack.awaitReady(NODE, Duration.ofSeconds(120));
            Thread.sleep(3000); // reconciling happens before the node reports ready; give a late one time to show
            Process inspect = new ProcessBuilder("docker", "inspect", "-f", "{{.State.Status}}", name).redirectErrorStream(true).start();
            String status = new String(inspect.getInputStream().readAllBytes()).strip();
            inspect.waitFor();
            assertEquals("created", status, "the other platform's container was not started, reported or removed");
        } finally {
            new ProcessBuilder("docker", "rm", "-f", name).start().waitFor();
        }
    }

    private NodeHeartbeat awaitOtherHeartbeat(String node, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        long since = System.currentTimeMillis();
        while (System.nanoTime() < deadline) {
            List<NodeHeartbeat> seen = heartbeats.values(h -> h.getNodeId().equals(node) && h.getSentAt() >= since);
            if (!seen.isEmpty()) return seen.get(seen.size() - 1);
            Thread.sleep(200);
        }
        throw new AssertionError("no heartbeat of " + node + " within " + wait);
    }

    private static String containersOfJob(String jobId) throws Exception {
        Process ps = new ProcessBuilder("docker", "ps", "-aq", "--filter", "label=io.flash.job=" + jobId).redirectErrorStream(true).start();
        String out = new String(ps.getInputStream().readAllBytes()).strip();
        ps.waitFor();
        return out;
    }

    private NodeHeartbeat awaitHeartbeat(java.util.function.Predicate<NodeHeartbeat> condition, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            List<NodeHeartbeat> mine = heartbeats.values(h -> h.getNodeId().equals(NODE));
            if (!mine.isEmpty() && condition.test(mine.get(mine.size() - 1))) return mine.get(mine.size() - 1);
            Thread.sleep(200);
        }
        throw new AssertionError("no such heartbeat of " + NODE + " within " + wait + "; last: "
                + heartbeats.values(h -> h.getNodeId().equals(NODE)).stream().reduce((a, b) -> b).orElse(null));
    }

    static String containersOf(String node) throws Exception {
        Process ps = new ProcessBuilder("docker", "ps", "-aq", "--filter", "label=io.flash.node=" + node).redirectErrorStream(true).start();
        String out = new String(ps.getInputStream().readAllBytes()).strip();
        ps.waitFor();
        return out;
    }
}
