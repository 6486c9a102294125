package io.flash.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.common.client.JobClient;
import io.flash.schema.*;
import org.junit.jupiter.api.*;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.*;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/** Workflows on the real stack: DAGs, scatter/gather, retries, cancel, a planner crash, the status API. */
class WorkflowTest extends StackTest {

    private static TaskSpec depends(TaskSpec task, String... deps) {
        task.setDependsOn(List.of(deps));
        return task;
    }

    @Test
    void diamondRunsEachTaskAfterItsDependencies() throws Exception {
        JobResult result = run(job("diamond", task("a", "echo a", 0.25, "32Mi"),
                depends(task("b", "echo b", 0.25, "32Mi"), "a"), depends(task("c", "echo c", 0.25, "32Mi"), "a"),
                depends(task("d", "echo d", 0.25, "32Mi"), "b", "c")));
        assertEquals(JobState.SUCCEEDED, result.getState());
        Map<String, TaskSummary> t = new HashMap<>();
        result.getTasks().forEach(s -> t.put(s.getName(), s));
        assertTrue(t.get("b").getStartedAt() >= t.get("a").getFinishedAt());
        assertTrue(t.get("c").getStartedAt() >= t.get("a").getFinishedAt());
        assertTrue(t.get("d").getStartedAt() >= Math.max(t.get("b").getFinishedAt(), t.get("c").getFinishedAt()));
    }

