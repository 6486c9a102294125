package io.flash.dispatcher.kafka;

import io.flash.common.testing.TopologyHarness;
import io.flash.common.testing.MutableClock;
import io.flash.dispatcher.core.selection.FrameworkSelector;
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

class DispatcherTopologyTest {

    private final MutableClock clock = new MutableClock(100_000);
    private TopologyHarness harness;
    private TestInputTopic<String, TaskReady> ready;
    private TestInputTopic<String, FrameworkHeartbeat> heartbeats;
    private TestOutputTopic<String, TaskDispatch> ecsTasks;
    private TestOutputTopic<String, TaskEvent> events;

    @BeforeEach
    void setUp() {
        harness = new TopologyHarness("dispatcher-test", Instant.ofEpochMilli(100_000), topics -> DispatcherTopology.build(topics, new FrameworkSelector(15_000),
                new DispatcherTopology.Settings(Duration.ofSeconds(1), Duration.ofSeconds(10)), clock));
        var topics = harness.topics;
        ready = harness.input(topics.tasksReady);
        heartbeats = harness.input(topics.frameworkHeartbeats);
        ecsTasks = harness.output(topics.frameworkTasks("ecs"));
        events = harness.output(topics.tasksEvents);
        taskEvents = harness.input(topics.tasksEvents);
    }

    private TestInputTopic<String, TaskEvent> taskEvents;

    @AfterEach
    void tearDown() {
        harness.close();
    }

    @Test
    void anEnvelopeOfThePlannerIsDispatchedAttemptByAttemptInItsOrder() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        List<TaskReady> attempts = List.of(ready("j", task("a"), 1), ready("j", task("b"), 1), ready("j", task("c"), 1));
        harness.input(harness.topics.tasksReadyBatches).pipeInput("j", new TaskReadyBatch(attempts));

