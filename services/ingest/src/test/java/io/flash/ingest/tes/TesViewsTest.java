package io.flash.ingest.tes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.common.testing.TesSchema;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.flash.common.testing.TesSchema.Shape.task;
import static io.flash.common.testing.TesSchema.Shape.taskMinimal;
import static org.junit.jupiter.api.Assertions.*;

class TesViewsTest {

    private static final String DOCUMENT = """
            {"name": "two-steps", "description": "first fails, ignored", "tags": {"run": "r1", "empty": ""},
             "resources": {"cpu_cores": 1, "ram_gb": 0.25, "backend_parameters": {"VmSize": "x"}},
             "executors": [{"image": "flash/shell:1", "command": ["sh", "-c", "exit 3"], "ignore_error": true},
                           {"image": "flash/shell:1", "command": ["echo", "hi"], "env": {"A": "1"}}]}""";

    private static JobStatus status(JobState state, String message) throws Exception {
        var translation = TesTranslator.translate(new ObjectMapper().readValue(DOCUMENT, TesModel.Task.class), "sub", "tes");
        assertEquals(List.of(), translation.errors());
        return JobStatus.newBuilder().setJobId("job1").setName("two-steps").setOwner("tes").setState(state).setTasksTotal(2)
                .setMessage(message).setUpdatedAt(5_000L).setAcceptedAt(1_764_583_200_000L)
                .setLabels(translation.submission().getLabels()).build();
    }

    private static TaskSummary executor(int i, TaskState state, Integer exit, FailureClass failure, String tail) {
        return TaskSummary.newBuilder().setName("exec-" + i).setTaskId("job1.exec-" + i).setState(state).setAttempts(1)
                .setInfraFailures(i == 1 ? 1 : 0).setExitCode(exit).setFailureClass(failure)
                .setReason(exit != null && exit != 0 ? "failed with exit code " + exit : null)
                .setFrameworkId("ecs").setNodeId("node-" + i).setStartedAt(1_764_583_201_000L + i * 1000)
                .setFinishedAt(exit == null ? null : 1_764_583_201_500L + i * 1000).setStdoutTail(tail).build();
    }

    private final List<TaskSummary> done = List.of(executor(0, TaskState.FAILED, 3, FailureClass.USER, "oops"),
            uploaded(executor(1, TaskState.SUCCEEDED, 0, null, "hi\n")));

    private static TaskSummary uploaded(TaskSummary summary) {
        summary.setOutputs(List.of("s3://out/result.txt <- /vol/result.txt (42 bytes)", "declared.txt (3 bytes)"));
        return summary;
    }

    @Test
    void minimalIsTheIdAndTheState() throws Exception {
        JsonNode minimal = TesSchema.check(taskMinimal, TesViews.render(status(JobState.SUCCEEDED, null), done, TesViews.View.MINIMAL));
        assertEquals("{\"id\":\"job1\",\"state\":\"COMPLETE\"}", minimal.toString());
    }

    @Test
    void basicIsTheDocumentAsSentWithLogsButNoOutputOrSystemLogs() throws Exception {
        JsonNode basic = TesSchema.check(task, TesViews.render(status(JobState.SUCCEEDED, "done"), done, TesViews.View.BASIC));
        assertEquals("two-steps", basic.get("name").asText());
        assertEquals("first fails, ignored", basic.get("description").asText());
        assertEquals("{\"run\":\"r1\",\"empty\":\"\"}", basic.get("tags").toString(), "as the client sent them");
        assertFalse(basic.get("resources").get("backend_parameters").has("VmSize"), "not stored, not returned");
        assertEquals("2025-12-01T10:00:00Z", basic.get("creation_time").asText());
        JsonNode log = basic.get("logs").get(0);
        assertEquals(List.of(3, 0), List.of(log.get("logs").get(0).get("exit_code").asInt(), log.get("logs").get(1).get("exit_code").asInt()));
        assertFalse(log.get("logs").get(0).has("stdout"));
        assertFalse(log.has("system_logs"));
        assertEquals("[{\"url\":\"s3://out/result.txt\",\"path\":\"/vol/result.txt\",\"size_bytes\":\"42\"}]",
                log.get("outputs").toString(), "the uploads, as the executor reported them");
        assertEquals("2025-12-01T10:00:01Z", log.get("start_time").asText());
        assertEquals("2025-12-01T10:00:02.500Z", log.get("end_time").asText());
    }

    @Test
    void fullAddsTheOutputTailsAndFlashsReasons() throws Exception {
        JsonNode full = TesSchema.check(task, TesViews.render(status(JobState.SUCCEEDED, "done; failures ignored"), done, TesViews.View.FULL));
        JsonNode log = full.get("logs").get(0);
        assertEquals("oops", log.get("logs").get(0).get("stdout").asText());
        assertEquals("hi\n", log.get("logs").get(1).get("stdout").asText());
        String system = log.get("system_logs").toString();
        assertTrue(system.contains("backend_parameters unknown to Flash, ignored: VmSize"), system);
        assertTrue(system.contains("exec-0: failed with exit code 3 [USER] on node node-0 of framework ecs"), system);
        assertTrue(system.contains("exec-1: 1 attempt(s) lost to the infrastructure and retried"), system);
        assertEquals(Map.of("framework", "ecs", "node", "node-1", "flash_job", "job1"),
                new ObjectMapper().convertValue(log.get("metadata"), Map.class));
    }

