package io.flash.ecs.topology;

import io.flash.common.testing.TopologyHarness;
import io.flash.common.testing.MutableClock;
import io.flash.schema.*;
import org.apache.kafka.streams.*;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class EcsTopologyTest {

    private final MutableClock clock = new MutableClock(100_000);
    private TopologyHarness harness;
    private TestInputTopic<String, TaskDispatch> tasks;
    private TestInputTopic<String, NodeHeartbeat> nodes;
    private TestInputTopic<String, AttemptEvent> nodeEvents;
    private TestOutputTopic<String, Assignment> assignments;
    private TestOutputTopic<String, TaskEvent> events;
    private TestOutputTopic<String, FrameworkHeartbeat> heartbeats;

    @BeforeEach
    void setUp() {
        start(new EcsTopology.Settings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000));
    }

    /** (Re)starts the topology under test with these settings. */
    private void start(EcsTopology.Settings settings) {
        if (harness != null) harness.close();
        harness = new TopologyHarness("ecs-test", Instant.ofEpochMilli(100_000), topics -> EcsTopology.build(topics, settings, clock));
        var topics = harness.topics;
        tasks = harness.input(topics.frameworkTasks("ecs"));
        nodes = harness.input(topics.frameworkNodes("ecs"));
        nodeEvents = harness.input(topics.frameworkNodeEvents("ecs"));
        assignments = harness.output(topics.frameworkAssignments("ecs"));
        events = harness.output(topics.tasksEvents);
        heartbeats = harness.output(topics.frameworkHeartbeats);
    }

    @AfterEach
    void tearDown() {
        harness.close();
    }

    private TaskReady dispatch(String job, String name) {
        TaskReady r = ready(job, task(name), 1);
        tasks.pipeInput(r.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(r)
                .setDispatchedAt(clock.millis()).build());
        return r;
    }

    private AttemptEvent report(TaskReady r, AttemptState state, Integer exitCode) {
        return AttemptEvent.newBuilder().setNodeId("n1").setJobId(r.getJobId()).setTaskId(r.getTaskId())
                .setAttemptId(r.getAttemptId()).setState(state).setExitCode(exitCode).setAt(clock.millis()).build();
    }

    @Test
    void placesOnALiveNodeAndRelaysTheExecutorsReports() {
        nodes.pipeInput("n1", node("n1", 2, 1024 * MIB, clock.millis()));
        TaskReady r = dispatch("j", "a");

        var assignment = assignments.readKeyValue();
        assertEquals("n1", assignment.key, "keyed by node, so the node's partition carries it");
        assertEquals(AssignmentAction.RUN, assignment.value.getAction());
        assertEquals("j.a.1", assignment.value.getAttemptId());
        TaskEvent placed = events.readValue();
        assertEquals(TaskEventType.PLACED, placed.getType());
        assertEquals("n1", placed.getNodeId());

        nodeEvents.pipeInput("n1", report(r, AttemptState.STARTED, null));
        nodeEvents.pipeInput("n1", report(r, AttemptState.SUCCEEDED, 0));
        nodeEvents.pipeInput("n1", report(r, AttemptState.SUCCEEDED, 0)); // duplicate from an executor restart
        var relayed = events.readValuesToList();
        assertEquals(List.of(TaskEventType.STARTED, TaskEventType.SUCCEEDED), relayed.stream().map(TaskEvent::getType).toList());
        assertTrue(events.isEmpty(), "the duplicate report changes nothing");
    }

    @Test
    void queuesUntilANodeHasRoomAndSaysWhy() {
        nodes.pipeInput("n1", node("n1", 0.5, 1024 * MIB, clock.millis()));
        TaskReady first = dispatch("j", "a");
        TaskReady second = dispatch("j", "b");
        assertEquals(List.of(first.getAttemptId()), assignments.readValuesToList().stream().map(Assignment::getAttemptId).toList());
        var evs = events.readValuesToList();
        assertEquals(TaskEventType.HELD, evs.get(1).getType());
        assertEquals("ecs shard 0: 1 node: 1 lack free cpu", evs.get(1).getReason());

        nodeEvents.pipeInput("n1", report(first, AttemptState.SUCCEEDED, 0));
        assertEquals(second.getAttemptId(), assignments.readValue().getAttemptId(), "freed room goes to the queue");
    }

    @Test
    void equalAttemptsThatFitNowhereWaitWithOneReasonWhileSmallerOnesStillPlace() {
        nodes.pipeInput("n1", node("n1", 1.25, 1024 * MIB, clock.millis()));
        TaskReady first = dispatch("j", "a"); // 0.5 cpu each
        TaskReady second = dispatch("j", "b");
        TaskReady third = dispatch("j", "c");
        TaskReady fourth = dispatch("j", "d");
        TaskReady small = ready("j", task("e"), 1);
        small.getTask().getResources().setCpu(0.25);
        tasks.pipeInput(small.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(small)
                .setDispatchedAt(clock.millis()).build());
        assertEquals(List.of(first.getAttemptId(), second.getAttemptId(), small.getAttemptId()),
                assignments.readValuesToList().stream().map(Assignment::getAttemptId).toList(), "the smaller one backfills");
        var held = events.readValuesToList().stream().filter(e -> e.getType() == TaskEventType.HELD).toList();
        assertEquals(List.of(third.getAttemptId(), fourth.getAttemptId()), held.stream().map(TaskEvent::getAttemptId).distinct().toList());
        assertTrue(held.stream().allMatch(e -> e.getReason().equals("ecs shard 0: 1 node: 1 lack free cpu")), held.toString());

        nodeEvents.pipeInput("n1", report(first, AttemptState.SUCCEEDED, 0));
        assertEquals(List.of(third.getAttemptId()), assignments.readValuesToList().stream().map(Assignment::getAttemptId).toList());
    }

    @Test
    void aSilentNodeLosesAllItsAttemptsInOneBatch() {
        nodes.pipeInput("n1", node("n1", 4, 4096 * MIB, clock.millis()));
        dispatch("j", "a");
        dispatch("j", "b");
        events.readValuesToList();

        runFor(20);
        var lost = events.readValuesToList().stream().filter(e -> e.getType() != TaskEventType.HELD).toList();
        assertEquals(2, lost.size());
        for (TaskEvent e : lost) {
            assertEquals(TaskEventType.LOST, e.getType());
            assertEquals(FailureClass.NODE_LOST, e.getFailureClass());
            assertTrue(e.getReason().startsWith("node n1 sent no heartbeat for 16 s"), e.getReason());
        }
    }

    /** The shard running normally: a tick every second. */
    private void runFor(int seconds) {
        for (int i = 0; i < seconds; i++) {
            clock.advance(1_000);
            harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        }
    }

    private void fence(TaskReady r) {
        tasks.pipeInput(r.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0)
                .setReady(TaskReady.newBuilder(r).setCancel(true).setFence(true).build()).setDispatchedAt(clock.millis()).build());
    }

    @Test
    void aShardBackFromAnAbsenceReadsTheFencesWrittenMeanwhileBeforePlacingAndDoesNotBlameItsNodes() {
        NodeHeartbeat n1 = node("n1", 0.5, 4096 * MIB, clock.millis());
        nodes.pipeInput("n1", n1);
        TaskReady placed = dispatch("j", "placed");
        TaskReady queued = dispatch("j", "queued");
        runFor(2);
        assertEquals(List.of(placed.getAttemptId()), assignments.readValuesToList().stream().map(Assignment::getAttemptId).toList());
        events.readValuesToList();

        // Frozen for 40 s (SIGSTOP): no tick, nothing read. Meanwhile the dispatcher moved the queued
        // attempt (its fence waits in the topic) and the node finished the placed one.
        clock.advance(40_000);
        fence(queued);
        nodeEvents.pipeInput("n1", report(placed, AttemptState.SUCCEEDED, 0));
        runFor(1);

        assertTrue(assignments.isEmpty(), "the fenced attempt is not placed, although its node has room now");
        var after = events.readValuesToList();
        assertEquals(List.of(TaskEventType.SUCCEEDED), after.stream().map(TaskEvent::getType).toList(),
                "the placed one reports its end; nothing else is churned: " + after);
        TaskReady next = dispatch("j", "next");
        assertEquals(List.of(next.getAttemptId()), assignments.readValuesToList().stream().map(Assignment::getAttemptId).toList(),
                "placement resumes once the marker is read back");

        // Its node heartbeats again from now; it is not blamed for the 40 s the shard did not listen.
        for (int i = 0; i < 5; i++) {
            n1.setSentAt(clock.millis());
            nodes.pipeInput("n1", n1);
            runFor(1);
        }
        assertTrue(events.readValuesToList().stream().noneMatch(e -> e.getType() == TaskEventType.LOST));
    }

    @Test
    void theDispatchersFenceDropsAQueuedAttemptSilentlyAndStopsAPlacedOneAsFrameworkLost() {
        nodes.pipeInput("n1", node("n1", 0.5, 1024 * MIB, clock.millis()));
        TaskReady placed = dispatch("j", "a");
        TaskReady queued = dispatch("j", "b");
        assignments.readValuesToList();
        events.readValuesToList();
        fence(queued);
        fence(placed);
        assertTrue(events.isEmpty(), "the dispatcher reported the queued one LOST already");
        Assignment kill = assignments.readValue();
        assertEquals(AssignmentAction.KILL, kill.getAction(), "a placed one must not run beside a retry");
        assertEquals(placed.getAttemptId(), kill.getAttemptId());
        nodeEvents.pipeInput("n1", report(placed, AttemptState.CANCELLED, 137));
        TaskEvent end = events.readValue();
        assertEquals(TaskEventType.LOST, end.getType());
        assertEquals(FailureClass.FRAMEWORK_LOST, end.getFailureClass());
        assertEquals("n1", end.getNodeId(), "with its node: the planner retries it (or has already)");
        runFor(2);
        assertTrue(assignments.isEmpty(), "the fenced queued one is never placed");
    }

    @Test
    void heartbeatsTheShardsCapacity() {
        NodeHeartbeat n1 = node("n1", 4, 4096 * MIB, clock.millis());
        n1.setLabels(java.util.Map.of("kind", "real"));
        NodeHeartbeat n2 = node("n2", 1, 1024 * MIB, clock.millis());
        n2.setLabels(java.util.Map.of("kind", "sim", "zone", "a"));
        nodes.pipeInput("n1", n1);
        dispatch("j", "a");
        nodes.pipeInput("n2", n2);
        harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        var hb = heartbeats.readKeyValuesToList();
        var last = hb.get(hb.size() - 1);
        assertEquals("ecs/0", last.key);
        assertEquals(2, last.value.getNodes());
        assertEquals(5.0, last.value.getTotal().getCpu());
        assertEquals(4.5, last.value.getFree().getCpu(), "the placed attempt's half core is taken");
        assertEquals(List.of("kind=real", "kind=sim", "zone=a"), last.value.getNodeLabels(), "labels of both kinds of node");
    }

    @Test
    void aNodeBackFromARestartWithoutAnAttemptLosesItAfterOneNodeTimeoutAndKeepsTheOnesItHolds() {
        NodeHeartbeat before = node("n1", 4, 4096 * MIB, clock.millis());
        before.setStartedAt(1L);
        nodes.pipeInput("n1", before);
        TaskReady kept = dispatch("j", "kept");
        TaskReady gone = dispatch("j", "gone");
        events.readValuesToList();
        // The executor restarts within the node timeout: it re-attached one container, the other is gone.
        clock.advance(3_000);
        NodeHeartbeat after = node("n1", 4, 4096 * MIB, clock.millis());
        after.setStartedAt(2L);
        after.setRunningAttempts(List.of(kept.getAttemptId()));
        nodes.pipeInput("n1", after);
        assertTrue(events.isEmpty(), "in flight or reconciling: nothing is judged at once");
        for (int i = 0; i < 8; i++) {
            clock.advance(2_000);
            after.setSentAt(clock.millis());
            nodes.pipeInput("n1", after);
        }
        var lost = events.readValuesToList().stream().filter(e -> e.getType() == TaskEventType.LOST).toList();
        assertEquals(List.of(gone.getAttemptId()), lost.stream().map(TaskEvent::getAttemptId).toList());
        assertEquals(FailureClass.NODE_LOST, lost.get(0).getFailureClass());
        assertEquals("node n1 restarted and does not hold this attempt", lost.get(0).getReason());
        nodeEvents.pipeInput("n1", report(kept, AttemptState.SUCCEEDED, 0));
        assertEquals(TaskEventType.SUCCEEDED, events.readValue().getType(), "the one it held still reports");
    }

    @Test
    void killsAttemptsANodeRunsThatTheShardNoLongerTracks() {
        NodeHeartbeat hb = node("n1", 4, 4096 * MIB, clock.millis());
        hb.setRunningAttempts(List.of("old.attempt.1"));
        nodes.pipeInput("n1", hb);
        Assignment kill = assignments.readValue();
        assertEquals(AssignmentAction.KILL, kill.getAction());
        assertEquals("old.attempt.1", kill.getAttemptId());
    }

    private void cancel(TaskReady r) {
        tasks.pipeInput(r.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0)
                .setReady(TaskReady.newBuilder(r).setCancel(true).build()).setDispatchedAt(clock.millis()).build());
    }

    @Test
    void cancelDropsAQueuedAttemptAndKillsAPlacedOne() {
        nodes.pipeInput("n1", node("n1", 0.5, 1024 * MIB, clock.millis()));
        TaskReady placed = dispatch("j", "a");
        TaskReady queued = dispatch("j", "b");
        assignments.readValuesToList();
        events.readValuesToList();

        cancel(queued);
        TaskEvent cancelled = events.readValue();
        assertEquals(TaskEventType.CANCELLED, cancelled.getType());
        assertEquals(queued.getAttemptId(), cancelled.getAttemptId());

        cancel(placed);
        Assignment kill = assignments.readValue();
        assertEquals(AssignmentAction.KILL, kill.getAction());
        assertEquals(placed.getAttemptId(), kill.getAttemptId());
        nodeEvents.pipeInput("n1", report(placed, AttemptState.CANCELLED, 137));
        assertEquals(TaskEventType.CANCELLED, events.readValue().getType());
    }

    private TaskReady dispatch(String job, String name, int priority, double cpu) {
        TaskDefinition def = task(name);
        def.setResources(new Capacity(cpu, 64 * MIB, 0L, 0));
        TaskReady r = ready(job, def, 1);
        r.setPriority(priority);
        tasks.pipeInput(r.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(r)
                .setDispatchedAt(clock.millis()).build());
        return r;
    }

    @Test
    void aHigherPriorityAttemptPreemptsLowerOnesWhichAreRetriedWithoutBudget() {
        nodes.pipeInput("n1", node("n1", 2, 4096 * MIB, clock.millis()));
        TaskReady low1 = dispatch("batch", "a", 0, 1);
        TaskReady low2 = dispatch("batch", "b", 0, 1);
        assertEquals(2, assignments.readValuesToList().size());
        events.readValuesToList();

        TaskReady urgent = dispatch("urgent", "u", 5, 1);
        Assignment kill = assignments.readValue();
        assertEquals(AssignmentAction.KILL, kill.getAction());
        assertEquals(low2.getAttemptId(), kill.getAttemptId(), "the most recently placed goes first");
        assertTrue(kill.getReason().startsWith("preempted for higher-priority attempt " + urgent.getAttemptId()), kill.getReason());
        TaskEvent held = events.readValue();
        assertEquals(TaskEventType.HELD, held.getType());
        assertTrue(held.getReason().endsWith("preempting 1 lower-priority attempt on n1"), held.getReason());

        // Until the node reports the victim stopped, its room is not given away and nothing else is killed.
        dispatch("urgent", "v", 5, 1);
        assertTrue(assignments.isEmpty(), "the second urgent attempt waits for the room already being freed");
        events.readValuesToList();

        nodeEvents.pipeInput("n1", report(low2, AttemptState.CANCELLED, 137));
        var out = events.readValuesToList();
        TaskEvent preempted = out.get(0);
        assertEquals(low2.getAttemptId(), preempted.getAttemptId());
        assertEquals(TaskEventType.FAILED, preempted.getType());
        assertEquals(FailureClass.PREEMPTED, preempted.getFailureClass());
        Assignment run = assignments.readValue();
        assertEquals(AssignmentAction.RUN, run.getAction());
        assertEquals(urgent.getAttemptId(), run.getAttemptId(), "the freed room goes to the attempt it was freed for");
        assertNotNull(low1);
    }

    @Test
    void preemptionIsRateLimited() {
        start(new EcsTopology.Settings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000,
                io.flash.ecs.queue.QueueQuotas.none(), 1));
        nodes.pipeInput("n1", node("n1", 2, 4096 * MIB, clock.millis()));
        dispatch("batch", "a", 0, 1);
        dispatch("batch", "b", 0, 1);
        assignments.readValuesToList();
        dispatch("urgent", "u", 5, 2);
        var kills = assignments.readValuesToList();
        assertEquals(0, kills.size(), "two victims exceed a budget of one per minute");
        var held = events.readValuesToList();
        assertTrue(held.get(held.size() - 1).getReason().endsWith("would exceed 1 per minute, waiting"),
                held.get(held.size() - 1).getReason());
    }

    @Test
    void aQueueAtItsQuotaWaitsWhileOthersRun() {
        start(new EcsTopology.Settings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000,
                io.flash.ecs.queue.QueueQuotas.parse("batch=0.5"), 10));
        nodes.pipeInput("n1", node("n1", 4, 4096 * MIB, clock.millis()));
        for (String name : List.of("a", "b", "c")) {
            TaskDefinition def = task(name);
            def.setResources(new Capacity(1.0, 64 * MIB, 0L, 0));
            TaskReady r = ready("batch-job", def, 1);
            r.setQueue("batch");
            tasks.pipeInput(r.getTaskId(), TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(r)
                    .setDispatchedAt(clock.millis()).build());
        }
        assertEquals(List.of("batch-job.a.1", "batch-job.b.1"),
                assignments.readValuesToList().stream().map(Assignment::getAttemptId).toList(), "half of 4 cpu");
        TaskEvent held = events.readValuesToList().stream().filter(e -> e.getType() == TaskEventType.HELD).findFirst().orElseThrow();
        assertEquals("ecs shard 0: queue batch is at its quota (50% of the shard; it holds 50% of cpu and 3% of memory)", held.getReason());
        TaskReady other = dispatch("other-job", "d", 0, 1);
        assertEquals(other.getAttemptId(), assignments.readValue().getAttemptId(), "another queue still gets the free room");
    }
}
