package io.flash.ingest.tes;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.ingest.core.validation.JobValidator;
import io.flash.ingest.core.validation.Limits;
import io.flash.ingest.core.validation.ValidationResult;
import io.flash.schema.JobSubmission;
import io.flash.schema.TaskDefinition;
import io.flash.schema.TaskSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

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
    void filesMirrorTheirContainerPathsInTheWorkspace() throws Exception {
        var t = translate("""
                {"inputs": [{"path": "/data/in/a.txt", "content": "x"}, {"path": "/ref/genome.fa", "url": "s3://refs/genome.fa"},
                            {"path": "/vol/seed", "url": "/shared/seed"}, {"path": "/db", "url": "s3://refs/db/", "type": "DIRECTORY"}],
                 "outputs": [{"path": "/vol/result.txt", "url": "s3://out/result.txt"},
                             {"path": "/out/reports/*.html", "path_prefix": "/out/reports", "url": "s3://out/reports/"}],
                 "volumes": ["/vol"],
                 "executors": [{"image": "alpine", "command": ["true"], "stdout": "/logs/0.out"},
                               {"image": "alpine", "command": ["true"]}]}
                """);
        assertEquals(List.of(), t.errors());
        TaskSpec first = t.submission().getTasks().get(0), last = t.submission().getTasks().get(1);
        assertEquals(List.of("/logs rw tes/fs/logs", "/out/reports rw tes/fs/out/reports", "/vol rw tes/fs/vol",
                        "/data/in/a.txt ro tes/fs/data/in/a.txt", "/ref/genome.fa ro tes/fs/ref/genome.fa", "/db ro tes/fs/db"),
                first.getMounts().stream().map(m -> m.getPath() + (m.getReadOnly() ? " ro " : " rw ") + m.getSource()).toList(),
                "writable directories first (outermost only), then each input outside them, read only");
        assertEquals(first.getMounts(), last.getMounts(), "every executor sees the same files");
        assertEquals(List.of("content -> tes/fs/data/in/a.txt", "s3://refs/genome.fa -> tes/fs/ref/genome.fa",
                        "file:///shared/seed -> tes/fs/vol/seed", "s3://refs/db/ -> tes/fs/db (dir)"),
                first.getFetches().stream().map(f -> (f.getContent() != null ? "content" : f.getUrl()) + " -> " + f.getTo()
                        + (f.getDirectory() ? " (dir)" : "")).toList());
        assertEquals(List.of(), first.getUploads(), "outputs are uploaded after the last executor");
        assertEquals(List.of("tes/fs/vol/result.txt -> s3://out/result.txt", "tes/fs/out/reports/*.html -> s3://out/reports/ cut tes/fs/out/reports"),
                last.getUploads().stream().map(u -> u.getFrom() + " -> " + u.getUrl() + (u.getPrefix() == null ? "" : " cut " + u.getPrefix())).toList());
        assertEquals("tes/fs/logs/0.out", first.getStdoutTo());
        ValidationResult checked = new JobValidator(Limits.defaults()).validate(t.submission(), "job-1", "sub-1", 1L);
        assertTrue(checked.isAccepted(), () -> checked.errors().toString());
    }

    @Test
    void fileUrlsOutsideTheSharedRootAreRefusedAtCreateNamingTheField() throws Exception {
        TesModel.Task task = json.readValue("""
                {"inputs": [{"path": "/in/a", "url": "file:///shared/work/a"}, {"path": "/in/b", "url": "/etc/passwd"},
                            {"path": "/in/c", "content": "inline"}, {"path": "/in/d", "url": "s3://refs/d"}],
                 "outputs": [{"path": "/out/x", "url": "file:///shared/work/../../etc/x"}, {"path": "/out/y", "url": "file:///shared/y"}],
                 "executors": [{"image": "flash/shell:1", "command": ["true"]}]}""", TesModel.Task.class);
        List<String> errors = TesFiles.outsideSharedRoots(task, List.of("s3://", "file:///shared"));
        assertEquals(2, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("inputs[1].url: /etc/passwd is outside the nodes' shared root /shared"), errors.get(0));
        assertTrue(errors.get(1).startsWith("outputs[0].url: /etc/x is outside"), errors.get(1));
        assertEquals(List.of(), TesFiles.outsideSharedRoots(task, List.of("file:///")), "everything lies under /");
    }

    @Test
    void relativePathsMissingUrlsAndStdinAreRefusedByField() throws Exception {
        var t = translate("""
                {"inputs": [{"path": "data/a", "content": "x"}, {"path": "/b"}],
                 "outputs": [{"path": "/out/*.txt", "url": "s3://b/o/"}, {"path": "/c"}],
                 "volumes": ["/"],
                 "executors": [{"image": "alpine", "command": ["cat"], "stdin": "/data/a"}]}
                """);
        assertNull(t.submission());
        assertEquals(List.of("executors[0].stdin: not supported by Flash yet (docs/tes.md)",
                "volumes[0]: '/' is the container's root, not a file or directory Flash can give it",
                "outputs[0].path_prefix: required (an absolute path in the container)",
                "outputs[1].url: required (where the output goes: s3://… or file://…)",
                "inputs[0].path: 'data/a' must be an absolute path in the container",
                "inputs[1]: give its url or its content"), t.errors());
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
        String big = "x".repeat(TesTranslator.MAX_BARE_DOCUMENT_BYTES);
        var t = translate("{\"executors\": [{\"image\": \"alpine\", \"command\": [\"echo\", \"" + big + "\"]}]}");
        assertNull(t.submission());
        assertTrue(t.errors().get(0).startsWith("(body): the task document is over 64 KiB"), t.errors().toString());
    }

    @Test
    void inlineContentUpToTheLimitIsKeptWholeForFullAndOneByteMoreIsRefusedByItsField() throws Exception {
        for (int bytes : new int[]{TesFiles.MAX_CONTENT_BYTES - 1, TesFiles.MAX_CONTENT_BYTES}) {
            var t = translate(withContents("a".repeat(bytes)));
            assertEquals(List.of(), t.errors(), bytes + " bytes");
            var kept = new com.fasterxml.jackson.databind.ObjectMapper().readTree(t.submission().getLabels().get(TesTranslator.TASK_LABEL));
            assertEquals(bytes, kept.get("inputs").get(0).get("content").asText().length(), "FULL has all of it");
            assertFalse(t.submission().getLabels().containsKey(TesTranslator.CONTENT_DROPPED_LABEL));
        }
        var over = translate(withContents("a".repeat(TesFiles.MAX_CONTENT_BYTES + 1)));
        assertNull(over.submission());
        assertEquals(List.of("inputs[0].content: 131073 bytes; a task's inline contents may hold at most 131072 bytes in all"
                + " (docs/tes.md); give a larger file by its url"), over.errors());
        var second = translate(withContents("a".repeat(100_000), "b".repeat(40_000)));
        assertEquals(List.of("inputs[1].content: 40000 bytes (140000 with the inputs before it); a task's inline contents may hold"
                + " at most 131072 bytes in all (docs/tes.md); give a larger file by its url"), second.errors());
    }

    private static String withContents(String... contents) {
        StringBuilder inputs = new StringBuilder();
        for (int i = 0; i < contents.length; i++) {
            if (i > 0) inputs.append(", ");
            inputs.append("{\"path\": \"/in/").append(i).append("\", \"content\": \"").append(contents[i]).append("\"}");
        }
        return "{\"inputs\": [" + inputs + "], \"executors\": [{\"image\": \"alpine\", \"command\": [\"cat\", \"/in/0\"]}]}";
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
                "executors[0].image: required: the container image to run, e.g. flash/shell:1",
                "executors[1].command: empty: give command (an argv list) or shell (a command line run with /bin/sh -c)"),
                problems(t), "TES's own fields from the translation, the rest from Flash's validator, all at once");
        assertEquals(List.of("executors: a job needs at least one task"), problems(translate("{\"executors\": []}")));
        var missing = translate("{\"executors\": [{\"image\": \"alpine\", \"command\": [\"true\"]}, null]}");
        assertEquals(List.of("executors[1]: must be an object", "executors[1].image: required: the container image to run, e.g. flash/shell:1",
                "executors[1].command: empty: give command (an argv list) or shell (a command line run with /bin/sh -c)"),
                problems(missing), "an executor left out keeps the others' numbers");
    }

    private static List<String> problems(TesTranslator.Translation t) {
        return TesTranslator.problems(t, new JobValidator(Limits.defaults()).validate(t.built(), "job-1", "sub-1", 1L).errors());
    }

    @Test
    void preemptibleSaysWhetherTheTaskMayRunOnSpot() throws Exception {
        String task = "{\"executors\": [{\"image\": \"alpine\", \"command\": [\"true\"]}], \"resources\": {%s}}";
        assertEquals("never", translate(task.formatted("\"preemptible\": false")).submission().getTasks().get(0).getSpot());
        assertEquals("allow", translate(task.formatted("\"preemptible\": true")).submission().getTasks().get(0).getSpot());
        assertNull(translate(task.formatted("")).submission().getTasks().get(0).getSpot(), "unset: Flash's default (allow)");
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
