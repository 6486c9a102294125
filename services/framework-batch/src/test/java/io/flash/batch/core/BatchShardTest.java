package io.flash.batch.core;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.cluster.MemoryCluster;
import io.flash.common.state.MemoryTable;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.*;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/** A batch shard's decisions over a cluster in memory (the port, not a mocked library). */
class BatchShardTest {

    private final MemoryCluster cluster = new MemoryCluster();
    private final MemoryBatch memory = new MemoryBatch();
    private final List<TaskEvent> events = memory.events;
    private final List<FrameworkHeartbeat> heartbeats = memory.heartbeats;
    private final MemoryTable<TaskDispatch> waiting = memory.waiting, submitted = memory.submitted;
    private final MemoryTable<String> ids = memory.clusterIds;
    private final MemoryTable<Long> marks = memory.marks;
    private final Set<String> oomMarks = new HashSet<>(), timeoutMarks = new HashSet<>();
    private final List<LogChunk> logs = memory.logs;
    private final Set<String> filesInWorkspace = new HashSet<>();
    private final Map<String, StringBuilder> outputs = new HashMap<>();
    private final Map<String, Integer> exits = new HashMap<>();
    private final Map<String, Workspaces.Usage> usages = new HashMap<>();
    private long now = 100_000;

    private WiredShard wired() {
        Workspaces workspaces = new Workspaces() {
            public boolean oomKilled(String jobId, String attemptId) { return oomMarks.contains(attemptId); }
            public boolean timedOut(String jobId, String attemptId) { return timeoutMarks.contains(attemptId); }
            public Outputs outputs(String jobId, List<String> declared) {
                return new Outputs(declared.stream().filter(filesInWorkspace::contains).map(f -> f + " (2 bytes)").toList(),
                        declared.stream().filter(f -> !filesInWorkspace.contains(f)).toList());
            }
            public Output output(String jobId, String attemptId, long from, int max, boolean toTheEnd) {
                String all = outputs.getOrDefault(attemptId, new StringBuilder()).toString();
                String piece = all.substring((int) Math.min(from, all.length()));
                if (!toTheEnd) piece = piece.substring(0, piece.lastIndexOf('\n') + 1);
                return new Output(piece, from + piece.length(), 0);
            }
            public String tail(String jobId, String attemptId) { return "tail of " + attemptId; }
            public Integer exitStatus(String jobId, String attemptId) { return exits.get(attemptId); }
            public Usage usage(String jobId, String attemptId) { return usages.get(attemptId); }
        };
        return new WiredShard(new BatchSettings("slurm", 500, Duration.ofMinutes(10), Duration.ofSeconds(20), Duration.ofSeconds(60), Duration.ofSeconds(2), DiskType.SSD, false),
                memory, cluster, new JobScripts("slurm", Path.of("/shared/flash"), 128), workspaces, now);
    }

    private final WiredShard wired = wired();

    /** The cluster job's name of task {@code name}'s first attempt in job j, on shard 0. */
    private static String job(String name) {
        return "slurm.0.j." + name + ".1";
    }

    private TaskReady dispatch(String name) {
        TaskReady r = ready("j", task(name), 1);
        send(r);
        return r;
    }

