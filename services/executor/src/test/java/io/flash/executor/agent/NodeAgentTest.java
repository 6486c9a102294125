package io.flash.executor.agent;

import io.flash.executor.attempt.MemoryEngine;
import io.flash.executor.attempt.NodeSettings;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.Assignment;
import io.flash.schema.AssignmentAction;
import io.flash.schema.AttemptEvent;
import io.flash.schema.AttemptState;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.flash.schema.FailureClass;
import io.flash.schema.LogChunk;
import io.flash.schema.NodeHeartbeat;
import io.flash.schema.TaskDefinition;
import io.flash.schema.UsageSample;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node agent on in-memory ports: assignments from a link in memory, containers on an engine
 * in memory, the task's files on the real file system. What it reports, commits and heartbeats.
 */
class NodeAgentTest {

    @TempDir
    Path dir;
    private final MemoryEngine engine = new MemoryEngine();
    private final MemoryLink link = new MemoryLink();
    private NodeAgent agent;

    @AfterEach
    void stop() {
        if (agent != null) agent.close();
    }

    private void start() throws Exception {
        NodeSettings node = new NodeSettings("n1", "ecs", new Capacity(4.0, 8L << 30, 0L, 0), DiskType.SSD, true, Map.of(),
                Duration.ofMillis(200), Duration.ofMinutes(1), 20, dir.resolve("cgroup"), Duration.ofSeconds(1), dir.resolve("work"),
                65536, 1 << 20, new ObjectStore.Settings("", "us-east-1", "", "", true), 0L,
                new NodeSettings.Sandbox(128, Duration.ofSeconds(5)), dir.resolve("shared"), "");
        agent = new NodeAgent(node, engine, link);
        agent.start();
    }

    private static Assignment run(String attemptId) {
        TaskDefinition task = TaskDefinition.newBuilder().setName("t").setImage("flash/shell:1").setCommand(List.of("true"))
                .setResources(new Capacity(0.5, 64L << 20, 0L, 0)).build();
        return Assignment.newBuilder().setNodeId("n1").setAction(AssignmentAction.RUN).setJobId("job-1")
                .setTaskId("job-1.t").setAttemptId(attemptId).setTask(task).setAssignedAt(1L).build();
    }

    private static Assignment kill(String attemptId, String reason) {
        return Assignment.newBuilder().setNodeId("n1").setAction(AssignmentAction.KILL).setJobId("job-1")
                .setTaskId("job-1.t").setAttemptId(attemptId).setReason(reason).setAssignedAt(2L).build();
    }

    @Test
    void anAssignmentRunsIsReportedAndIsCommittedPast() throws Exception {
        start();
        link.deliver(new FrameworkLink.Delivery(run("job-1.t.1"), 1));
        AttemptEvent end = link.awaitEvent(e -> e.getState() != AttemptState.STARTED);
        assertEquals(AttemptState.SUCCEEDED, end.getState());
        assertEquals(List.of(AttemptState.STARTED, AttemptState.SUCCEEDED), link.states("job-1.t.1"));
        link.awaitCommit(1);
        assertEquals("n1", end.getNodeId());
    }

    @Test
    void aRecordThatIsNoAssignmentOfThisNodeIsCommittedPastAndRunsNothing() throws Exception {
        start();
        link.deliver(new FrameworkLink.Delivery(null, 5));
        link.awaitCommit(5);
        link.deliver(new FrameworkLink.Delivery(run("job-1.t.2"), 6));
        link.awaitCommit(6);
        link.awaitEvent(e -> e.getState() != AttemptState.STARTED);
        assertEquals(List.of("job-1.t.2"), link.events.stream().map(AttemptEvent::getAttemptId).distinct().toList());
    }

