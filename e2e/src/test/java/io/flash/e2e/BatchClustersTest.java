package io.flash.e2e;

import io.flash.common.client.TopicTail;
import io.flash.common.jobfile.JobFiles;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.schema.*;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Slurm and Grid Engine as Flash frameworks, on real one-machine clusters (infra/clusters/*.sh start
 * them; infra/prepare.sh --for-tests installs Debian's packages): one DAG over ecs, Slurm and Grid
 * Engine with files passing through the workspace and output on the log topic; exit code, OOM and
 * timeout classes from each cluster; the dispatcher choosing between ecs and Slurm by load; a retry
 * moving from ecs to a cluster; a cancel of a running cluster job; a second adapter joining mid-run and killed -9; the
 * Slurm controller stopped and started again. The stack's ecs node and Slurm's adapter say their disk
 * is hdd and Grid Engine's ssd, so a task asking for hdd has exactly ecs and Slurm to choose from.
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
        startAdapter(cluster, "framework-" + cluster, 18120 + offset);
        stack.awaitReady("framework-" + cluster, Duration.ofSeconds(120));
        // Ready is not yet seen by level 1: until the cluster's first heartbeat with nodes, a retry that should go
        // elsewhere finds no elsewhere and goes back to ecs.
        try (TopicTail<FrameworkHeartbeat> heartbeats = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkHeartbeats)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (heartbeats.values(h -> h.getFrameworkId().equals(cluster) && h.getNodes() > 0).isEmpty()
                    && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertFalse(heartbeats.values(h -> h.getFrameworkId().equals(cluster) && h.getNodes() > 0).isEmpty(),
                    cluster + " reports its nodes within 60 s of starting");
        }
    }

    /**
     * Each cluster's adapter has two shards, so a second instance (its own state directory) can take one (the rebalance
     * test); Slurm's nodes are announced as hdd, Grid Engine's as ssd, so the load test knows where each task may go.
     */
    private void startAdapter(String cluster, String instance, int port) throws Exception {
        startAdapter(cluster, instance, port, null);
    }

    /** @param tools a directory searched first for the cluster's tools, or null */
    private void startAdapter(String cluster, String instance, int port, Path tools) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("FLASH_FRAMEWORK_ID", cluster, "FLASH_BATCH_CLUSTER", cluster,
                "FLASH_FRAMEWORK_SHARDS", "2", "FLASH_BATCH_DISK_TYPE", cluster.equals("slurm") ? "hdd" : "ssd",
                "FLASH_STATE_DIR", stack.dataDir().resolve("state-" + instance).toString()));
        if (tools != null) env.put("PATH", tools + ":" + System.getenv("PATH"));
        stack.startInstance(instance, "framework-batch", port, env);
    }

    /**
     * sbatch and qsub that leave a mark and wait 3 s before the real tool submits: an adapter killed
     * after the mark is killed mid-submission, and its job reaches the cluster after it died.
     */
    private Path slowSubmissions() throws Exception {
        Path dir = Files.createDirectories(stack.dataDir().resolve("slow-tools"));
        for (String tool : List.of("sbatch", "qsub")) {
            Path called = dir.resolve(tool + ".called");
            Files.deleteIfExists(called);
            Path wrapper = dir.resolve(tool);
            Files.writeString(wrapper, "#!/bin/sh\ntouch '" + called + "'\nsleep 3\nexec /usr/bin/" + tool + " \"$@\"\n");
            assertTrue(wrapper.toFile().setExecutable(true));
        }
        return dir;
    }

    private static void awaitFile(Path file, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) fail(file + " did not appear within " + within);
            Thread.sleep(100);
        }
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

    /** Submits the job and returns once its first task runs. */
    private JobSubmission startedJob(String yaml) throws Exception {
        JobSubmission job = job(yaml);
        client.submit(job);
        awaitFirstTask(io.flash.common.ids.JobIds.forSubmission(job.getSubmissionId()), "RUNNING");
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
        var chunks = streamedLog(task(result, "square").getAttemptId(), Duration.ofSeconds(30));
        assertFalse(chunks.isEmpty(), "the Slurm task's output is on the log topic");
        assertTrue(chunks.get(chunks.lastKey()).getLast(), "ending with its last chunk");
        assertTrue(chunks.values().stream().map(c -> c.getText()).reduce("", String::concat).contains("slurm squared 7"));
    }

    @Test
    void eachClusterReportsExitCodesOomKillsAndTimeoutsInFlashsClassesAndTheContainersOwnUse() throws Exception {
        for (String fw : List.of("slurm", "gridengine")) {
            JobResult result = run(job("""
                    name: classes-%s
                    failureMode: continue
                    tasks:
                      - {name: exit3, image: "flash/shell:1", framework: %s, command: "echo failing; exit 3"}
                      - {name: oom, image: "flash/shell:1", framework: %s, command: "head -c 200m /dev/zero | tail > /dev/null", resources: {memory: 16Mi}}
                      - {name: slow, image: "flash/shell:1", framework: %s, command: "sleep 120", timeout: 3s}
                      - {name: holds50Mi, image: "flash/shell:1", framework: %s, command: "head -c 50m /dev/zero | tail > /dev/null", resources: {memory: 256Mi}}
                    """.formatted(fw, fw, fw, fw, fw)), Duration.ofSeconds(240));
            TaskSummary exit3 = task(result, "exit3"), oom = task(result, "oom"), slow = task(result, "slow");
            // tail holds its whole line of 50 MiB: the container's own peak, read from its cgroup, not the docker client's
            TaskSummary used = task(result, "holds50Mi");
            assertNotNull(used.getPeakMemoryBytes(), fw + ": " + used);
            assertTrue(used.getPeakMemoryBytes() >= 50L << 20 && used.getPeakMemoryBytes() < 256L << 20, fw + ": " + used);
            assertTrue(used.getCpuSeconds() != null && used.getCpuSeconds() > 0, fw + ": " + used);
            assertEquals(FailureClass.TIMEOUT, slow.getFailureClass(), fw + ": " + result);
            assertTrue(slow.getFinishedAt() - slow.getStartedAt() < 60_000, fw + ": ended at its timeout, not the cluster's minute");
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
        JobSubmission job = startedJob("""
                name: cancel-on-clusters
                tasks:
                  - {name: sleepy, image: "flash/shell:1", framework: slurm, command: "sleep 300"}
                  - {name: drowsy, image: "flash/shell:1", framework: gridengine, command: "sleep 300"}
                """);
        String jobId = io.flash.common.ids.JobIds.forSubmission(job.getSubmissionId());
        assertTrue(sh("squeue", "-h", "-o", "%j").contains(jobId + ".sleepy.1"), "running in Slurm");
        awaitContainers(jobId, 2, Duration.ofSeconds(60)); // Grid Engine's too: its qdel must stop a running container
        client.cancel(jobId, "e2e");
        JobResult result = client.awaitOutcome(job.getSubmissionId(), Duration.ofSeconds(60)).orElseThrow().result();
        assertEquals(JobState.CANCELLED, result.getState(), result.toString());
        assertFalse(sh("squeue", "-h", "-o", "%j").contains(jobId), "gone from squeue");
        assertFalse(output("qstat", "-u", "*", "-xml").contains(jobId), "gone from qstat");
        awaitContainers(jobId, 0, Duration.ofSeconds(30));
    }

    /** Waits until the job's task containers (running or not) number {@code count}. */
    private void awaitContainers(String jobId, int count, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        List<String> found;
        do {
            found = sh("docker", "ps", "-a", "--format", "{{.Names}}").lines().filter(n -> n.contains(jobId)).toList();
            if (found.size() == count) return;
            Thread.sleep(250);
        } while (System.nanoTime() < deadline);
        fail("job " + jobId + " has containers " + found + ", not " + count + ", after " + within);
    }

    /**
     * Issue 34's rebalance: a second adapter of each cluster joins mid-run (the shards move between the
     * two while jobs are submitted and running) and is then killed -9 while one sbatch and one qsub of
     * its are in flight (its tools are slowed by 3 s): its shards go back to the first, the jobs it was
     * submitting reach the cluster after it died, and submissions it left unread may have been fenced.
     * Every step runs once, the jobs succeed, and no cluster job or container is left behind.
     */
    @Test
    void aSecondAdapterJoinsMidRunAndIsKilledAndEveryStepRunsOnce() throws Exception {
        Map<String, JobSubmission> jobs = new LinkedHashMap<>();
        List<String> steps = new ArrayList<>();
        for (String cluster : List.of("slurm", "gridengine")) { // both at once: the test costs one run
            StringBuilder yaml = new StringBuilder("name: rebalance\ntasks:\n");
            steps.clear();
            // Three chains of five: a chain outlasts the second adapter's start, and the fifteen steps spread over both
            // shards; six chains doubled the containers on two cores, and every cluster tool's answer took seconds.
            for (int chain = 0; chain < 3; chain++) {
                for (int step = 0; step < 5; step++) {
                    String name = "c" + chain + "s" + step;
                    steps.add(name);
                    yaml.append("  - {name: ").append(name).append(", image: \"flash/shell:1\", framework: ").append(cluster)
                            .append(", resources: {cpu: 1}, command: \"echo ").append(name).append(" >> /workspace/runs.txt; sleep 1\"")
                            .append(step == 0 ? "" : ", dependsOn: [c" + chain + "s" + (step - 1) + "]").append("}\n");
                }
            }
            JobSubmission job = job(yaml.toString());
            client.submit(job);
            jobs.put(cluster, job);
        }
        for (JobSubmission job : jobs.values()) { // a step may run and end between two reads of the page: counted, not seen running
            awaitPage(io.flash.common.ids.JobIds.forSubmission(job.getSubmissionId()),
                    p -> p.get("job").get("tasksRunning").asInt() + p.get("job").get("tasksSucceeded").asInt() > 0,
                    Duration.ofSeconds(60), "a first step running or done");
        }
        try {
            Path slowTools = slowSubmissions();
            startAdapter("slurm", "framework-slurm-b", 18122, slowTools);
            startAdapter("gridengine", "framework-gridengine-b", 18123, slowTools);
            for (String cluster : jobs.keySet()) awaitLog("framework-" + cluster + "-b", "cluster worker serves shards [", Duration.ofSeconds(120));
            // killed while a submission of each is in flight: its sbatch / qsub goes on without it
            for (String tool : List.of("sbatch", "qsub")) awaitFile(slowTools.resolve(tool + ".called"), Duration.ofSeconds(90));
        } finally {
            stack.kill("framework-slurm-b");
            stack.kill("framework-gridengine-b");
        }
        Collections.sort(steps);
        for (var entry : jobs.entrySet()) {
            String jobId = io.flash.common.ids.JobIds.forSubmission(entry.getValue().getSubmissionId());
            JobResult result = client.awaitOutcome(entry.getValue().getSubmissionId(), Duration.ofSeconds(300)).orElseThrow().result();
            assertEquals(JobState.SUCCEEDED, result.getState(), entry.getKey() + ": " + result);
            List<String> runs = runs(jobId);
            assertEquals(steps, runs, () -> entry.getKey() + ": every step ran exactly once; the attempts of those that ran twice: "
                    + attemptsRunTwice(jobId, runs));
            awaitContainers(jobId, 0, Duration.ofSeconds(30));
        }
        String left = output("squeue", "-h", "-o", "%j") + output("qstat", "-u", "*", "-xml");
        assertFalse(left.contains("slurm.") || left.contains("<JB_name>gridengine."), "no cluster job left behind: " + left);
    }

    /** Why a step ran twice, from the job's attempts as the API lists them (each attempt's state, class and reason). */
    private String attemptsRunTwice(String jobId, List<String> runs) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(stack.apiUrl() + "/jobs/" + jobId
                    + "/attempts")).build(), HttpResponse.BodyHandlers.ofString());
            List<String> twice = runs.stream().filter(step -> Collections.frequency(runs, step) > 1).distinct().toList();
            List<String> found = new ArrayList<>();
            for (JsonNode attempt : new ObjectMapper().readTree(r.body()).path("attempts")) {
                if (twice.stream().anyMatch(step -> attempt.toString().contains("." + step + "."))) found.add(attempt.toString());
            }
            return String.join("\n", found);
        } catch (Exception e) {
            return "(could not be read: " + e + ")";
        }
    }

    /** What the job's tasks appended to runs.txt in its workspace, sorted. */
    private List<String> runs(String jobId) throws Exception {
        List<String> runs = new ArrayList<>(Files.readAllLines(stack.dataDir().resolve("work/jobs/" + jobId + "/runs.txt")));
        Collections.sort(runs);
        return runs;
    }

    /** What a cluster tool prints (Grid Engine's from Debian's SGE_ROOT, as the adapter assumes). */
    private static String output(String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putIfAbsent("SGE_ROOT", "/var/lib/gridengine");
        pb.environment().putIfAbsent("SGE_CELL", "default");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        return out;
    }

    private void awaitLog(String instance, String line, Duration within) throws Exception {
        Path log = stack.logs().resolve(instance + ".log");
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains(line)) return;
            Thread.sleep(200);
        }
        fail(instance + " did not log '" + line + "' within " + within + "; see " + log);
    }

    @Test
    void aScatterSentToAClusterTogetherGoesAsJobArraysAndEachShardRunsOnce() throws Exception {
        Map<String, JobSubmission> byCluster = new HashMap<>();
        try (TopicTail<ClusterReport> slurm = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkClusterReports("slurm"));
             TopicTail<ClusterReport> gridEngine = new TopicTail<>(stack.bootstrapServers(), client.topics().frameworkClusterReports("gridengine"))) {
            for (String cluster : List.of("slurm", "gridengine")) { // both at once: the test costs one run
                JobSubmission job = job("""
                        name: arrays
                        tasks:
                          - {name: each, image: "flash/shell:1", framework: %s, resources: {cpu: 1},
                             command: 'echo $FLASH_TASK_ID >> /workspace/runs.txt', scatter: {from: 0, to: 12, shardSize: 1}}
                        """.formatted(cluster));
                client.submit(job);
                byCluster.put(cluster, job);
            }
            for (var entry : byCluster.entrySet()) {
                String jobId = io.flash.common.ids.JobIds.forSubmission(entry.getValue().getSubmissionId());
                JobResult result = client.awaitOutcome(entry.getValue().getSubmissionId(), Duration.ofSeconds(180)).orElseThrow().result();
                assertEquals(JobState.SUCCEEDED, result.getState(), entry.getKey() + ": " + result);
                List<String> runs = runs(jobId);
                List<String> shards = new ArrayList<>();
                for (int i = 0; i < 12; i++) shards.add(jobId + ".each.s" + i);
                Collections.sort(shards);
                assertEquals(shards, runs, entry.getKey() + ": every shard ran exactly once");
                Map<String, String> submitted = new HashMap<>();
                TopicTail<ClusterReport> reports = entry.getKey().equals("slurm") ? slurm : gridEngine;
                for (ClusterReport r : reports.values(r -> r.getKind() == ClusterReportKind.SUBMITTED && r.getAttemptId().startsWith(jobId))) {
                    submitted.putIfAbsent(r.getAttemptId(), r.getClusterJobId());
                }
                assertEquals(12, submitted.size(), submitted.toString());
                // An element's id is the array's and its index (Slurm 123_4, Grid Engine 123.5). Slurm's adapter has two
                // shards: the dispatcher may split the scatter between them, an array each.
                List<String> elements = submitted.values().stream().filter(id -> id.matches("\\d+[_.]\\d+")).toList();
                long arrays = elements.stream().map(id -> id.split("[_.]")[0]).distinct().count();
                assertTrue(elements.size() >= 6 && arrays <= 4, entry.getKey() + ": most shards went as elements of a few arrays: " + submitted);
            }
        }
    }

    @Test
    void theDispatcherSpreadsTasksOverEcsAndSlurmByLoad() throws Exception {
        StringBuilder yaml = new StringBuilder("name: by-load\ntasks:\n");
        for (int i = 0; i < 10; i++) {
            yaml.append("  - {name: t").append(i).append(", image: \"flash/shell:1\", command: \"sleep 4\", resources: {cpu: 1, diskType: hdd}}\n");
        }
        JobResult result = run(job(yaml.toString()), Duration.ofSeconds(240));
        assertEquals(JobState.SUCCEEDED, result.getState(), result.toString());
        Map<String, Long> byFramework = result.getTasks().stream()
                .collect(java.util.stream.Collectors.groupingBy(TaskSummary::getFrameworkId, java.util.stream.Collectors.counting()));
        assertEquals(java.util.Set.of("ecs", "slurm"), byFramework.keySet(), "both, and only these offer hdd: " + byFramework);
        // ecs's one node has 2 cpus and Slurm 64: the least loaded takes most of them.
        assertTrue(byFramework.get("slurm") > byFramework.get("ecs"), byFramework.toString());
    }

    @Test
    void aTaskThatFailsTwiceOnEcsIsRetriedOnACluster() throws Exception {
        JobResult result = run(job("""
                name: cross-framework-retry
                tasks:
                  - {name: seed, image: "flash/shell:1", framework: ecs, command: "echo seed > /workspace/seed.txt", outputs: [seed.txt]}
                  - name: picky
                    image: flash/shell:1
                    dependsOn: [seed]
                    maxAttempts: 3
                    command: '[ "$FLASH_FRAMEWORK_ID" != ecs ] || { echo no luck on ecs; exit 1; }; echo ran on $FLASH_FRAMEWORK_ID with $(cat /workspace/seed.txt)'
                """), Duration.ofSeconds(240));
        assertEquals(JobState.SUCCEEDED, result.getState(), result.toString());
        TaskSummary picky = task(result, "picky");
        assertEquals(List.of("ecs", "ecs"), picky.getFailedFrameworks(), "its dependency's framework first (locality), twice");
        assertNotEquals("ecs", picky.getFrameworkId());
        assertTrue(picky.getStdoutTail().contains("ran on " + picky.getFrameworkId() + " with seed"), picky.toString());
    }

    @Test
    void withItsControllerStoppedSlurmIsDownItsRunningJobOutlivesTheOutageAndNewWorkGoesElsewhere() throws Exception {
        JobSubmission before = startedJob("""
                name: outlives-the-controller
                tasks:
                  - {name: steady, image: "flash/shell:1", framework: slurm, command: "sleep 15; echo still here"}
                """);
        sh("pkill", "-x", "slurmctld");
        JobSubmission duringSubmission;
        try {
            duringSubmission = job("""
                    name: during-the-outage
                    tasks:
                      - {name: anywhere, image: "flash/shell:1", resources: {diskType: hdd}, command: 'echo on $FLASH_FRAMEWORK_ID'}
                      - {name: needsSlurm, image: "flash/shell:1", framework: slurm, command: 'echo back on $FLASH_FRAMEWORK_ID'}
                    """);
            client.submit(duringSubmission);
            String duringId = io.flash.common.ids.JobIds.forSubmission(duringSubmission.getSubmissionId());
            awaitPage(duringId, p -> {
                for (var t : p.get("tasks")) {
                    String reason = t.path("reason").asText();
                    // the dispatcher's word for it, or the adapter's while the dispatcher still counts the silence
                    if (t.get("name").asText().equals("needsSlurm")
                            && (reason.contains("slurm is down") || reason.contains("controller does not answer"))) return true;
                }
                return false;
            }, Duration.ofSeconds(60), "the dispatcher judging slurm down");
            JsonNode page = awaitPage(duringId, p -> {
                for (var t : p.get("tasks")) if (t.get("name").asText().equals("anywhere")) return t.get("state").asText().equals("SUCCEEDED");
                return false;
            }, Duration.ofSeconds(60), "the task that may run anywhere");
            for (var t : page.get("tasks")) if (t.get("name").asText().equals("anywhere")) assertEquals("ecs", t.get("frameworkId").asText());
        } finally {
            // From its saved state: the running job is still its own.
            Process ctld = new ProcessBuilder("/usr/sbin/slurmctld").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertTrue(ctld.waitFor(30, TimeUnit.SECONDS) && ctld.exitValue() == 0, "slurmctld started again");
        }
        JobResult during = client.awaitOutcome(duringSubmission.getSubmissionId(), Duration.ofSeconds(120)).orElseThrow().result();
        assertEquals(JobState.SUCCEEDED, during.getState(), during.toString());
        assertEquals("slurm", task(during, "needsSlurm").getFrameworkId(), "held while Slurm was down, run when it came back");
        JobResult outlived = client.awaitOutcome(before.getSubmissionId(), Duration.ofSeconds(120)).orElseThrow().result();
        assertEquals(JobState.SUCCEEDED, outlived.getState(), outlived.toString());
        assertEquals(1, task(outlived, "steady").getAttempts(), "ran once, not again elsewhere");
    }

    @Test
    void theVariantCallingExampleRunsOnSlurmWithTheSameResult() throws Exception {
        JobSubmission job = JobFiles.read(HOME.resolve("examples/variant-calling.yaml"));
        job.setSubmissionId("variant-calling-on-slurm-" + UUID.randomUUID());
        job.getTasks().forEach(t -> t.setFramework("slurm"));
        JobResult result = run(job, Duration.ofMinutes(8));
        assertEquals(JobState.SUCCEEDED, result.getState(), result.toString());
        // (a scattered task's summary names no framework: its shards each have their own)
        assertTrue(result.getTasks().stream().filter(t -> t.getShards() == 1).allMatch(t -> "slurm".equals(t.getFrameworkId())),
                result.toString());
        assertEquals("merged: samples=2 records=99 snps=85 indels=14", task(result, "merge").getStdoutTail().strip());
    }
}
