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
        var settings = new EcsTopology.Settings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000);
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
    void aSilentNodeLosesAllItsAttemptsInOneBatch() {
        nodes.pipeInput("n1", node("n1", 4, 4096 * MIB, clock.millis()));
        dispatch("j", "a");
        dispatch("j", "b");
        events.readValuesToList();

        clock.advance(20_000);
        harness.driver.advanceWallClockTime(Duration.ofSeconds(20));
        var lost = events.readValuesToList();
        assertEquals(2, lost.size());
        for (TaskEvent e : lost) {
            assertEquals(TaskEventType.LOST, e.getType());
            assertEquals(FailureClass.NODE_LOST, e.getFailureClass());
            assertTrue(e.getReason().startsWith("node n1 sent no heartbeat for 20 s"), e.getReason());
        }
    }

    @Test
    void heartbeatsTheShardsCapacity() {
        nodes.pipeInput("n1", node("n1", 4, 4096 * MIB, clock.millis()));
        dispatch("j", "a");
        harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        var hb = heartbeats.readKeyValuesToList();
        var last = hb.get(hb.size() - 1);
        assertEquals("ecs/0", last.key);
        assertEquals(1, last.value.getNodes());
        assertEquals(4.0, last.value.getTotal().getCpu());
        assertEquals(3.5, last.value.getFree().getCpu(), "the placed attempt's half core is taken");
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
}