    private void send(TaskReady r) {
        wired.dispatch(TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0).setReady(r).setDispatchedAt(now).build(), now);
    }

    private List<TaskEventType> types() {
        return events.stream().map(TaskEvent::getType).toList();
    }

    private TaskEvent last() {
        return events.get(events.size() - 1);
    }

    private void tick() {
        now += 2_000;
        wired.tick(now);
    }

    @Test
    void anAttemptBecomesOneClusterJobNamedAfterItAndItsStatesBecomeEvents() {
        TaskReady r = dispatch("a");
        assertEquals(List.of(job("a")), cluster.submitted);
        assertEquals(List.of(TaskEventType.PLACED), types());
        tick();
        cluster.set(job("a"), Cluster.Phase.RUNNING, null);
        tick();
        tick();
        assertEquals(List.of(TaskEventType.PLACED, TaskEventType.STARTED), types(), "started once");
        assertNull(last().getPeakMemoryBytes(), "no use is known while it runs");
        cluster.set(job("a"), Cluster.Phase.SUCCEEDED, 0);
        usages.put("j.a.1", new Workspaces.Usage(52_428_800, 1.25)); // what the script read from the container's cgroup
        tick();
        assertEquals(TaskEventType.SUCCEEDED, last().getType());
        assertEquals("tail of j.a.1", last().getStdoutTail());
        assertEquals(52_428_800L, last().getPeakMemoryBytes(), "the container's own peak");
        assertEquals(1.25, last().getCpuSeconds());
        assertEquals("c1", last().getNodeId());
        assertTrue(submitted.isEmpty() && ids.isEmpty(), "released");
        tick();
        assertEquals(3, events.size(), "reported once: PLACED, STARTED, SUCCEEDED");
        assertNotNull(r);
    }

    @Test
    void eachWayAClusterJobEndsHasItsFailureClass() {
        Map<String, Cluster.Phase> ends = new LinkedHashMap<>();
        ends.put("user", Cluster.Phase.FAILED);
        ends.put("oom", Cluster.Phase.OUT_OF_MEMORY);
        ends.put("slow", Cluster.Phase.TIMEOUT);
        ends.put("node", Cluster.Phase.NODE_LOST);
        ends.put("pre", Cluster.Phase.PREEMPTED);
        ends.put("admin", Cluster.Phase.CANCELLED);
        ends.put("kernel", Cluster.Phase.FAILED);
        ends.put("watchdog", Cluster.Phase.FAILED);
        ends.keySet().forEach(this::dispatch);
        oomMarks.add("j.kernel.1");
        timeoutMarks.add("j.watchdog.1");
        ends.forEach((name, phase) -> cluster.set(job(name), phase, phase == Cluster.Phase.FAILED ? (name.equals("user") ? 3 : 137) : null));
        tick();
        Map<String, TaskEvent> byTask = new HashMap<>();
        events.stream().filter(e -> e.getType() != TaskEventType.PLACED).forEach(e -> byTask.put(e.getTaskId(), e));
        assertEquals(FailureClass.USER, byTask.get("j.user").getFailureClass());
        assertEquals(3, byTask.get("j.user").getExitCode());
        assertEquals(FailureClass.OOM_KILLED, byTask.get("j.oom").getFailureClass());
        assertEquals(FailureClass.OOM_KILLED, byTask.get("j.kernel").getFailureClass(), "the container's own OOM mark");
        assertEquals(FailureClass.TIMEOUT, byTask.get("j.slow").getFailureClass());
        assertEquals(FailureClass.TIMEOUT, byTask.get("j.watchdog").getFailureClass(), "the job script's timeout mark");
        assertEquals(TaskEventType.LOST, byTask.get("j.node").getType());
        assertEquals(FailureClass.NODE_LOST, byTask.get("j.node").getFailureClass());
        assertEquals(FailureClass.PREEMPTED, byTask.get("j.pre").getFailureClass());
        assertEquals(FailureClass.INFRASTRUCTURE, byTask.get("j.admin").getFailureClass(), "cancelled by someone else: not the user's");
    }

    @Test
    void aJobAlreadyInTheClusterUnderTheAttemptsNameIsAdoptedNotSubmittedAgain() {
        cluster.jobs.put(job("a"), new Cluster.Job("42", job("a"), Cluster.Phase.RUNNING, "RUNNING", null, "c1", null));
        dispatch("a"); // the shard submitted it, then died before it could remember
        assertTrue(cluster.submitted.isEmpty());
        assertEquals("42", ids.get("j.a.1"));
        dispatch("a"); // and a redelivery changes nothing
        assertEquals(1, types().stream().filter(t -> t == TaskEventType.PLACED).count());
    }

    @Test
    void aSlowControllerKeepsTheHeartbeatWithNoFreeRoomAndADownOneStopsItWhileWhatWaitsIsHeld() {
        tick();
        assertEquals(1, heartbeats.size());
        assertEquals(64.0, heartbeats.get(0).getTotal().getCpu());
        assertEquals(60.0, heartbeats.get(0).getFree().getCpu());
        assertEquals(List.of("partition=batch"), heartbeats.get(0).getNodeLabels());
        cluster.down = true;
        dispatch("a");
        assertEquals(List.of(TaskEventType.PLACED, TaskEventType.HELD), types(), "placed as it was sent, then held unanswered");
        assertTrue(last().getReason().contains("the cluster's controller does not answer"), last().getReason());
        TaskReady pinned = ready("j", TaskDefinition.newBuilder(task("pinned")).setFramework("slurm").build(), 1);
        send(pinned);
        long lastAnswer = now;
        while (now - lastAnswer <= 60_000) tick(); // slow: unanswered for up to down-after (60 s here)
        List<FrameworkHeartbeat> whileSlow = heartbeats.subList(1, heartbeats.size());
        assertTrue(whileSlow.size() >= 60 / 4, "a heartbeat at least every other tick while slow: " + whileSlow.size());
        for (FrameworkHeartbeat hb : whileSlow) {
            assertEquals(64.0, hb.getTotal().getCpu(), "what the cluster has is still known");
            assertEquals(0.0, hb.getFree().getCpu(), "no free room: new work prefers elsewhere");
            assertEquals(2, hb.getQueued(), "what waits is counted, so the dispatcher does not send past its limit");
        }
        assertTrue(whileSlow.get(whileSlow.size() - 1).getSentAt() > lastAnswer + 50_000, "heartbeats go on until down-after");
        int atDown = heartbeats.size();
        tick();
        tick();
        assertEquals(atDown, heartbeats.size(), "down: no heartbeat, the dispatcher moves what is unplaced");
        assertEquals(TaskEventType.LOST, last().getType(), "what was placed here and waits goes back, to run elsewhere");
        assertEquals(FailureClass.FRAMEWORK_LOST, last().getFailureClass());
        assertEquals("slurm", last().getNodeId());
        assertEquals("j.a", last().getTaskId(), "not the task pinned here: it has nowhere else to go");
        tick();
        assertEquals(1, events.stream().filter(e -> e.getType() == TaskEventType.LOST).count(), "given back once");
        List<String> kept = new ArrayList<>();
        marks.forEach((key, at) -> { if (key.endsWith("j.a.1")) kept.add(key); });
        assertTrue(waiting.get("j.a.1") == null && kept.isEmpty(), "nothing of it kept: " + kept);
        cluster.down = false;
        dispatch("b");
        assertEquals(List.of(job("b"), job("pinned")), cluster.submitted, "what came since, and the pinned task, kept (in attempt order)");
        tick();
        FrameworkHeartbeat back = heartbeats.get(heartbeats.size() - 1);
        assertEquals(60.0, back.getFree().getCpu(), "answering again: its free room is offered again");
        assertEquals(2, back.getQueued(), "pending in the cluster counts as queued demand");
    }

    @Test
    void aShardRestartedWhileTheControllerIsSilentSaysNothingUntilALookIsAnswered() {
        tick();
        cluster.down = true;
        wired.restartShard(now);
        int before = heartbeats.size();
        tick();
        tick();
        tick();
        assertEquals(before, heartbeats.size(), "no look answered since the restart: nothing true to offer");
        cluster.down = false;
        tick();
        assertEquals(before + 1, heartbeats.size());
    }

    @Test
    void aCancelStopsTheJobAndItNeverReportsSuccessWhileAFencedOnesEndIsTheFrameworks() {
        TaskReady a = dispatch("a"), b = dispatch("b");
        send(TaskReady.newBuilder(a).setCancel(true).build());
        send(TaskReady.newBuilder(b).setCancel(true).setFence(true).build());
        assertEquals(List.of("100", "101"), cluster.cancelled);
        cluster.set(job("a"), Cluster.Phase.SUCCEEDED, 0); // it finished as the cancel arrived
        cluster.set(job("b"), Cluster.Phase.CANCELLED, null);
        tick();
        Map<String, TaskEvent> byTask = new HashMap<>();
        events.stream().filter(e -> e.getType() != TaskEventType.PLACED).forEach(e -> byTask.put(e.getTaskId(), e));
        assertEquals(TaskEventType.CANCELLED, byTask.get("j.a").getType());
        assertEquals(TaskEventType.LOST, byTask.get("j.b").getType());
        assertEquals(FailureClass.FRAMEWORK_LOST, byTask.get("j.b").getFailureClass());
    }

    @Test
    void aScriptsEndedMarkEndsTheAttemptAtOnceThoughTheClusterStillListsItRunningAndItsJobIsNotCancelled() {
        dispatch("a");
        tick();
        cluster.set(job("a"), Cluster.Phase.RUNNING, null);
        tick();
        assertEquals(TaskEventType.STARTED, last().getType());
        assertFalse(wired.worker.somethingEnded());
        exits.put("j.a.1", 0); // the script wrote its exit status, then its mark; slurmctld has not yet seen the script exit
        wired.endedMarks.add(job("a"));
        assertTrue(wired.worker.somethingEnded(), "a new mark brings the look forward");
        tick();
        assertEquals(TaskEventType.SUCCEEDED, last().getType());
        assertEquals("c1", last().getNodeId(), "on the node the cluster listed");
        assertTrue(submitted.isEmpty(), "released");
        assertTrue(cluster.cancelled.isEmpty(), "a finishing job is not an orphan");
        assertTrue(wired.endedMarks.contains(job("a")), "the mark stays while the cluster lists the job running");
        assertFalse(wired.worker.somethingEnded(), "and asks for no second look");
        cluster.set(job("a"), Cluster.Phase.SUCCEEDED, 0);
        tick();
        assertTrue(wired.endedMarks.isEmpty(), "removed once the cluster agrees");
        assertTrue(cluster.cancelled.isEmpty());
        assertEquals(1, events.stream().filter(e -> e.getType() == TaskEventType.SUCCEEDED).count(), "ended once");
    }

    @Test
    void aJobTheClusterForgotEndsByTheExitStatusItsScriptLeft() {
        dispatch("quick");
        dispatch("lost");
        cluster.jobs.clear(); // both finished and purged between two polls (MinJobAge of 2 s)
        exits.put("j.quick.1", 0);
        tick();
        assertEquals(TaskEventType.SUCCEEDED, last().getType());
        assertEquals("j.quick", last().getTaskId());
        now += Duration.ofMinutes(11).toMillis();
        tick();
        assertEquals(TaskEventType.LOST, last().getType(), "no exit status, forgotten for longer than forget-after");
        assertEquals(FailureClass.NODE_LOST, last().getFailureClass());
    }

    @Test
    void aCancelledJobTheClusterForgotBeforeAPollSawItEndsCancelledNotAsTheUsersFailure() {
        TaskReady a = dispatch("a");
        send(TaskReady.newBuilder(a).setCancel(true).build());
        cluster.jobs.clear(); // cancelled and purged between two polls (MinJobAge of 2 s)
        exits.put("j.a.1", 143); // the script's exit status after the cancel's SIGTERM
        tick();
        assertEquals(TaskEventType.CANCELLED, last().getType(), last().toString());
        assertEquals(FailureClass.CANCELLED, last().getFailureClass());
    }

    @Test
    void aRunningJobsOutputGoesToTheLogTopicInWholeLinesInOrderAndEndsWithALastChunk() {
        dispatch("chatty");
        cluster.set(job("chatty"), Cluster.Phase.RUNNING, null);
        StringBuilder out = outputs.computeIfAbsent("j.chatty.1", k -> new StringBuilder());
        out.append("line 1\nhalf");
        tick();
        tick(); // nothing new: no chunk
        out.append(" a line\n");
        tick();
        out.append("the end\n");
        cluster.set(job("chatty"), Cluster.Phase.SUCCEEDED, 0);
        tick();
        assertEquals(List.of("line 1\n", "half a line\n", "the end\n"), logs.stream().map(LogChunk::getText).toList());
        assertEquals(List.of(0L, 1L, 2L), logs.stream().map(LogChunk::getSeq).toList());
        assertEquals(List.of(false, false, true), logs.stream().map(LogChunk::getLast).toList());
        List<String> kept = new ArrayList<>();
        marks.forEach((key, value) -> kept.add(key));
        assertTrue(kept.stream().noneMatch(k -> k.contains("j.chatty.1")), "its offsets are forgotten with it: " + kept);
    }

    @Test
    void aSuccessListsItsDeclaredOutputsAndOneThatLeftAnOutputOutFailsAsTheProgramsFault() {
        TaskReady good = ready("j", TaskDefinition.newBuilder(task("good")).setOutputs(List.of("a.txt")).build(), 1);
        TaskReady bad = ready("j", TaskDefinition.newBuilder(task("bad")).setOutputs(List.of("b.txt")).build(), 1);
        for (TaskReady r : List.of(good, bad)) send(r);
        filesInWorkspace.add("a.txt");
        cluster.set(job("good"), Cluster.Phase.SUCCEEDED, 0);
        cluster.set(job("bad"), Cluster.Phase.SUCCEEDED, 0);
        tick();
        Map<String, TaskEvent> byTask = new HashMap<>();
        events.stream().filter(e -> e.getType() != TaskEventType.PLACED).forEach(e -> byTask.put(e.getTaskId(), e));
        assertEquals(TaskEventType.SUCCEEDED, byTask.get("j.good").getType());
        assertEquals(List.of("a.txt (2 bytes)"), byTask.get("j.good").getOutputs());
        assertEquals(FailureClass.USER, byTask.get("j.bad").getFailureClass());
        assertTrue(byTask.get("j.bad").getReason().contains("left no b.txt"), byTask.get("j.bad").getReason());
    }

    @Test
    void aSecondJobUnderAnAttemptsNameIsCancelledAndTheFirstKept() {
        dispatch("a");
        cluster.duplicates.add(new Cluster.Job("555", job("a"), Cluster.Phase.QUEUED, "PENDING", null, null, null));
        tick();
        assertEquals(List.of("555"), cluster.cancelled, "a worker that died mid-sbatch submitted it again");
        assertEquals("100", ids.get("j.a.1"));
        cluster.set(job("a"), Cluster.Phase.SUCCEEDED, 0);
        tick();
        assertEquals(TaskEventType.SUCCEEDED, last().getType());
    }

    @Test
    void aQueuedOrRunningJobNoAttemptHoldsIsCancelledAndAFinishedOneLeftAlone() {
        cluster.jobs.put(job("ghost"), new Cluster.Job("77", job("ghost"), Cluster.Phase.RUNNING, "RUNNING", null, "c1", null));
        cluster.jobs.put(job("done"), new Cluster.Job("78", job("done"), Cluster.Phase.SUCCEEDED, "COMPLETED", 0, "c1", null));
        cluster.jobs.put("slurm.1.j.other.1", new Cluster.Job("79", "slurm.1.j.other.1", Cluster.Phase.RUNNING, "RUNNING", null, "c1", null));
        cluster.jobs.put("gridengine.0.j.a.1", new Cluster.Job("80", "gridengine.0.j.a.1", Cluster.Phase.RUNNING, "RUNNING", null, "c1", null));
        tick();
        assertEquals(List.of("77"), cluster.cancelled, "not another shard's job, nor another framework's");
        assertTrue(events.isEmpty());
    }

    @Test
    void aSubmissionReportedUnreachableThatWentThroughIsAdoptedByTheNextLookNotSubmittedAgain() {
        cluster.submitsThenTimesOut = true;
        dispatch("a");
        assertEquals(List.of(TaskEventType.PLACED, TaskEventType.HELD), types());
        cluster.submitsThenTimesOut = false;
        tick();
        assertEquals(List.of(job("a")), cluster.submitted, "submitted once");
        assertEquals("100", ids.get("j.a.1"));
        assertEquals(List.of(TaskEventType.PLACED, TaskEventType.HELD), types(), "placed once");
        assertTrue(waiting.isEmpty());
    }

    @Test
    void aCommandBatchTheWorkerRedoesAfterDyingSubmitsNothingTwiceAndPlacesOnce() {
        TaskReady r = ready("j", task("a"), 1);
        wired.shard.onDispatch(TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0).setReady(r).setDispatchedAt(now).build(), now);
        List<ClusterCommand> batch = List.copyOf(memory.commands);
        wired.settle(now);
        wired.worker.carryOut(batch, now); // its position was not committed: the batch comes again
        wired.settle(now);
        assertEquals(List.of(job("a")), cluster.submitted);
        assertEquals(List.of(TaskEventType.PLACED), types());
        assertTrue(cluster.cancelled.isEmpty(), "the same job, adopted: nothing to cancel");
    }

    @Test
    void aSubmissionWithdrawnBeforeTheWorkerReadItIsNeverMadeAndTheAttemptEnds() {
        TaskReady a = ready("j", task("a"), 1), b = ready("j", task("b"), 1);
        for (TaskReady r : List.of(a, b)) { // sent, the worker gone or slow: nothing carried out yet
            wired.shard.onDispatch(TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0).setReady(r).setDispatchedAt(now).build(), now);
        }
        wired.shard.onDispatch(TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0)
                .setReady(TaskReady.newBuilder(a).setCancel(true).build()).setDispatchedAt(now).build(), now);
        send(TaskReady.newBuilder(b).setCancel(true).setFence(true).build()); // the dispatcher ran it elsewhere
        assertEquals(List.of(), cluster.submitted, "a submission read with its withdrawal is not made");
        assertEquals(List.of(TaskEventType.PLACED, TaskEventType.PLACED, TaskEventType.CANCELLED, TaskEventType.LOST), types());
        TaskEvent lost = last();
        assertEquals(FailureClass.FRAMEWORK_LOST, lost.getFailureClass());
        assertEquals("slurm", lost.getNodeId(), "named: the planner, which may have kept the placed attempt, takes it as its end");
        assertTrue(submitted.isEmpty() && waiting.isEmpty() && marks.isEmpty(), "nothing held: " + marks);
    }

    @Test
    void aSubmissionWithdrawnAfterTheWorkerMadeItCancelsTheJobOnceItsIdIsKnown() {
        TaskReady r = ready("j", task("a"), 1);
        wired.shard.onDispatch(TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0).setReady(r).setDispatchedAt(now).build(), now);
        wired.workerTakes(1, now); // submitted; its report not read yet
        send(TaskReady.newBuilder(r).setCancel(true).build());
        assertEquals(List.of(job("a")), cluster.submitted);
        assertEquals(List.of("100"), cluster.cancelled, "the job found under its name is cancelled, once");
        cluster.set(job("a"), Cluster.Phase.CANCELLED, null);
        tick();
        assertEquals(TaskEventType.CANCELLED, last().getType());
        assertTrue(submitted.isEmpty() && ids.isEmpty());
    }

    @Test
    void aJobWhoseWorkerDiedBeforeReportingItIsAdoptedByTheNextLook() {
        TaskReady r = ready("j", task("a"), 1);
        wired.shard.onDispatch(TaskDispatch.newBuilder().setFrameworkId("slurm").setShard(0).setReady(r).setDispatchedAt(now).build(), now);
        ClusterWorker died = new ClusterWorker("slurm", cluster, new JobSpecs(new JobScripts("slurm", Path.of("/shared/flash"), 128)),
                ClusterWorker.EndedMarks.NONE, (job, attempt) -> null, report -> { }); // killed after sbatch, before its report was written
        died.assigned(List.of(0));
        died.carryOut(List.copyOf(memory.commands), now);
        memory.commands.clear();
        tick();
        assertEquals("100", ids.get("j.a.1"), "adopted by name");
        assertEquals(List.of(TaskEventType.PLACED), types());
        assertEquals(List.of(job("a")), cluster.submitted);
    }
}