        assertEquals(List.of("j.a.1", "j.b.1", "j.c.1"),
                ecsTasks.readValuesToList().stream().map(d -> d.getReady().getAttemptId()).toList());
        assertTrue(events.isEmpty(), "a dispatch writes no event: the shard's placement tells it");
    }

    @Test
    void routesAReadyAttemptToTheFrameworkFromItsHeartbeat() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        TaskReady r = ready("j", task("a"), 1);
        ready.pipeInput(r.getTaskId(), r);

        TaskDispatch dispatch = ecsTasks.readValue();
        assertEquals("ecs", dispatch.getFrameworkId());
        assertEquals(0, dispatch.getShard());
        assertEquals("j.a.1", dispatch.getReady().getAttemptId());
        assertTrue(events.isEmpty());
    }

    @Test
    void holdsWithAReasonAndReleasesWhenAHeartbeatShowsRoom() {
        TaskReady r = ready("j", task("a"), 1);
        ready.pipeInput(r.getTaskId(), r);
        TaskEvent held = events.readValue();
        assertEquals(TaskEventType.HELD, held.getType());
        assertEquals("no framework has sent a heartbeat yet", held.getReason());
        assertTrue(ecsTasks.isEmpty());

        clock.advance(2_000);
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        harness.driver.advanceWallClockTime(Duration.ofSeconds(2));

        assertEquals("j.a.1", ecsTasks.readValue().getReady().getAttemptId());
        assertTrue(events.isEmpty(), "the shard's placement or hold ends the hold's reason");
        harness.driver.advanceWallClockTime(Duration.ofSeconds(2));
        assertTrue(ecsTasks.isEmpty(), "dispatched once, then forgotten");
    }

    @Test
    void failsAnAttemptNoFrameworkCouldEverRun() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        TaskDefinition huge = task("a");
        huge.setResources(new Capacity(64.0, MIB, 0L, 0));
        TaskReady r = ready("j", huge, 1);
        ready.pipeInput(r.getTaskId(), r);
        TaskEvent failed = events.readValue();
        assertEquals(TaskEventType.FAILED, failed.getType());
        assertEquals(FailureClass.UNSCHEDULABLE, failed.getFailureClass());
        assertTrue(failed.getReason().contains("ecs has no node with 64 cpu"), failed.getReason());
    }

    private static TaskReady cancelOf(TaskReady r, String framework, Integer shard) {
        TaskReady c = TaskReady.newBuilder(r).setCancel(true).setCancelFramework(framework).setCancelShard(shard).build();
        return c;
    }

    @Test
    void cancelOfAHeldAttemptIsSettledHere() {
        TaskReady r = ready("j", task("a"), 1);
        ready.pipeInput(r.getTaskId(), r);
        events.readValue(); // HELD
        ready.pipeInput(r.getTaskId(), cancelOf(r, null, null));
        TaskEvent cancelled = events.readValue();
        assertEquals(TaskEventType.CANCELLED, cancelled.getType());
        assertEquals(FailureClass.CANCELLED, cancelled.getFailureClass());
        clock.advance(2_000);
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        harness.driver.advanceWallClockTime(Duration.ofSeconds(2));
        assertTrue(ecsTasks.isEmpty(), "a cancelled attempt is never dispatched");
    }

    @Test
    void cancelOfADispatchedAttemptGoesToItsShard() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 4, 4096 * MIB, clock.millis()));
        heartbeats.pipeInput("ecs/1", framework("ecs", 1, 2, 1024 * MIB, clock.millis()));
        TaskReady r = ready("j", task("a"), 1);
        ready.pipeInput(r.getTaskId(), r);
        TaskDispatch first = ecsTasks.readValue();
        ready.pipeInput(r.getTaskId(), cancelOf(r, null, null)); // before the planner read a placement
        var forwarded = ecsTasks.readValuesToList();
        assertEquals(1, forwarded.size());
        assertTrue(forwarded.get(0).getReady().getCancel());
        assertEquals(first.getShard(), forwarded.get(0).getShard());
    }

    @Test
    void attemptsStrandedOnASilentFrameworkAreFencedThereAndReportedLost() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 8, 8192 * MIB, clock.millis()));
        heartbeats.pipeInput("hpc/0", halfBusy("hpc", clock.millis()));
        TaskReady queued = ready("j", task("a"), 1);
        TaskReady placed = ready("j", task("b"), 1);
        ready.pipeInput(queued.getJobId(), queued);
        ready.pipeInput(placed.getJobId(), placed);
        assertEquals(2, ecsTasks.readValuesToList().size(), "the larger framework takes both");
        events.readValuesToList();
        taskEvents.pipeInput("j", TaskEvent.newBuilder().setJobId("j").setTaskId(placed.getTaskId())
                .setAttemptId(placed.getAttemptId()).setType(TaskEventType.PLACED).setFrameworkId("ecs").setAt(clock.millis()).build());

        // hpc keeps reporting; ecs falls silent. DOWN after 15 s, moved after 10 s more of silence seen.
        for (int i = 0; i < 13; i++) {
            clock.advance(2_000);
            heartbeats.pipeInput("hpc/0", halfBusy("hpc", clock.millis()));
            harness.driver.advanceWallClockTime(Duration.ofSeconds(2));
        }
        events.readValuesToList().forEach(e -> assertNotEquals(TaskEventType.LOST, e.getType(), "not before 25 s: " + e));
        clock.advance(2_000);
        heartbeats.pipeInput("hpc/0", halfBusy("hpc", clock.millis()));
        harness.driver.advanceWallClockTime(Duration.ofSeconds(2));

        var fences = ecsTasks.readValuesToList();
        assertEquals(1, fences.size(), "only the attempt not placed on a node is moved: a placed one may already run");
        assertTrue(fences.get(0).getReady().getCancel() && fences.get(0).getReady().getFence());
        assertEquals(queued.getAttemptId(), fences.get(0).getReady().getAttemptId());
        var lost = events.readValuesToList();
        assertEquals(1, lost.size());
        assertEquals(TaskEventType.LOST, lost.get(0).getType());
        assertEquals(FailureClass.FRAMEWORK_LOST, lost.get(0).getFailureClass());
        assertEquals("ecs", lost.get(0).getFrameworkId());
        assertTrue(lost.get(0).getReason().contains("ecs shard 0 sent no heartbeat for"), lost.get(0).getReason());

        // The planner's retry is a new attempt; it can only go to the framework still reporting.
        var hpcTasks = harness.output(harness.topics.frameworkTasks("hpc"));
        TaskReady retry = ready("j", task("a"), 2);
        ready.pipeInput(retry.getJobId(), retry);
        assertTrue(ecsTasks.isEmpty());
        assertEquals(retry.getAttemptId(), hpcTasks.readValue().getReady().getAttemptId());
        clock.advance(2_000);
        harness.driver.advanceWallClockTime(Duration.ofSeconds(2));
        assertTrue(ecsTasks.isEmpty() && events.isEmpty(), "moved once");
    }

    /** ecs and hpc report; one attempt goes to ecs (the larger) and waits in its queue. */
    private void oneAttemptQueuedAtEcsBesideHpc() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 8, 8192 * MIB, clock.millis()));
        heartbeats.pipeInput("hpc/0", halfBusy("hpc", clock.millis()));
        TaskReady queued = ready("j", task("a"), 1);
        ready.pipeInput(queued.getJobId(), queued);
        assertEquals(1, ecsTasks.readValuesToList().size());
        events.readValuesToList();
        harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
    }

    /** After an outage: hpc's heartbeats arrive first, ecs's three seconds later. */
    private void hpcReportsForThreeSecondsThenEcs() {
        for (int i = 0; i < 3; i++) {
            clock.advance(1_000);
            heartbeats.pipeInput("hpc/0", halfBusy("hpc", clock.millis()));
            harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        }
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 8, 8192 * MIB, clock.millis()));
        harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
    }

    @Test
    void whenNoFrameworkHeartbeatArrivesTheDispatcherIsBlindAndFencesNothing() {
        oneAttemptQueuedAtEcsBesideHpc();

        // A 60 s broker outage (or every framework frozen at once): no heartbeat reaches anyone.
        for (int i = 0; i < 30; i++) {
            clock.advance(2_000);
            harness.driver.advanceWallClockTime(Duration.ofSeconds(2));
        }
        // The broker is back: hpc's heartbeat arrives first, ecs's a few seconds later.
        hpcReportsForThreeSecondsThenEcs();

        assertTrue(ecsTasks.isEmpty(), "nothing fenced: the silence was the dispatcher's blindness");
        events.readValuesToList().forEach(e -> assertNotEquals(TaskEventType.LOST, e.getType(), e::toString));
    }

    @Test
    void aDispatcherThatWasItselfStuckDoesNotCountThatTimeAsSilence() {
        oneAttemptQueuedAtEcsBesideHpc();

        // The broker is down for 34 s and the dispatcher's thread is stuck in a commit: no round runs.
        // Back, hpc's heartbeat is read first, then the first round runs 34 s after the last one.
        clock.advance(34_000);
        heartbeats.pipeInput("hpc/0", halfBusy("hpc", clock.millis()));
        harness.driver.advanceWallClockTime(Duration.ofSeconds(34));
        hpcReportsForThreeSecondsThenEcs();

        assertTrue(ecsTasks.isEmpty(), "nothing fenced: the 34 s were the dispatcher's own blindness");
        events.readValuesToList().forEach(e -> assertNotEquals(TaskEventType.LOST, e.getType(), e::toString));
    }

    @Test
    void requiredLocalityWaitsForTheFrameworkItsDependenciesRanOn() {
        heartbeats.pipeInput("ecs/0", framework("ecs", 0, 8, 8192 * MIB, clock.millis()));
        FrameworkHeartbeat full = halfBusy("hpc", clock.millis());
        full.setQueued(100);
        heartbeats.pipeInput("hpc/0", full);
        TaskDefinition def = task("b");
        def.setRequireLocality(true);
        def.setResources(new Capacity(2.0, 256 * MIB, 0L, 0));
        TaskReady r = ready("j", def, 1);
        r.setDependencyFrameworks(java.util.List.of("hpc"));
        ready.pipeInput(r.getJobId(), r);
        TaskEvent held = events.readValue();
        assertEquals(TaskEventType.HELD, held.getType());
        assertTrue(held.getReason().contains("ecs is not where its dependencies ran (hpc) and locality is required"), held.getReason());
        assertTrue(held.getReason().contains("hpc has a full queue"), held.getReason());

        def.setRequireLocality(false);
        TaskReady preferred = ready("j", def, 2);
        preferred.setDependencyFrameworks(java.util.List.of("hpc"));
        ready.pipeInput(preferred.getJobId(), preferred);
        assertEquals("ecs", ecsTasks.readValue().getFrameworkId(), "preferred locality gives way when its framework cannot queue it");
    }

    private static FrameworkHeartbeat halfBusy(String id, long sentAt) {
        FrameworkHeartbeat hb = framework(id, 0, 2, 2048 * MIB, sentAt);
        hb.setFree(new Capacity(1.0, 1024 * MIB, 100_000 * MIB, 0));
        hb.setLargestNodeFree(hb.getFree());
        return hb;
    }

    @Test
    void everyTopicItReadsIsOneQuarkusWaitsFor() throws Exception {
        io.flash.common.testing.ListedTopics.assertListed(DispatcherTopology.build(harness.topics, new FrameworkSelector(15_000),
                new DispatcherTopology.Settings(Duration.ofSeconds(1), Duration.ofSeconds(10)), clock), java.util.Map.of());
    }

    @Test
    void itsSecureModeGrantAllowsEveryTopicItReadsAndWrites() throws Exception {
        io.flash.common.testing.ListedTopics.assertGranted(DispatcherTopology.build(harness.topics, new FrameworkSelector(15_000),
                new DispatcherTopology.Settings(Duration.ofSeconds(1), Duration.ofSeconds(10)), clock), io.flash.common.setup.KafkaGrants.dispatcher(java.util.List.of("ecs")));
    }
}
