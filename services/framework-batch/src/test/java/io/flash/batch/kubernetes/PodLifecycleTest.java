package io.flash.batch.kubernetes;

import io.fabric8.kubernetes.api.model.*;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.flash.batch.cluster.JobScripts;
import io.flash.batch.core.*;
import io.flash.common.cost.Costs;
import io.flash.schema.*;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.function.UnaryOperator;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Kubernetes as a batch cluster, end to end through the shard: fabric8's mock API server in CRUD
 * mode keeps the pods and nodes as an API server would, and the test writes each pod's status as
 * the scheduler and the kubelet would (no real cluster runs here: docs/frameworks.md).
 */
@EnableKubernetesMockClient(crud = true)
class PodLifecycleTest {

    private static final String NS = "flash";
    KubernetesMockServer server;
    KubernetesClient client;
    private WiredShard shard;
    private final MemoryBatch memory = new MemoryBatch();
    private final List<TaskEvent> events = memory.events;
    private final List<FrameworkHeartbeat> heartbeats = memory.heartbeats;
    private final List<LogChunk> logs = memory.logs;
    @TempDir
    Path workRoot;
    private long now = 100_000;

    @BeforeEach
    void start() {
        node("od-1", "on-demand", "m5.xlarge");
        node("spot-1", "spot", "m5.xlarge");
        shard = shard();
    }

    private WiredShard shard() {
        return shard(client);
    }

    private WiredShard shard(KubernetesClient client) {
        KubernetesSettings settings = settings();
        JobScripts scripts = scripts();
        Workspaces noFiles = new Workspaces() { // the declared outputs are the file workspaces' part, tested with Slurm
            public boolean oomKilled(String jobId, String attemptId) { return false; }
            public boolean timedOut(String jobId, String attemptId) { return false; }
            public Integer exitStatus(String jobId, String attemptId) { return null; }
            public Usage usage(String jobId, String attemptId) { return null; }
            public String tail(String jobId, String attemptId) { return null; }
            public Output output(String jobId, String attemptId, long from, int max, boolean toTheEnd) { return new Output("", from, 0); }
            public Outputs outputs(String jobId, List<String> declared) { return new Outputs(List.of(), List.of()); }
        };
        return new WiredShard(new BatchSettings("k8s", 500, Duration.ofMinutes(10), Duration.ofSeconds(20), Duration.ofSeconds(60), Duration.ofSeconds(2), DiskType.SSD, true),
                memory, new Kubernetes(client, settings, workRoot), scripts, new PodLogs(client, NS, noFiles), now);
    }

    private static KubernetesSettings settings() {
        return new KubernetesSettings("k8s", NS, "flash-work", Map.of("m5.xlarge", 0.192), Map.of("m5.xlarge", 0.08), 0, 0,
                Duration.ofSeconds(10));
    }

    private JobScripts scripts() {
        return new JobScripts("k8s", workRoot, 128);
    }

