package io.flash.common.jobfile;

import io.flash.schema.JobSubmission;
import io.flash.schema.TaskSpec;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

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
}
