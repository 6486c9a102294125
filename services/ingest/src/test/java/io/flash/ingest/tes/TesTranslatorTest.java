package io.flash.ingest.tes;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.ingest.validation.JobValidator;
import io.flash.ingest.validation.Limits;
import io.flash.ingest.validation.ValidationResult;
import io.flash.schema.JobSubmission;
import io.flash.schema.TaskDefinition;
import io.flash.schema.TaskSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class TesTranslatorTest {

    private final ObjectMapper json = new ObjectMapper();

    private TesTranslator.Translation translate(String body) throws Exception {
        return TesTranslator.translate(json.readValue(body, TesModel.Task.class), "sub-1", "tes");
    }

    @Test
    void executorsRunInOrderAsOneJobAndPassFlashsOwnValidation() throws Exception {
        var t = translate("""
                {"name": "md5", "description": "checksums", "tags": {"WORKFLOW_ID": "cwl-01234"},
                 "resources": {"cpu_cores": 2, "ram_gb": 0.5, "disk_gb": 10, "zones": ["lab-a"],
                               "backend_parameters": {"DISK_TYPE": "ssd", "node_label.kind": "big", "queue": "batch"}},
                 "executors": [
                   {"image": "flash/shell:1", "command": ["sh", "-c", "echo a > /workspace/a"], "env": {"X": "1"}, "workdir": "/workspace"},
                   {"image": "flash/tools:1", "command": ["md5sum", "/workspace/a"]}],
                 "id": "ignored", "state": "COMPLETE"}
                """);
        assertEquals(List.of(), t.errors());
        JobSubmission job = t.submission();
        assertEquals("md5", job.getName());
        assertEquals("batch", job.getQueue());
        assertEquals(java.util.Set.of("WORKFLOW_ID", TesTranslator.TASK_LABEL), job.getLabels().keySet(), "the tags, and the kept document");
        assertEquals("cwl-01234", job.getLabels().get("WORKFLOW_ID"));
        List<TaskSpec> tasks = job.getTasks();
        assertEquals(List.of("exec-0", "exec-1"), tasks.stream().map(TaskSpec::getName).toList());
        assertEquals(List.of("exec-0"), tasks.get(1).getDependsOn(), "the second runs after the first");
        assertEquals(List.of("md5sum", "/workspace/a"), tasks.get(1).getCommand());

        ValidationResult validated = new JobValidator(Limits.defaults()).validate(job, "job-1", "sub-1", 1L);
        assertTrue(validated.isAccepted(), () -> String.valueOf(validated.errors()));
        TaskDefinition first = validated.accepted().getTasks().get(0);
        assertEquals(2.0, first.getResources().getCpu());
        assertEquals(500_000_000L, first.getResources().getMemoryBytes(), "0.5 GB is 5 * 10^8 bytes");
        assertEquals(10_000_000_000L, first.getResources().getDiskBytes());
        assertEquals(Map.of("kind", "big", "zone", "lab-a"), first.getNodeLabels());
        assertEquals(1, first.getMaxAttempts(), "an executor's non-zero exit is the task's error");
    }

    @Test
    void whatFlashCannotRunYetIsRefusedByFieldNotDropped() throws Exception {
        var t = translate("""
                {"inputs": [{"path": "/data/a", "content": "x"}], "outputs": [{"path": "/data/b", "url": "s3://b/b"}],
                 "volumes": ["/vol"],
                 "executors": [{"image": "alpine", "command": ["cat"], "stdin": "/data/a", "stdout": "/tmp/o"}]}
                """);
        assertNull(t.submission());
        assertEquals(List.of("inputs: not supported by Flash yet (see docs/tes.md)", "outputs: not supported by Flash yet (see docs/tes.md)",
                "volumes: not supported by Flash yet (see docs/tes.md)", "executors[0].stdin: redirection is not supported by Flash yet",
                "executors[0].stdout: redirection is not supported by Flash yet"),
                t.errors());
    }

    @Test
    void ignoreErrorLetsTheNextExecutorRunAndTheDocumentIsKeptWithoutUnknownParameters() throws Exception {
        var t = translate("""
                {"name": "two", "tags": {"run": "r1"},
                 "resources": {"backend_parameters": {"VmSize": "big", "disk_type": "ssd"}},
                 "executors": [{"image": "alpine", "command": ["false"], "ignore_error": true},
                               {"image": "alpine", "command": ["true"]}]}
                """);
        assertEquals(List.of(), t.errors());
        List<io.flash.schema.TaskSpec> tasks = t.submission().getTasks();
        assertTrue(tasks.get(0).getContinueOnFailure());
        assertFalse(tasks.get(1).getContinueOnFailure());
        Map<String, String> labels = t.submission().getLabels();
        assertEquals("r1", labels.get("run"), "tags are labels as they are");
        var kept = new com.fasterxml.jackson.databind.ObjectMapper().readTree(labels.get(TesTranslator.TASK_LABEL));
        assertEquals("two", kept.get("name").asText());
        assertEquals("{\"disk_type\":\"ssd\"}", kept.get("resources").get("backend_parameters").toString(),
                "a key Flash does not know is neither stored nor returned");
        assertTrue(kept.get("executors").get(0).get("ignore_error").asBoolean());
        assertEquals("backend_parameters unknown to Flash, ignored: VmSize", labels.get(TesTranslator.WARNINGS_LABEL));
    }

    @Test
    void aTaskDocumentOverTheKeptLimitIsRefused() throws Exception {
        String big = "x".repeat(TesTranslator.MAX_TASK_DOCUMENT_BYTES);
        var t = translate("{\"executors\": [{\"image\": \"alpine\", \"command\": [\"echo\", \"" + big + "\"]}]}");
        assertNull(t.submission());
        assertTrue(t.errors().get(0).startsWith("(body): the task document is over 64 KiB"), t.errors().toString());
    }

    @Test
    void missingFieldsAndBadResourcesNameTheirPath() throws Exception {
        var t = translate("""
                {"executors": [{"command": ["true"]}, {"image": "alpine"}],
                 "resources": {"cpu_cores": 0, "ram_gb": -1, "zones": ["a", "b"], "backend_parameters": {"gpus": "two"}}}
                """);
        assertEquals(List.of("resources.cpu_cores: must be 1 or more, not 0", "resources.ram_gb: must be more than 0, not -1.0",
                "resources.zones: Flash can honour one zone (the node label zone), not 2",
                "resources.backend_parameters.gpus: must be a whole number, not 'two'",
                "executors[0].image: required (the container image)", "executors[1].command: required (the program and its arguments)"),
                t.errors());
        assertEquals(List.of("executors: at least one executor is required"), translate("{\"executors\": []}").errors());
    }

    @Test
    void unknownBackendParametersAreDroppedUnlessStrict() throws Exception {
        String task = """
                {"executors": [{"image": "alpine", "command": ["true"]}],
                 "resources": {"backend_parameters": {"VmSize": "Standard_D64_v3"}, "backend_parameters_strict": %s}}
                """;
        var lenient = translate(task.formatted("false"));
        assertEquals(List.of(), lenient.errors());
        assertEquals(List.of("VmSize"), lenient.dropped());
        var strict = translate(task.formatted("true"));
        assertEquals(1, strict.errors().size());
        assertTrue(strict.errors().get(0).startsWith("resources.backend_parameters.VmSize: unknown to Flash"), strict.errors().get(0));
    }
}
