package io.flash.ecs.kafka;

import io.flash.common.framework.Departure;
import io.flash.common.setup.KafkaGrants;
import io.flash.common.testing.ListedTopics;
import io.flash.common.testing.TopologyHarness;
import io.flash.common.testing.MutableClock;
import io.flash.ecs.core.ShardSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.flash.schema.*;
import org.apache.kafka.streams.*;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

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
        start(SETTINGS, new Departure());
    }

    private static final ShardSettings SETTINGS = new ShardSettings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000);

    /** (Re)starts the topology under test with these settings. */
    private void start(ShardSettings settings) {
        start(settings, new Departure());
    }

    private void start(ShardSettings settings, Departure departure) {
        if (harness != null) harness.close();
        harness = new TopologyHarness("ecs-test", Instant.ofEpochMilli(100_000),
                topics -> EcsTopology.build(topics, settings, clock, new SimpleMeterRegistry(), departure));
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
        n1.setLabels(Map.of("kind", "real"));
        NodeHeartbeat n2 = node("n2", 1, 1024 * MIB, clock.millis());
        n2.setLabels(Map.of("kind", "sim", "zone", "a"));
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
    void aShardWhoseInstanceIsLeavingSaysSoInItsNextHeartbeatAndTheInstanceWaitsForIt() throws Exception {
        Departure departure = new Departure();
        start(SETTINGS, departure);
        nodes.pipeInput("n1", node("n1", 4, 4096 * MIB, clock.millis()));
        harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        assertFalse(lastHeartbeat().getLeaving());

        CompletableFuture<Boolean> announced = CompletableFuture.supplyAsync(() -> {
            try {
                return departure.announce(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new CompletionException(e);
            }
        });
        while (!departure.leaving()) Thread.onSpinWait();
        assertFalse(announced.isDone(), "the shard has not ticked since: the instance waits for it");
        harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        assertTrue(announced.get(10, TimeUnit.SECONDS), "its tick announced it");
        FrameworkHeartbeat last = lastHeartbeat();
        assertTrue(last.getLeaving());
        assertEquals(1, last.getNodes(), "what it has is still reported as it is");
    }

    @Test
    void anInstanceThatOwnsNoShardLeavesAtOnce() throws Exception {
        assertTrue(new Departure().announce(Duration.ZERO));
    }

    private FrameworkHeartbeat lastHeartbeat() {
        var hb = heartbeats.readValuesToList();
        return hb.get(hb.size() - 1);
    }

    @Test
    void everyTopicItReadsIsOneQuarkusWaitsFor() throws Exception {
        ListedTopics.assertListed(EcsTopology.build(harness.topics, SETTINGS, clock), Map.of("flash.framework.id", "ecs"));
    }

    @Test
    void itsSecureModeGrantAllowsEveryTopicItReadsAndWrites() throws Exception {
        ListedTopics.assertGranted(EcsTopology.build(harness.topics, SETTINGS, clock), KafkaGrants.frameworkGrant("ecs"));
    }
}