    @Test
    void theSameAssignmentTwiceInOneBatchRunsOnce() throws Exception {
        engine.program("job-1.t.3", MemoryEngine.Program.exits("once\n", 0));
        start();
        link.deliver(new FrameworkLink.Delivery(run("job-1.t.3"), 7), new FrameworkLink.Delivery(run("job-1.t.3"), 8));
        link.awaitCommit(8);
        link.awaitEvent(e -> e.getState() != AttemptState.STARTED);
        Thread.sleep(300);
        assertEquals(List.of(AttemptState.STARTED, AttemptState.SUCCEEDED), link.states("job-1.t.3"));
    }

    @Test
    void aKillEndsARunningAttemptAsCancelledWithItsReason() throws Exception {
        engine.program("job-1.t.4", MemoryEngine.Program.forever());
        start();
        link.deliver(new FrameworkLink.Delivery(run("job-1.t.4"), 1));
        link.awaitEvent(e -> e.getState() == AttemptState.STARTED);
        link.deliver(new FrameworkLink.Delivery(kill("job-1.t.4", "the job was cancelled"), 2));
        AttemptEvent end = link.awaitEvent(e -> e.getState() != AttemptState.STARTED);
        assertEquals(AttemptState.CANCELLED, end.getState());
        assertEquals(FailureClass.CANCELLED, end.getFailureClass());
        assertTrue(end.getReason().contains("the job was cancelled"), end.getReason());
        link.awaitCommit(2);
    }

    @Test
    void theHeartbeatListsARunningAttemptAndTheNodesPartition() throws Exception {
        engine.program("job-1.t.5", MemoryEngine.Program.forever());
        start();
        link.deliver(new FrameworkLink.Delivery(run("job-1.t.5"), 1));
        link.awaitEvent(e -> e.getState() == AttemptState.STARTED);
        NodeHeartbeat beat = link.awaitHeartbeat(h -> h.getRunningAttempts().contains("job-1.t.5"));
        assertEquals(MemoryLink.PARTITION, beat.getAssignmentPartition());
        assertTrue(agent.healthy(), "acknowledged heartbeats and a live poll loop");
        assertEquals(1, agent.runningAttempts());
    }

    @Test
    void aReclaimedSpotNodeTakesNoWorkThenLosesWhatRunsAsSpotReclaimedAndLeaves() throws Exception {
        engine.program("job-1.t.6", MemoryEngine.Program.forever());
        CompletableFuture<Void> left = new CompletableFuture<>();
        start();
        agent.onLeave(() -> left.complete(null));
        link.deliver(new FrameworkLink.Delivery(run("job-1.t.6"), 1));
        link.awaitEvent(e -> e.getState() == AttemptState.STARTED);
        link.deliver(new FrameworkLink.Delivery(Assignment.newBuilder().setNodeId("n1").setAction(AssignmentAction.RECLAIM)
                .setJobId("").setTaskId("").setAttemptId("").setReason("test").setAssignedAt(3L)
                .setLeaveAt(System.currentTimeMillis() + 1_500).build(), 2));
        NodeHeartbeat draining = link.awaitHeartbeat(h -> h.getUnhealthy() != null);
        assertTrue(draining.getUnhealthy().startsWith("spot capacity reclaimed (test): leaves at "), draining.getUnhealthy());
        assertEquals(0.0, draining.getFree().getCpu(), "no room offered during the notice");
        assertEquals(List.of(AttemptState.STARTED), link.states("job-1.t.6"), "the attempt runs on through the notice");

        AttemptEvent end = link.awaitEvent(e -> e.getState() != AttemptState.STARTED);
        assertEquals(AttemptState.FAILED, end.getState());
        assertEquals(FailureClass.SPOT_RECLAIMED, end.getFailureClass());
        assertTrue(end.getReason().startsWith("the spot node was reclaimed (test)"), end.getReason());
        left.get(10, TimeUnit.SECONDS);
        int beats = link.heartbeats.size();
        Thread.sleep(600);
        assertEquals(beats, link.heartbeats.size(), "a node that left is silent");
    }

