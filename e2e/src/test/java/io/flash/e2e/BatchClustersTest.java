package io.flash.e2e;

import io.flash.common.jobfile.JobFiles;
import io.flash.schema.*;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Slurm and Grid Engine as Flash frameworks, on real one-machine clusters (infra/clusters/*.sh start
 * them, installing Debian's packages if needed): one DAG over ecs, Slurm and Grid Engine with files
 * passing through the workspace; exit codes and OOM from the clusters; a cancel of a running
 * cluster job; the adapter killed mid-run.
 */
class BatchClustersTest extends StackTest {

    private static final Path HOME = Path.of(System.getProperty("flash.home", "..")).toAbsolutePath().normalize();

    @BeforeAll
    void startClustersAndAdapters() throws Exception {
        for (String peer : List.of("slurm", "gridengine")) {
            Process p = new ProcessBuilder("bash", HOME.resolve("infra/clusters/" + peer + ".sh").toString(), "start", "tuned")
                    .inheritIO().start();
            assertTrue(p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0, peer + " did not start");
        }
        adapter("slurm", 0);
        adapter("gridengine", 1);
    }

    private void adapter(String cluster, int offset) throws Exception {
        stack.startInstance("framework-" + cluster, "framework-batch", 18120 + offset,
                Map.of("FLASH_FRAMEWORK_ID", cluster, "FLASH_BATCH_CLUSTER", cluster, "FLASH_FRAMEWORK_SHARDS", "1"));
        stack.awaitReady("framework-" + cluster, Duration.ofSeconds(120));
    }

    @AfterAll
    void stopAdapters() throws Exception {
        stack.stop("framework-slurm");
        stack.stop("framework-gridengine");
    }

    private JobSubmission job(String yaml) throws Exception {
        JobSubmission job = JobFiles.parse(yaml);
        job.setSubmissionId(job.getName() + "-" + UUID.randomUUID());
        return job;
    }

    private static TaskSummary task(JobResult result, String name) {
        return result.getTasks().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void oneDagRunsOnFlashsNodesSlurmAndGridEngineAndItsFilesPassBetweenThem() throws Exception {
        JobResult result = run(job("""
                name: three-frameworks
                tasks:
                  - {name: make, image: "flash/shell:1", framework: ecs, command: "echo 7 > /workspace/n.txt", outputs: [n.txt]}
                  - name: square
                    image: flash/shell:1
                    framework: slurm
                    dependsOn: [make]
                    command: 'n=$(cat /workspace/n.txt); echo $((n*n)) > /workspace/sq.txt; echo slurm squared $n'
                    outputs: [sq.txt]
                  - {name: report, image: "flash/shell:1", framework: gridengine, dependsOn: [square], command: 'echo grid engine read $(cat /workspace/sq.txt)'}
                """), Duration.ofSeconds(240));
        assertEquals(JobState.SUCCEEDED, result.getState(), result.toString());
        assertTrue(task(result, "square").getStdoutTail().contains("slurm squared 7"), result.toString());
        assertTrue(task(result, "report").getStdoutTail().contains("grid engine read 49"), result.toString());
    }

    @Test
    void eachClusterReportsExitCodesAndOomKillsInFlashsClasses() throws Exception {
        for (String fw : List.of("slurm", "gridengine")) {
            JobResult result = run(job("""
                    name: classes-%s
                    failureMode: continue
                    tasks:
                      - {name: exit3, image: "flash/shell:1", framework: %s, command: "echo failing; exit 3"}
                      - {name: oom, image: "flash/shell:1", framework: %s, command: "head -c 200m /dev/zero | tail > /dev/null", resources: {memory: 16Mi}}
                    """.formatted(fw, fw, fw)), Duration.ofSeconds(240));
            TaskSummary exit3 = task(result, "exit3"), oom = task(result, "oom");
            assertEquals(3, exit3.getExitCode(), fw + ": " + result);
            assertEquals(FailureClass.USER, exit3.getFailureClass(), fw);
            assertEquals(FailureClass.OOM_KILLED, oom.getFailureClass(), fw + ": " + result);
        }
    }

    private static String sh(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    @Test
    void aCancelledClusterJobIsGoneFromTheClusterAndTheJobEndsCancelled() throws Exception {
        JobSubmission job = job("""
                name: cancel-on-slurm
                tasks:
                  - {name: sleepy, image: "flash/shell:1", framework: slurm, command: "sleep 300"}
                """);
        client.submit(job);
        String jobId = io.flash.common.ids.JobIds.forSubmission(job.getSubmissionId());
        awaitFirstTask(jobId, "RUNNING");
        assertTrue(sh("squeue", "-h", "-o", "%j").contains(jobId + ".sleepy.1"), "running in Slurm");
        client.cancel(jobId, "e2e");
        JobResult result = client.awaitOutcome(job.getSubmissionId(), Duration.ofSeconds(60)).orElseThrow().result();
        assertEquals(JobState.CANCELLED, result.getState(), result.toString());
        assertFalse(sh("squeue", "-h", "-o", "%j").contains(jobId), "gone from squeue");
        assertFalse(sh("docker", "ps", "--format", "{{.Names}}").contains(jobId), "its container is gone");
    }

    @Test
    void theAdapterKilledMidRunResumesWithoutSubmittingTwice() throws Exception {
        JobSubmission job = job("""
                name: adapter-restart
                tasks:
                  - {name: steady, image: "flash/shell:1", framework: slurm, command: "sleep 8; echo survived"}
                """);
        client.submit(job);
        String jobId = io.flash.common.ids.JobIds.forSubmission(job.getSubmissionId());
        awaitFirstTask(jobId, "RUNNING");
        stack.kill("framework-slurm");
        Thread.sleep(2_000);
        adapter("slurm", 0);
        JobResult result = client.awaitOutcome(job.getSubmissionId(), Duration.ofSeconds(120)).orElseThrow().result();
        assertEquals(JobState.SUCCEEDED, result.getState(), result.toString());
        assertEquals(1, task(result, "steady").getAttempts(), "one attempt");
        String jobs = sh("scontrol", "show", "job", "-o");
        assertEquals(1, jobs.lines().filter(l -> l.contains("JobName=" + jobId + ".steady.1 ")).count(), "one cluster job of that name");
    }
}