    @Test
    void aFortyShardScatterWithAGather() throws Exception {
        TaskSpec compare = task("compare", "test $FLASH_SHARD_TO -eq $((FLASH_SHARD_FROM + 1))", 0.05, "8Mi");
        compare.setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo(40L).setShardSize(1).build());
        // 40 real containers (the engine here starts ~7 a second at best; ShortTaskOutputTest runs 131 more);
        // scatters of 500 shards run on simulated nodes in SimulatedNodesTest, of 1,000 and more in bench/run-control-plane.sh.
        JobResult result = run(job("scatter-40", compare, depends(task("gather", "echo gathered", 0.25, "32Mi"), "compare")),
                Duration.ofMinutes(10));
        assertEquals(JobState.SUCCEEDED, result.getState(), () -> String.valueOf(result.getReason()));
        TaskSummary shards = result.getTasks().get(0);
        assertEquals(40, shards.getShards());
        assertEquals(40, shards.getShardsSucceeded());
        assertEquals(TaskState.SUCCEEDED, result.getTasks().get(1).getState());
    }

    @Test
    void retryableExitCodeIsRetriedThenSucceeds() throws Exception {
        TaskSpec flaky = task("flaky", "case $FLASH_ATTEMPT_ID in *.1) echo first try fails; exit 75;; esac; echo second try works", 0.25, "32Mi");
        flaky.setMaxAttempts(3);
        flaky.setRetryOnExitCodes(List.of(75));
        JobResult result = run(job("retry", flaky));
        assertEquals(JobState.SUCCEEDED, result.getState());
        assertEquals(2, result.getTasks().get(0).getAttempts());
        assertTrue(result.getTasks().get(0).getStdoutTail().contains("second try works"));
    }

    @Test
    void nonRetryableExitCodeFailsTheJobAtOnce() throws Exception {
        TaskSpec fatal = task("fatal", "exit 2", 0.25, "32Mi");
        fatal.setMaxAttempts(3);
        fatal.setFailOnExitCodes(List.of(2));
        JobResult result = run(job("fatal", fatal));
        assertEquals(JobState.FAILED, result.getState());
        assertEquals(2, result.getExitCode());
        assertEquals(1, result.getTasks().get(0).getAttempts());
        assertTrue(result.getReason().contains("failOnExitCodes"), result.getReason());
    }

    @Test
    void cancelKillsTheRunningContainer() throws Exception {
        JobSubmission job = job("cancel-me", task("sleeper", "sleep 300", 0.25, "32Mi"),
                depends(task("never", "echo never", 0.25, "32Mi"), "sleeper"));
        String jobId = client.submit(job);
        awaitFirstTask(jobId, "RUNNING");
        assertEquals(1, containersOf(jobId), "the sleeper runs in a container");
        long cancelAt = System.nanoTime();
        client.cancel(jobId, "e2e test");
        JobResult result = client.awaitOutcome(job.getSubmissionId(), Duration.ofSeconds(60)).orElseThrow().result();
        double seconds = (System.nanoTime() - cancelAt) / 1e9;
        assertEquals(JobState.CANCELLED, result.getState());
        assertEquals("cancelled: e2e test", result.getReason());
        assertTrue(seconds < 15, "cancelled in " + seconds + " s");
        assertEquals(0, containersOf(jobId), "no container of the job is left");
    }

    @Test
    void statusApiServesJobsAndTakesSubmissions() throws Exception {
        HttpResponse<String> posted = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs"))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString("""
                        name: posted
                        owner: api-user
                        tasks:
                          - name: hi
                            image: flash/shell:1
                            command: echo posted
                            resources: {cpu: 0.25, memory: 32Mi}
                        """)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(202, posted.statusCode(), posted.body());
        String jobId = json.readTree(posted.body()).get("jobId").asText();
        JsonNode page = awaitJobState(jobId, "SUCCEEDED", Duration.ofSeconds(60));
        assertEquals("posted", page.get("job").get("name").asText());
        assertEquals("SUCCEEDED", page.get("tasks").get(0).get("state").asText());

        JsonNode mine = json.readTree(http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs?owner=api-user&state=succeeded"))
                .build(), HttpResponse.BodyHandlers.ofString()).body());
        assertEquals(jobId, mine.get(0).get("jobId").asText());
        HttpResponse<String> missing = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs/job-nope")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, missing.statusCode());
        HttpResponse<String> bad = http.send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs"))
                .POST(HttpRequest.BodyPublishers.ofString("name: x\ntasks:\n  - name: a\n    imag: typo\n")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().contains("tasks[0].imag: unknown field"), bad.body());
    }

    @Test
    void theSameSubmissionIdRunsOnce() throws Exception {
        JobSubmission first = job("once", task("a", "echo once", 0.25, "32Mi"));
        JobResult result = run(first);
        JobSubmission again = job("once", task("a", "echo once", 0.25, "32Mi"));
        again.setSubmissionId(first.getSubmissionId());
        String jobId = client.submit(again);
        assertEquals(result.getJobId(), jobId, "the same submission id names the same job");
        JsonNode page = awaitMessage(jobId, "was seen before", Duration.ofSeconds(30));
        assertEquals("SUCCEEDED", page.get("job").get("state").asText());
    }

    @Test
    void memoryLeftOutIsEstimatedFromWhatEarlierRunsUsed() throws Exception {
        TaskSpec first = task("measured", "sleep 2; echo done", 0.25, null);
        first.getResources().setMemory(null);
        TaskSummary before = run(job("estimate-1", first)).getTasks().get(0);
        assertNotNull(before.getPeakMemoryBytes(), "the executor measured the container's peak memory");
        assertTrue(before.getPeakMemoryBytes() > 0);
        assertTrue(before.getResourceSource().startsWith("default memory 512Mi"), before.getResourceSource());

        Thread.sleep(3000); // the estimate travels planner -> observations -> estimator -> estimates -> global store
        TaskSpec second = task("measured", "sleep 2; echo done", 0.25, null);
        second.getResources().setMemory(null);
        TaskSummary after = run(job("estimate-2", second)).getTasks().get(0);
        assertTrue(after.getResourceSource().startsWith("estimated from 1 earlier runs"), after.getResourceSource());
        assertEquals(Math.max(16L << 20, (long) (before.getPeakMemoryBytes() * 1.2)), after.getMemoryBytes() == null
                ? -1 : after.getMemoryBytes(), "memory = peak + 20 % (at least 16Mi)");
    }

    private JsonNode awaitJobState(String jobId, String state, Duration timeout) throws Exception {
        return awaitPage(jobId, p -> state.equals(p.get("job").get("state").asText()), timeout, "job state " + state);
    }

    private JsonNode awaitMessage(String jobId, String text, Duration timeout) throws Exception {
        return awaitPage(jobId, p -> p.get("job").get("message").asText("").contains(text), timeout, "message " + text);
    }

    private static int containersOf(String jobId) throws Exception {
        Process p = new ProcessBuilder("docker", "ps", "-aq", "--filter", "label=io.flash.job=" + jobId).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        p.waitFor();
        return out.isEmpty() ? 0 : out.split("\\s+").length;
    }
}