    @Test
    void aDrainedNodeTakesNoWorkLetsWhatRunsFinishAndThenLeaves() throws Exception {
        engine.program("job-1.t.7", MemoryEngine.Program.exitsAfter("ok\n", 0, Duration.ofMillis(1_500)));
        CompletableFuture<Void> left = new CompletableFuture<>();
        start();
        agent.onLeave(() -> left.complete(null));
        link.deliver(new FrameworkLink.Delivery(run("job-1.t.7"), 1));
        link.awaitEvent(e -> e.getState() == AttemptState.STARTED);
        link.deliver(new FrameworkLink.Delivery(Assignment.newBuilder().setNodeId("n1").setAction(AssignmentAction.DRAIN)
                .setJobId("").setTaskId("").setAttemptId("").setReason("idle").setAssignedAt(3L).build(), 2));
        NodeHeartbeat draining = link.awaitHeartbeat(h -> h.getUnhealthy() != null);
        assertEquals("draining (idle): leaves when what it runs has ended", draining.getUnhealthy());
        assertTrue(!left.isDone(), "not while its attempt runs");
        AttemptEvent end = link.awaitEvent(e -> e.getState() != AttemptState.STARTED);
        assertEquals(AttemptState.SUCCEEDED, end.getState(), "a drain stops nothing");
        left.get(10, TimeUnit.SECONDS);
    }

    /** A framework link in memory: deliveries queued by the test, everything sent kept. */
    static final class MemoryLink implements FrameworkLink {

        static final int PARTITION = 3;
        private final BlockingQueue<List<Delivery>> inbox = new LinkedBlockingQueue<>();
        final List<AttemptEvent> events = Collections.synchronizedList(new ArrayList<>());
        final List<NodeHeartbeat> heartbeats = Collections.synchronizedList(new ArrayList<>());
        final List<Long> commits = Collections.synchronizedList(new ArrayList<>());
        private volatile boolean woken;

        void deliver(Delivery... batch) {
            inbox.add(List.of(batch));
        }

        List<AttemptState> states(String attemptId) {
            synchronized (events) {
                return events.stream().filter(e -> e.getAttemptId().equals(attemptId)).map(AttemptEvent::getState).toList();
            }
        }

        AttemptEvent awaitEvent(Predicate<AttemptEvent> wanted) throws InterruptedException {
            return await(events, wanted, "event");
        }

        NodeHeartbeat awaitHeartbeat(Predicate<NodeHeartbeat> wanted) throws InterruptedException {
            return await(heartbeats, wanted, "heartbeat");
        }

        void awaitCommit(long next) throws InterruptedException {
            await(commits, c -> c == next, "commit of " + next);
        }

        private static <T> T await(List<T> seen, Predicate<T> wanted, String what) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                synchronized (seen) {
                    for (T t : seen) if (wanted.test(t)) return t;
                }
                Thread.sleep(20);
            }
            throw new AssertionError("no such " + what + " within 10 s; seen: " + seen);
        }

        @Override
        public String platformId() {
            return "memory";
        }

        @Override
        public String open() {
            return "memory partition " + PARTITION;
        }

        @Override
        public int partition() {
            return PARTITION;
        }

        @Override
        public List<Delivery> poll(Duration timeout) {
            try {
                List<Delivery> batch = woken ? null : inbox.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
                return batch == null ? List.of() : batch;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
            }
        }

        @Override
        public void commit(long next) {
            commits.add(next);
        }

        @Override
        public void wakeup() {
            woken = true;
        }

        @Override
        public void closeReader() {
        }

        @Override
        public Future<?> report(AttemptEvent event) {
            events.add(event);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Future<?> log(LogChunk chunk) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void usage(UsageSample sample) {
        }

        @Override
        public void heartbeat(NodeHeartbeat heartbeat, Consumer<Exception> acked) {
            heartbeats.add(heartbeat);
            acked.accept(null);
        }

        @Override
        public void bindMetrics(MeterRegistry registry) {
        }

        @Override
        public void close() {
        }
    }
}