    @Test
    void anExecutorServedFromTheCacheNamesItsSourceInSystemLogs() throws Exception {
        TaskSummary cached = executor(0, TaskState.SUCCEEDED, 0, null, "");
        cached.setCachedFrom("job-0f3a.exec-0.1");
        List<TaskSummary> executors = List.of(cached, executor(1, TaskState.SUCCEEDED, 0, null, "hi\n"));
        JsonNode full = TesSchema.check(task, TesViews.render(status(JobState.SUCCEEDED, null), executors, TesViews.View.FULL));
        String system = full.get("logs").get(0).get("system_logs").toString();
        assertTrue(system.contains("exec-0: served from the cache: the outputs of attempt job-0f3a.exec-0.1 (job job-0f3a), not run again"), system);
        assertFalse(system.contains("exec-1: served"), system);
    }

    @Test
    void aRunningExecutorHasNoLogYetAndARunningTaskNoEndTime() throws Exception {
        List<TaskSummary> running = List.of(executor(0, TaskState.SUCCEEDED, 0, null, "a"), executor(1, TaskState.RUNNING, null, null, null));
        JsonNode full = TesSchema.check(task, TesViews.render(status(JobState.RUNNING, null), running, TesViews.View.FULL));
        assertEquals("RUNNING", full.get("state").asText());
        JsonNode log = full.get("logs").get(0);
        assertEquals(1, log.get("logs").size(), "the spec requires an exit code in an executor log");
        assertFalse(log.has("end_time"));
        JsonNode queued = TesSchema.check(task, TesViews.render(status(JobState.ACCEPTED, null), List.of(), TesViews.View.BASIC));
        assertEquals(0, queued.get("logs").size());
    }

    @Test
    void anExecutorWhoseContainerNeverStartedHasItsLogInItsPlaceAndItsReasonInSystemLogs() throws Exception {
        TaskSummary unstartable = TaskSummary.newBuilder().setName("exec-0").setTaskId("job1.exec-0").setState(TaskState.FAILED)
                .setAttempts(1).setFailureClass(FailureClass.USER).setFrameworkId("ecs").setNodeId("node-0")
                .setReason("the engine could not start the container: exec: \"ERROR\": executable file not found in $PATH")
                .setFinishedAt(1_764_583_201_000L).build();
        JsonNode alone = TesSchema.check(task, TesViews.render(status(JobState.FAILED, "exec-0 failed"), List.of(unstartable),
                TesViews.View.FULL)).get("logs");
        assertEquals(1, alone.size(), "a task that was attempted has its TaskLog");
        assertEquals(TesViews.NEVER_RAN, alone.get(0).get("logs").get(0).get("exit_code").asInt());
        assertTrue(alone.get(0).get("system_logs").toString().contains("exec-0: the engine could not start the container: exec: "
                + "\\\"ERROR\\\": executable file not found in $PATH [USER] on node node-0 of framework ecs"), alone.toString());
        // ignore_error: the first cannot start, the second runs — entry 0 is still executor 0's
        JsonNode both = TesSchema.check(task, TesViews.render(status(JobState.SUCCEEDED, null),
                List.of(unstartable, executor(1, TaskState.SUCCEEDED, 0, null, "hi\n")), TesViews.View.FULL)).get("logs").get(0).get("logs");
        assertEquals(List.of(TesViews.NEVER_RAN, 0), List.of(both.get(0).get("exit_code").asInt(), both.get(1).get("exit_code").asInt()));
        assertEquals("hi\n", both.get(1).get("stdout").asText());
    }

    /** The spec's own table for tag_key / tag_value. */
    @Test
    void tagFiltersMatchAsTheSpecsTableSays() {
        assertTrue(TesResource.tagsMatch(Map.of("foo", "bar"), Map.of("foo", "bar")));
        assertFalse(TesResource.tagsMatch(Map.of("foo", "bat"), Map.of("foo", "bar")));
        assertTrue(TesResource.tagsMatch(Map.of("foo", ""), Map.of("foo", "")));
        assertTrue(TesResource.tagsMatch(Map.of("foo", "bar", "baz", "bat"), Map.of("foo", "bar", "baz", "bat")));
        assertTrue(TesResource.tagsMatch(Map.of("foo", "bar", "baz", "bat"), Map.of("foo", "bar")));
        assertFalse(TesResource.tagsMatch(Map.of("foo", "bar"), Map.of("foo", "bar", "baz", "bat")));
        assertTrue(TesResource.tagsMatch(Map.of("foo", "bar"), Map.of("foo", "")));
        assertFalse(TesResource.tagsMatch(Map.of(), Map.of("foo", "")));
    }
}
