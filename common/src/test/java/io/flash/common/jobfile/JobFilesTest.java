package io.flash.common.jobfile;

import io.flash.schema.JobSubmission;
import io.flash.schema.TaskSpec;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;

import static org.junit.jupiter.api.Assertions.*;

class JobFilesTest {

    @Test
    void readsTheHelloExample() throws Exception {
        JobSubmission job = JobFiles.read(Path.of("../examples/hello.yaml"));
        assertEquals("hello", job.getName());
        assertNull(job.getOwner(), "the examples name no owner: in the secure mode it is the signed-in user");
        TaskSpec task = job.getTasks().get(0);
        assertEquals("flash/shell:1", task.getImage());
        assertEquals("echo hello", task.getShell(), "a command string becomes a shell line");
        assertEquals(List.of(), task.getCommand());
        assertEquals(0.5, task.getResources().getCpu());
        assertEquals("64Mi", task.getResources().getMemory());
    }

    @Test
    void keepsAnArgvCommandAndDependencies() throws Exception {
        JobSubmission job = JobFiles.parse("""
                {"name": "j", "priority": 5, "tasks": [
                  {"name": "a", "image": "x", "command": ["echo", "a b"]},
                  {"name": "b", "image": "x", "shell": "echo b", "dependsOn": ["a"], "maxAttempts": 3}]}
                """);
        assertEquals(5, job.getPriority());
        assertEquals(List.of("echo", "a b"), job.getTasks().get(0).getCommand());
        assertEquals(List.of("a"), job.getTasks().get(1).getDependsOn());
        assertEquals(3, job.getTasks().get(1).getMaxAttempts());
    }

    @Test
    void namesTheUnknownField() {
        JobFileException e = assertThrows(JobFileException.class, () -> JobFiles.parse("""
                name: j
                tasks:
                  - name: a
                    image: x
                    comand: echo typo
                """));
        assertTrue(e.getMessage().startsWith("tasks[0].comand: unknown field"), e.getMessage());
    }

    @Test
    void saysWhatIsMissingOrMalformed() {
        assertEquals("name: required", assertThrows(JobFileException.class, () -> JobFiles.parse("tasks: []")).getMessage());
        assertTrue(assertThrows(JobFileException.class, () -> JobFiles.parse("name: [unclosed")).getMessage()
                .startsWith("not valid YAML or JSON"));
        assertTrue(assertThrows(JobFileException.class, () -> JobFiles.parse("name: j\ntasks:\n  - name: a\n    resources: {cpu: lots}"))
                .getMessage().startsWith("tasks[0].resources.cpu: expected a number"));
    }

    @Test
    void readsScatterAndRetryRules() throws Exception {
        JobSubmission job = JobFiles.parse("""
                name: j
                tasks:
                  - name: compare
                    image: x
                    command: echo $FLASH_SHARD_FROM
                    scatter: {from: 0, to: 1000, shardSize: 100}
                    maxAttempts: 3
                    retryOnExitCodes: [75]
                    failOnExitCodes: [2]
                    continueOnFailure: true
                    backoff: 10s
                """);
        TaskSpec t = job.getTasks().get(0);
        assertTrue(t.getContinueOnFailure());
        assertFalse(JobFiles.parse("name: j\ntasks:\n  - {name: a, image: x, command: 'true'}").getTasks().get(0).getContinueOnFailure());
        assertTrue(assertThrows(JobFileException.class, () -> JobFiles.parse("name: j\ntasks:\n  - {name: a, continueOnFailure: yes please}"))
                .getMessage().contains("continueOnFailure: expected true or false"));
        assertEquals(1000L, t.getScatter().getTo());
        assertEquals(100, t.getScatter().getShardSize());
        assertEquals(List.of(75), t.getRetryOnExitCodes());
        assertEquals("10s", t.getBackoff());
    }

    @Test
    void scattersOverTheLinesOfAFileNextToTheJobFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Files.writeString(dir.resolve("panel.txt"), "genome-a\ngenome-b\n\ngenome-c\n");
        java.nio.file.Path jobFile = dir.resolve("job.yaml");
        java.nio.file.Files.writeString(jobFile, """
                name: j
                tasks:
                  - name: compare
                    image: x
                    command: echo "$FLASH_SHARD_ITEMS"
                    scatter: {file: panel.txt, shardSize: 2}
                """);
        JobSubmission job = JobFiles.read(jobFile);
        assertEquals(List.of("genome-a", "genome-b", "genome-c"), job.getTasks().get(0).getScatter().getItems());
        JobFileException e = assertThrows(JobFileException.class, () -> JobFiles.parse("""
                name: j
                tasks: [{name: a, image: x, command: echo, scatter: {file: missing.txt, shardSize: 1}}]
                """, dir));
        assertTrue(e.getMessage().startsWith("tasks[0].scatter.file: cannot read"), e.getMessage());
    }

    @Test
    void everyFieldAJobFileMaySetReachesTheModel() throws Exception {
        JobSubmission job = JobFiles.parse("""
                {submissionId: s, name: j, owner: o, queue: q, priority: 3, labels: {k: v}, failureMode: continue,
                 store: "s3://b/p", cache: true, cacheMaxAge: 7d, tasks: [
                  {name: a, image: x, shell: "echo", env: {E: "1"}, workdir: /w,
                   resources: {cpu: 2, memory: 1Gi, disk: 2Gi, diskType: ssd, network: none, gpus: 1},
                   dependsOn: [b], inputs: [in], outputs: [out], maxAttempts: 2, retryOnExitCodes: [75],
                   failOnExitCodes: [2], continueOnFailure: true, cache: true, backoff: 5s, nodeLabels: {zone: a}, timeout: 1h,
                   framework: ecs, locality: require, spot: never, scatter: {items: [i], from: 1, to: 2, shardSize: 1, targetShardDuration: 40m},
                   stream: {from: "s3://b/p", window: 3, maxDisk: 1Gi}},
                  {name: b, image: x, command: [echo, b]}]}
                """);
        assertSet(job, JobFiles.JOB_FIELDS);
        TaskSpec shell = job.getTasks().get(0);
        Set<String> taskFields = new HashSet<>(JobFiles.TASK_FIELDS);
        taskFields.remove("command");
        assertSet(shell, taskFields);
        assertSet(job.getTasks().get(1), Set.of("command"));
        assertSet(shell.getResources(), JobFiles.RESOURCE_FIELDS);
        Set<String> scatterFields = new HashSet<>(JobFiles.SCATTER_FIELDS);
        scatterFields.remove("file");
        assertSet(shell.getScatter(), scatterFields);
        assertSet(shell.getStream(), JobFiles.STREAM_FIELDS);
    }

    /** Each named field of the record holds something other than its empty or default value. */
    private static void assertSet(SpecificRecord record, Set<String> fields) {
        for (String field : fields) {
            Object value = record.get(record.getSchema().getField(field).pos());
            boolean empty = value == null || value instanceof Collection<?> c && c.isEmpty() || value instanceof Map<?, ?> m && m.isEmpty()
                    || Boolean.FALSE.equals(value) || Integer.valueOf(0).equals(value);
            assertFalse(empty, record.getSchema().getName() + "." + field + " accepted in a job file but not read");
        }
    }
}
