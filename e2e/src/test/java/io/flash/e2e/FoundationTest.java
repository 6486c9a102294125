package io.flash.e2e;

import io.flash.common.client.JobClient;
import io.flash.common.topics.TopicNames;
import io.flash.schema.*;
import org.junit.jupiter.api.*;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;

/**
 * One job through all five services on a real broker, the real registry and the real Docker engine;
 * and bad input that is rejected with its field while the next good job still runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FoundationTest {

    private static final Duration RESULT_TIMEOUT = Duration.ofSeconds(90);
    private FlashStack stack;
    private JobClient client;

    @BeforeAll
    void startPlatform() throws Exception {
        stack = FlashStack.shared();
        client = new JobClient(stack.bootstrapServers(), stack.registryUrl());
    }

    @AfterAll
    void stopPlatform() throws Exception {
        if (client != null) client.close();
    }

    @Test
    @Order(1)
    void helloJobSucceedsInsideItsLimits() throws Exception {
        // The task prints its own cgroup limits (v2 files, else v1), so the limits are checked from inside.
        JobSubmission job = job("hello", task("hello",
                "echo hello; "
                        + "cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes; "
                        + "cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)",
                0.5, "64Mi"));
        JobResult result = awaitResult(job);

        assertEquals(JobState.SUCCEEDED, result.getState(), () -> "result: " + result);
        assertEquals(0, result.getExitCode());
        TaskSummary task = result.getTasks().get(0);
        assertEquals(TaskState.SUCCEEDED, task.getState());
        assertEquals("ecs", task.getFrameworkId());
        assertEquals("e2e-node-1", task.getNodeId());
        List<String> lines = task.getStdoutTail().lines().toList();
        assertEquals(List.of("hello", Long.toString(64L << 20), "50000 100000"), lines,
                "stdout shows the greeting, a 64 MiB memory limit and half a core");
    }

    @Test
    @Order(2)
    void failingTaskFailsTheJobWithItsExitCode() throws Exception {
        JobResult result = awaitResult(job("exit-three", task("broken", "echo about to fail; exit 3", 0.5, "64Mi")));

        assertEquals(JobState.FAILED, result.getState());
        assertEquals(3, result.getExitCode());
        assertTrue(result.getReason().contains("exit code 3"), result.getReason());
        TaskSummary task = result.getTasks().get(0);
        assertEquals(FailureClass.USER, task.getFailureClass());
        assertTrue(task.getStdoutTail().contains("about to fail"));
    }

    @Test
    @Order(3)
    void badInputIsRejectedByFieldAndTheNextGoodJobStillRuns() throws Exception {
        client.submitRaw("not-avro-1", "this is not avro".getBytes(StandardCharsets.UTF_8));
        client.submitRaw("not-avro-2", new byte[]{0, 0, 0, 0x7f, 0x11, 1, 2, 3}); // wire-format header, unknown schema id

        JobSubmission noTasks = JobSubmission.newBuilder().setSubmissionId("no-tasks").setName("empty").setTasks(List.of()).build();
        TaskSpec bad = task("bad", "true", -1.0, "64Mi");
        bad.setImage("");
        bad.setDependsOn(List.of("ghost"));
        JobSubmission badTask = job("bad-task", bad);
        badTask.setSubmissionId("bad-task");
        client.submit(noTasks);
        client.submit(badTask);

        JobSubmission good = job("after-the-bad-ones", task("fine", "echo still running", 0.25, "32Mi"));
        JobResult result = awaitResult(good);
        assertEquals(JobState.SUCCEEDED, result.getState(), "ingest kept consuming after the bad records");

        Map<String, JobRejected> rejections = new HashMap<>();
        for (JobRejected r : client.rejections(Duration.ofSeconds(30), 4)) {
            rejections.put(r.getSubmissionId(), r);
        }
        assertFields(rejections.get("not-avro-1"), "(record)");
        assertTrue(rejections.get("not-avro-1").getReasons().get(0).getReason().contains("not Avro"));
        assertFields(rejections.get("not-avro-2"), "(record)");
        assertFields(rejections.get("no-tasks"), "tasks");
        assertFields(rejections.get("bad-task"), "tasks[0].image", "tasks[0].resources.cpu", "tasks[0].dependsOn[0]");
        assertEquals(TopicNames.JOBS_SUBMITTED, rejections.get("bad-task").getSourceTopic());
    }

    @Test
    @Order(4)
    void everyServiceReportsHealthAndPrometheusMetrics() throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        for (String service : FlashStack.SERVICES) {
            var health = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(stack.httpUrl(service) + "/q/health")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), service + ": " + health.body());
            var metrics = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(stack.httpUrl(service) + "/q/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, metrics.statusCode(), service);
            assertTrue(metrics.body().contains("kafka_"), service + " exposes Kafka client metrics");
        }
    }

    private static void assertFields(JobRejected rejected, String... fields) {
        assertNotNull(rejected, "expected a rejection for " + Arrays.toString(fields));
        Set<String> actual = new TreeSet<>();
        rejected.getReasons().forEach(r -> actual.add(r.getField()));
        assertEquals(new TreeSet<>(List.of(fields)), actual, () -> "reasons: " + rejected.getReasons());
        rejected.getReasons().forEach(r -> assertFalse(r.getReason().isBlank()));
    }

    private JobResult awaitResult(JobSubmission job) throws Exception {
        client.submit(job);
        JobClient.Outcome outcome = client.awaitOutcome(job.getSubmissionId(), RESULT_TIMEOUT)
                .orElseThrow(() -> new AssertionError("no result for " + job.getName() + " within " + RESULT_TIMEOUT
                        + "; service logs in " + stack.logs()));
        assertNull(outcome.rejected(), () -> "rejected: " + outcome.rejected());
        return outcome.result();
    }

    static JobSubmission job(String name, TaskSpec... tasks) {
        return JobSubmission.newBuilder().setSubmissionId(name + "-" + UUID.randomUUID()).setName(name).setOwner("e2e")
                .setTasks(new ArrayList<>(List.of(tasks))).build();
    }

    static TaskSpec task(String name, String shell, double cpu, String memory) {
        return TaskSpec.newBuilder().setName(name).setImage("flash/shell:1").setShell(shell)
                .setResources(ResourceRequest.newBuilder().setCpu(cpu).setMemory(memory).build()).build();
    }
}