    private void node(String name, String capacityType, String instanceType) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels(KubernetesSettings.KARPENTER_CAPACITY_TYPE, capacityType).addToLabels(KubernetesSettings.INSTANCE_TYPE, instanceType)
                .endMetadata().withNewStatus().addToAllocatable("cpu", new Quantity("4")).addToAllocatable("memory", new Quantity("16Gi"))
                .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
    }

    private TaskReady dispatch(String name, UnaryOperator<TaskDefinition> adjust, String printed) {
        TaskReady r = ready("j", adjust.apply(task(name)), 1);
        prints(r, printed);
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("k8s").setShard(0).setReady(r).setDispatchedAt(now).build(), now);
        return r;
    }

    private TaskReady dispatch(String name, UnaryOperator<TaskDefinition> adjust) {
        return dispatch(name, adjust, "");
    }

    private TaskReady dispatch(String name) {
        return dispatch(name, t -> t, "");
    }

    /**
     * What the kubelet serves as the pod's log: the CRUD mode keeps objects, not logs, so the log
     * endpoint answers as the API server does, for the reads the shard makes — the first piece of
     * a running pod (limitBytes = one piece) and the rest once it has ended (no limit).
     */
    private void prints(TaskReady r, String text) {
        String log = "/api/v1/namespaces/" + NS + "/pods/" + PodManifests.podName(r.getAttemptId()) + "/log?pretty=false";
        server.expect().get().withPath(log + "&limitBytes=" + (64 << 10)).andReturn(200, text).always();
        server.expect().get().withPath(log).andReturn(200, text).always();
        server.expect().get().withPath(log + "&tailLines=40").andReturn(200, text).always();
    }

    private void tick() {
        now += 2_000;
        shard.tick(now);
    }

    private Pod pod(TaskReady r) {
        return client.pods().inNamespace(NS).withName(PodManifests.podName(r.getAttemptId())).get();
    }

    /** What the scheduler does: binds the pod to a node. */
    private void schedule(TaskReady r, String node) {
        client.pods().inNamespace(NS).withName(PodManifests.podName(r.getAttemptId())).edit(p -> {
            p.getSpec().setNodeName(node);
            return p;
        });
        status(r, new PodStatusBuilder().withPhase("Running").addNewContainerStatus().withName("task").withNewState().withNewRunning()
                .endRunning().endState().endContainerStatus().build());
    }

    /** What the kubelet does: writes the pod's status. */
    private void status(TaskReady r, PodStatus status) {
        Pod pod = pod(r);
        pod.setStatus(status);
        client.pods().inNamespace(NS).resource(pod).updateStatus();
    }

    private void terminated(TaskReady r, int exitCode, String reason) {
        status(r, new PodStatusBuilder().withPhase(exitCode == 0 ? "Succeeded" : "Failed").addNewContainerStatus().withName("task")
                .withNewState().withNewTerminated().withExitCode(exitCode).withReason(reason).endTerminated().endState()
                .endContainerStatus().build());
    }

    private TaskEvent last() {
        return events.get(events.size() - 1);
    }

    @Test
    void anAttemptIsOnePodThatRunsAndSucceedsAtItsNodesPriceAndIsDeletedOnceRead() {
        TaskReady r = dispatch("a");
        assertEquals(TaskEventType.PLACED, last().getType());
        assertNotNull(pod(r), "one pod per attempt");
        tick();
        assertEquals(1, heartbeats.get(heartbeats.size() - 1).getQueued(), "a pending pod is queued work");
        schedule(r, "od-1");
        tick();
        assertEquals(TaskEventType.STARTED, last().getType());
        assertEquals("od-1", last().getNodeId());
        double share = Costs.dominantShare(new Capacity(0.5, 64 * MIB, 0L, 0), new Capacity(4.0, 16L << 30, 0L, 0));
        assertEquals(0.192 * share, last().getCostPerHour(), 1e-9, "the on-demand price of m5.xlarge times the pod's share");
        terminated(r, 0, "Completed");
        tick();
        assertEquals(TaskEventType.SUCCEEDED, last().getType());
        assertNull(pod(r), "the pod is deleted once its end is read");
        assertTrue(memory.submitted.isEmpty());
        tick();
        assertEquals(3, events.size(), "PLACED, STARTED, SUCCEEDED, once each");
    }

    @Test
    void whatThePodPrintsReachesTheLogTopicWhileItRunsAndAtItsEnd() {
        TaskReady r = dispatch("a", t -> t, "aligned 10 reads\naligned 20 re");
        schedule(r, "od-1");
        tick();
        assertEquals("aligned 10 reads\n", logs.get(0).getText(), "whole lines while it runs");
        terminated(r, 0, "Completed");
        tick();
        assertEquals("aligned 20 re", logs.get(1).getText(), "the rest at the end");
        assertTrue(logs.get(1).getLast());
        assertEquals("aligned 10 reads\naligned 20 re", last().getStdoutTail());
    }

    @Test
    void aProgramThatFailsIsTheUsersWithItsExitCodeAndAnOomKillIsItsOwnClass() {
        TaskReady bad = dispatch("bad"), big = dispatch("big");
        schedule(bad, "od-1");
        schedule(big, "od-1");
        tick();
        terminated(bad, 3, "Error");
        terminated(big, 137, "OOMKilled");
        tick();
        Map<String, TaskEvent> ends = ends();
        assertEquals(TaskEventType.FAILED, ends.get(bad.getTaskId()).getType());
        assertEquals(FailureClass.USER, ends.get(bad.getTaskId()).getFailureClass());
        assertEquals(3, ends.get(bad.getTaskId()).getExitCode());
        assertEquals(FailureClass.OOM_KILLED, ends.get(big.getTaskId()).getFailureClass());
    }

    @Test
    void theTasksTimeoutIsThePodsDeadlineAndItsEndATimeout() {
        TaskReady slow = dispatch("slow", t -> { t.setTimeoutSeconds(30L); return t; });
        assertEquals(30L, pod(slow).getSpec().getActiveDeadlineSeconds());
        schedule(slow, "od-1");
        tick();
        status(slow, new PodStatusBuilder().withPhase("Failed").withReason("DeadlineExceeded").build());
        tick();
        assertEquals(FailureClass.TIMEOUT, last().getFailureClass());
    }

    @Test
    void aCancelDeletesThePodAndReportsItCancelled() {
        TaskReady r = dispatch("a");
        schedule(r, "od-1");
        tick();
        TaskReady cancel = TaskReady.newBuilder(r).setCancel(true).build();
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("k8s").setShard(0).setReady(cancel).setDispatchedAt(now).build(), now);
        assertNull(pod(r), "deleted");
        tick();
        assertEquals(TaskEventType.CANCELLED, last().getType());
        assertEquals(FailureClass.CANCELLED, last().getFailureClass());
    }

    @Test
    void aDisruptedPodOnSpotIsASpotLossFreeToTheUserAndOnDemandANodeLoss() {
        TaskReady onSpot = dispatch("s"), onDemand = dispatch("d");
        schedule(onSpot, "spot-1");
        schedule(onDemand, "od-1");
        tick();
        for (TaskReady r : List.of(onSpot, onDemand)) {
            status(r, new PodStatusBuilder().withPhase("Failed").addNewCondition().withType("DisruptionTarget").withStatus("True")
                    .withReason("DeletionByTaintManager").withMessage("node is being removed").endCondition().build());
        }
        tick();
        Map<String, TaskEvent> ends = ends();
        assertEquals(TaskEventType.LOST, ends.get(onSpot.getTaskId()).getType());
        assertEquals(FailureClass.SPOT_RECLAIMED, ends.get(onSpot.getTaskId()).getFailureClass(), "free, up to maxSpotAttempts");
        assertEquals(FailureClass.NODE_LOST, ends.get(onDemand.getTaskId()).getFailureClass());
        assertTrue(Costs.platformPays(TaskEventType.LOST, FailureClass.SPOT_RECLAIMED), "the platform's cost, not the user's");
    }

    @Test
    void aPodWhoseSpotNodeIsAlreadyGoneIsASpotLossWhenItMayRunOnSpot() {
        TaskReady r = dispatch("s");
        schedule(r, "spot-2"); // a node this adapter never listed: reclaimed before it looked
        tick();
        status(r, new PodStatusBuilder().withPhase("Failed").addNewCondition().withType("DisruptionTarget").withStatus("True")
                .withReason("DeletionByPodGC").endCondition().build());
        tick();
        assertEquals(FailureClass.SPOT_RECLAIMED, last().getFailureClass());
    }

    @Test
    void anImageThatCannotBePulledEndsTheAttemptAsTheUsersMistakeSayingWhy() {
        TaskReady r = dispatch("a", t -> { t.setImage("no/such:image"); return t; });
        status(r, new PodStatusBuilder().withPhase("Pending").addNewContainerStatus().withName("task").withNewState().withNewWaiting()
                .withReason("ErrImagePull").withMessage("pull access denied for no/such").endWaiting().endState().endContainerStatus().build());
        tick();
        assertEquals(FailureClass.USER, last().getFailureClass());
        assertTrue(last().getReason().contains("ErrImagePull") && last().getReason().contains("image name"), last().getReason());
    }

    @Test
    void aPodTheApiServerRefusesFailsItsAttemptAsTheUsersWhileTheClusterStaysUp() {
        TaskReady r = ready("j", task("bad-env"), 1);
        server.expect().post().withPath("/api/v1/namespaces/" + NS + "/pods").andReturn(422, new StatusBuilder().withCode(422)
                .withReason("Invalid").withMessage("spec.containers[0].env[0].name: Invalid value: \"1X\"").build()).once();
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("k8s").setShard(0).setReady(r).setDispatchedAt(now).build(), now);
        assertEquals(TaskEventType.FAILED, last().getType());
        assertEquals(FailureClass.USER, last().getFailureClass());
        assertTrue(last().getReason().contains("refused the pod (HTTP 422)"), last().getReason());
        tick();
        assertFalse(heartbeats.isEmpty(), "the cluster answered: it keeps its heartbeat");
        assertTrue(memory.waiting.isEmpty() && memory.submitted.isEmpty(), "nothing left to submit again");
    }

    @Test
    void aSubmissionRedoneByARestartedWorkerAdoptsThePodItCreatedInsteadOfCreatingASecond() {
        TaskReady r = dispatch("a");
        List<ClusterReport> reports = new ArrayList<>();
        ClusterWorker restarted = new ClusterWorker("k8s", new Kubernetes(client, settings(), workRoot), new JobSpecs(scripts()),
                ClusterWorker.EndedMarks.NONE, ClusterWorker.StartedMarks.NONE, reports::add);
        restarted.assigned(List.of(0));
        restarted.carryOut(List.of(ClusterCommand.newBuilder().setShard(0).setAction(ClusterAction.SUBMIT).setAttemptId(r.getAttemptId())
                .setJobName(ClusterNames.of("k8s", 0, r.getAttemptId())).setReady(r).setAt(now).build()), now);
        assertEquals(1, client.pods().inNamespace(NS).list().getItems().size());
        assertEquals(List.of(ClusterReportKind.SUBMITTED), reports.stream().map(ClusterReport::getKind).toList());
        assertEquals(PodManifests.podName(r.getAttemptId()), reports.get(0).getClusterJobId(), "the pod created before");
    }

    @Test
    void theHeartbeatOffersWhatTheReadyNodesHaveNotGivenToPodsSpotAndOnDemandApart() {
        TaskReady r = dispatch("a");
        schedule(r, "od-1");
        tick();
        FrameworkHeartbeat hb = heartbeats.get(heartbeats.size() - 1);
        assertEquals(2, hb.getNodes());
        assertEquals(8.0, hb.getTotal().getCpu(), 1e-9);
        assertEquals(7.5, hb.getFree().getCpu(), 1e-9, "the running pod's request is taken");
    }

    @Test
    void anApiServerThatDoesNotAnswerStopsTheHeartbeatAndHoldsWhatWaits() {
        try (KubernetesClient away = new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1")
                .withRequestTimeout(1_000).withConnectionTimeout(1_000).withRequestRetryBackoffLimit(0).build()).build()) {
            shard = shard(away);
            dispatch("a");
            tick();
            assertTrue(heartbeats.isEmpty(), "silence: the dispatcher judges the framework down");
            assertEquals(TaskEventType.HELD, last().getType());
            assertTrue(last().getReason().contains("Kubernetes API server"), last().getReason());
        }
    }

    private Map<String, TaskEvent> ends() {
        Map<String, TaskEvent> byTask = new HashMap<>();
        events.stream().filter(e -> e.getType() != TaskEventType.PLACED && e.getType() != TaskEventType.STARTED)
                .forEach(e -> byTask.put(e.getTaskId(), e));
        return byTask;
    }
}
