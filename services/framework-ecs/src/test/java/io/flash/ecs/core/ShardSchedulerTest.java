package io.flash.ecs.core;

import io.flash.common.cost.NodeClasses;
import io.flash.ecs.core.queue.QueueQuotas;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

/** The shard's decisions, in memory: queue, placement, quotas, preemption, lost and restarted nodes, cancels. */
class ShardSchedulerTest {

    private MemoryShard shard = new MemoryShard(new ShardSettings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000));

    private void start(ShardSettings settings) {
        shard = new MemoryShard(settings);
    }

    private TaskReady dispatch(String job, String name) {
        TaskReady r = ready(job, task(name), 1);
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(r).setDispatchedAt(shard.now).build());
        return r;
    }

    private TaskReady dispatch(String job, String name, int priority, double cpu) {
        TaskDefinition def = task(name);
        def.setResources(new Capacity(cpu, 64 * MIB, 0L, 0));
        TaskReady r = ready(job, def, 1);
        r.setPriority(priority);
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(r).setDispatchedAt(shard.now).build());
        return r;
    }

    private void cancel(TaskReady r) {
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0)
                .setReady(TaskReady.newBuilder(r).setCancel(true).build()).setDispatchedAt(shard.now).build());
    }

    private AttemptEvent report(TaskReady r, AttemptState state, Integer exitCode) {
        return AttemptEvent.newBuilder().setNodeId("n1").setJobId(r.getJobId()).setTaskId(r.getTaskId())
                .setAttemptId(r.getAttemptId()).setState(state).setExitCode(exitCode).setAt(shard.now).build();
    }

    @Test
    void queuesUntilANodeHasRoomAndSaysWhy() {
        shard.heartbeat(node("n1", 0.5, 1024 * MIB, shard.now));
        TaskReady first = dispatch("j", "a");
        TaskReady second = dispatch("j", "b");
        assertEquals(List.of(first.getAttemptId()), shard.assignments().stream().map(Assignment::getAttemptId).toList());
        var evs = shard.events();
        assertEquals(TaskEventType.HELD, evs.get(1).getType());
        assertEquals("ecs shard 0: 1 node: 1 lack free cpu", evs.get(1).getReason());

        shard.report(report(first, AttemptState.SUCCEEDED, 0));
        assertEquals(second.getAttemptId(), shard.assignment().getAttemptId(), "freed room goes to the queue");
    }

    @Test
    void theHeartbeatListsWhatWaitsInTheOrderItWouldBePlacedAndNothingPlaced() {
        shard.heartbeat(node("n1", 0.5, 1024 * MIB, shard.now));
        TaskReady running = dispatch("j", "a");
        TaskReady normal = dispatch("j", "b", 0, 0.5), urgent = dispatch("k", "c", 5, 0.5);
        shard.runFor(1);
        FrameworkHeartbeat hb = shard.heartbeats.get(shard.heartbeats.size() - 1);
        assertEquals(2, hb.getQueued());
        assertEquals(List.of(urgent.getAttemptId(), normal.getAttemptId()), hb.getQueueHead(), "higher priority first; "
                + running.getAttemptId() + " runs, so it is not listed");
    }

    @Test
    void equalAttemptsThatFitNowhereWaitWithOneReasonWhileSmallerOnesStillPlace() {
        shard.heartbeat(node("n1", 1.25, 1024 * MIB, shard.now));
        TaskReady first = dispatch("j", "a"); // 0.5 cpu each
        TaskReady second = dispatch("j", "b");
        TaskReady third = dispatch("j", "c");
        TaskReady fourth = dispatch("j", "d");
        TaskReady small = ready("j", task("e"), 1);
        small.getTask().getResources().setCpu(0.25);
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(small)
                .setDispatchedAt(shard.now).build());
        assertEquals(List.of(first.getAttemptId(), second.getAttemptId(), small.getAttemptId()),
                shard.assignments().stream().map(Assignment::getAttemptId).toList(), "the smaller one backfills");
        var held = shard.events().stream().filter(e -> e.getType() == TaskEventType.HELD).toList();
        assertEquals(List.of(third.getAttemptId(), fourth.getAttemptId()), held.stream().map(TaskEvent::getAttemptId).distinct().toList());
        assertTrue(held.stream().allMatch(e -> e.getReason().equals("ecs shard 0: 1 node: 1 lack free cpu")), held.toString());

        shard.report(report(first, AttemptState.SUCCEEDED, 0));
        assertEquals(List.of(third.getAttemptId()), shard.assignments().stream().map(Assignment::getAttemptId).toList());
    }

    @Test
    void aLargeGroupOfEqualWaitingAttemptsIsToldOnceEachAndPlacedInArrivalOrderAsRoomFrees() {
        shard.heartbeat(node("n1", 1, 1024 * MIB, shard.now));
        List<TaskReady> sent = new java.util.ArrayList<>();
        for (int i = 0; i < 500; i++) {
            sent.add(dispatch("j", "s" + i)); // 0.5 cpu each: two fit
            shard.now++;
        }
        assertEquals(List.of(sent.get(0).getAttemptId(), sent.get(1).getAttemptId()),
                shard.assignments().stream().map(Assignment::getAttemptId).toList());
        var held = shard.events().stream().filter(e -> e.getType() == TaskEventType.HELD).toList();
        assertEquals(sent.subList(2, 500).stream().map(TaskReady::getAttemptId).toList(),
                held.stream().map(TaskEvent::getAttemptId).toList(), "each waiting attempt is told once");

        for (int done = 0; done < 3; done++) {
            long before = shard.tries;
            shard.report(report(sent.get(done), AttemptState.SUCCEEDED, 0));
            assertEquals(List.of(sent.get(done + 2).getAttemptId()),
                    shard.assignments().stream().map(Assignment::getAttemptId).toList(), "first come, first served");
            assertEquals(2, shard.tries - before, "a pass tries the one placed and the next, then passes over the group");
        }
        TaskReady late = dispatch("j", "late");
        shard.runFor(3);
        assertEquals(List.of(late.getAttemptId()), shard.events().stream().filter(e -> e.getType() == TaskEventType.HELD)
                .map(TaskEvent::getAttemptId).toList(), "only the newcomer is told, once, however many passes follow");
    }

    @Test
    void aStartReportedTwiceIsOneTaskEventAndWritesNothingToThePlacement() {
        shard.heartbeat(node("n1", 1, 1024 * MIB, shard.now));
        TaskReady r = dispatch("j", "a");
        shard.assignments();
        shard.events();
        Placement placed = Placement.newBuilder(shard.placements().get(r.getAttemptId())).build(); // a copy, as written
        shard.report(report(r, AttemptState.STARTED, null));
        shard.report(report(r, AttemptState.STARTED, null));
        assertEquals(List.of(TaskEventType.STARTED), shard.events().stream().map(TaskEvent::getType).toList());
        assertEquals(placed, shard.placements().get(r.getAttemptId()), "no store write for a start");
    }

    @Test
    void aUserWhoseHeadFitsNowhereStillBackfillsWithSmallerAttemptsWhileOthersTakeTurns() {
        TaskReady big = dispatch("a", "big", 0, 2.0); // fits on no node here
        shard.now++;
        TaskReady aliceSmall = dispatch("a", "small", 0, 0.5);
        shard.now++;
        TaskReady bobSmall = ready("b", task("small"), 1);
        bobSmall.setOwner("bob");
        bobSmall.getTask().getResources().setCpu(0.5);
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(bobSmall).setDispatchedAt(shard.now).build());
        shard.heartbeat(node("n1", 1, 1024 * MIB, shard.now)); // room for both small ones, in one pass
        assertEquals(List.of(aliceSmall.getAttemptId(), bobSmall.getAttemptId()),
                shard.assignments().stream().map(Assignment::getAttemptId).toList());
        assertTrue(shard.events().stream().anyMatch(e -> e.getType() == TaskEventType.HELD
                && e.getAttemptId().equals(big.getAttemptId()) && e.getReason().contains("too small in total")));
    }

    @Test
    void anAttemptThatMayUseSpotIsNotHeldBehindAnEqualOneThatMayNot() {
        NodeHeartbeat spot = node("n1", 1, 1024 * MIB, shard.now);
        spot.setSpot(true);
        shard.heartbeat(spot);
        TaskDefinition never = task("never");
        never.setSpotAllowed(false);
        TaskReady held = ready("j", never, 1);
        shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(held).setDispatchedAt(shard.now).build());
        TaskReady allowed = dispatch("j", "allowed"); // the same shape, labels and queue: only spot tells them apart
        shard.runFor(1);
        assertEquals(List.of(allowed.getAttemptId()), shard.assignments().stream().map(Assignment::getAttemptId).toList());
        assertTrue(shard.events().stream().filter(e -> e.getType() == TaskEventType.HELD)
                .allMatch(e -> e.getAttemptId().equals(held.getAttemptId()) && e.getReason().contains("spot capacity")));
    }

    @Test
    void aSilentNodeLosesAllItsAttemptsInOneBatch() {
        shard.heartbeat(node("n1", 4, 4096 * MIB, shard.now));
        dispatch("j", "a");
        dispatch("j", "b");
        shard.events();

        shard.runFor(20);
        var lost = shard.events().stream().filter(e -> e.getType() != TaskEventType.HELD).toList();
        assertEquals(2, lost.size());
        for (TaskEvent e : lost) {
            assertEquals(TaskEventType.LOST, e.getType());
            assertEquals(FailureClass.NODE_LOST, e.getFailureClass());
            assertTrue(e.getReason().startsWith("node n1 sent no heartbeat for 16 s"), e.getReason());
        }
    }

    @Test
    void aNodeBackFromARestartWithoutAnAttemptLosesItAfterOneNodeTimeoutAndKeepsTheOnesItHolds() {
        NodeHeartbeat before = node("n1", 4, 4096 * MIB, shard.now);
        before.setStartedAt(1L);
        shard.heartbeat(before);
        TaskReady kept = dispatch("j", "kept");
        TaskReady gone = dispatch("j", "gone");
        shard.events();
        // The executor restarts within the node timeout: it re-attached one container, the other is gone.
        shard.advance(3_000);
        NodeHeartbeat after = node("n1", 4, 4096 * MIB, shard.now);
        after.setStartedAt(2L);
        after.setRunningAttempts(List.of(kept.getAttemptId()));
        shard.heartbeat(after);
        assertTrue(shard.noEvents(), "in flight or reconciling: nothing is judged at once");
        for (int i = 0; i < 8; i++) {
            shard.advance(2_000);
            after.setSentAt(shard.now);
            shard.heartbeat(after);
        }
        var lost = shard.events().stream().filter(e -> e.getType() == TaskEventType.LOST).toList();
        assertEquals(List.of(gone.getAttemptId()), lost.stream().map(TaskEvent::getAttemptId).toList());
        assertEquals(FailureClass.NODE_LOST, lost.get(0).getFailureClass());
        assertEquals("node n1 restarted and does not hold this attempt", lost.get(0).getReason());
        shard.report(report(kept, AttemptState.SUCCEEDED, 0));
        assertEquals(TaskEventType.SUCCEEDED, shard.event().getType(), "the one it held still reports");
    }

    @Test
    void aPlacementWritesNoNodeRecordAndARestartedShardTakesTheRoomTakenFromItsPlacements() {
        shard.heartbeat(node("n1", 1, 1024 * MIB, shard.now));
        NodeRecord written = shard.nodes().get("n1");
        TaskReady first = dispatch("j", "a"); // 0.5 cpu each: two fit
        TaskReady second = dispatch("j", "b");
        TaskReady third = dispatch("j", "c");
        assertEquals(List.of(first.getAttemptId(), second.getAttemptId()),
                shard.assignments().stream().map(Assignment::getAttemptId).toList());
        assertEquals(written, shard.nodes().get("n1"), "a placement writes the placement, not the node's record");

        shard.restart();
        shard.runFor(1);
        assertTrue(shard.noAssignments(), "the restarted shard knows n1 is full");
        FrameworkHeartbeat hb = shard.heartbeats.get(shard.heartbeats.size() - 1);
        assertEquals(0, hb.getFree().getCpu(), 1e-9);
        assertEquals(1, hb.getQueued());
        shard.report(report(second, AttemptState.SUCCEEDED, 0));
        assertEquals(third.getAttemptId(), shard.assignment().getAttemptId(), "the room the second held goes to the third");
        shard.report(report(first, AttemptState.SUCCEEDED, 0));
        shard.report(report(third, AttemptState.SUCCEEDED, 0));
        shard.runFor(1);
        assertEquals(1, shard.heartbeats.get(shard.heartbeats.size() - 1).getFree().getCpu(), 1e-9, "all room back");
    }

    @Test
    void killsAttemptsANodeRunsThatTheShardNoLongerTracks() {
        NodeHeartbeat hb = node("n1", 4, 4096 * MIB, shard.now);
        hb.setRunningAttempts(List.of("old.attempt.1"));
        shard.heartbeat(hb);
        Assignment kill = shard.assignment();
        assertEquals(AssignmentAction.KILL, kill.getAction());
        assertEquals("old.attempt.1", kill.getAttemptId());
    }

    @Test
    void cancelDropsAQueuedAttemptAndKillsAPlacedOne() {
        shard.heartbeat(node("n1", 0.5, 1024 * MIB, shard.now));
        TaskReady placed = dispatch("j", "a");
        TaskReady queued = dispatch("j", "b");
        shard.assignments();
        shard.events();

        cancel(queued);
        TaskEvent cancelled = shard.event();
        assertEquals(TaskEventType.CANCELLED, cancelled.getType());
        assertEquals(queued.getAttemptId(), cancelled.getAttemptId());

        cancel(placed);
        Assignment kill = shard.assignment();
        assertEquals(AssignmentAction.KILL, kill.getAction());
        assertEquals(placed.getAttemptId(), kill.getAttemptId());
        shard.report(report(placed, AttemptState.CANCELLED, 137));
        assertEquals(TaskEventType.CANCELLED, shard.event().getType());
    }

    @Test
    void aHigherPriorityAttemptPreemptsLowerOnesWhichAreRetriedWithoutBudget() {
        shard.heartbeat(node("n1", 2, 4096 * MIB, shard.now));
        TaskReady low1 = dispatch("batch", "a", 0, 1);
        TaskReady low2 = dispatch("batch", "b", 0, 1);
        assertEquals(2, shard.assignments().size());
        shard.events();

        TaskReady urgent = dispatch("urgent", "u", 5, 1);
        Assignment kill = shard.assignment();
        assertEquals(AssignmentAction.KILL, kill.getAction());
        assertEquals(low2.getAttemptId(), kill.getAttemptId(), "the most recently placed goes first");
        assertTrue(kill.getReason().startsWith("preempted for higher-priority attempt " + urgent.getAttemptId()), kill.getReason());
        TaskEvent held = shard.event();
        assertEquals(TaskEventType.HELD, held.getType());
        assertTrue(held.getReason().endsWith("preempting 1 lower-priority attempt on n1"), held.getReason());

        // Until the node reports the victim stopped, its room is not given away and nothing else is killed.
        dispatch("urgent", "v", 5, 1);
        assertTrue(shard.noAssignments(), "the second urgent attempt waits for the room already being freed");
        shard.events();

        shard.report(report(low2, AttemptState.CANCELLED, 137));
        var out = shard.events();
        TaskEvent preempted = out.get(0);
        assertEquals(low2.getAttemptId(), preempted.getAttemptId());
        assertEquals(TaskEventType.FAILED, preempted.getType());
        assertEquals(FailureClass.PREEMPTED, preempted.getFailureClass());
        Assignment run = shard.assignment();
        assertEquals(AssignmentAction.RUN, run.getAction());
        assertEquals(urgent.getAttemptId(), run.getAttemptId(), "the freed room goes to the attempt it was freed for");
        assertNotNull(low1);
    }

    @Test
    void aPlacementCarriesItsPriceAndTheHeartbeatTheCatalogue() {
        NodeClasses catalogue = new NodeClasses(List.of(NodeClass.newBuilder().setName("standard-4")
                .setCapacity(new Capacity(4.0, 8192 * MIB, 0L, 0)).setOnDemandPerHour(0.40).setSpotPerHour(0.10).build()));
        start(new ShardSettings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000, QueueQuotas.none(), 10,
                Duration.ofSeconds(20), catalogue));
        NodeHeartbeat onDemand = node("n1", 4, 8192 * MIB, shard.now);
        onDemand.setNodeClass("standard-4");
        NodeHeartbeat spot = node("n2", 4, 8192 * MIB, shard.now);
        spot.setNodeClass("standard-4");
        spot.setSpot(true);
        NodeHeartbeat unpriced = node("n3", 4, 8192 * MIB, shard.now);
        shard.heartbeat(onDemand);
        dispatch("j", "a", 0, 2); // half the node's cores
        shard.heartbeat(spot);
        TaskReady b = dispatch("j", "b", 0, 3);
        shard.heartbeat(unpriced);
        dispatch("j", "c", 0, 4);
        List<TaskEvent> placed = shard.events().stream().filter(e -> e.getType() == TaskEventType.PLACED).toList();
        assertEquals(List.of("n1", "n2", "n3"), placed.stream().map(TaskEvent::getNodeId).toList());
        assertEquals(0.20, placed.get(0).getCostPerHour(), 1e-12, "0.40 an hour on demand times half the node");
        assertEquals(0.075, placed.get(1).getCostPerHour(), 1e-12, "0.10 an hour on spot times three quarters of the node");
        assertNull(placed.get(2).getCostPerHour(), "a node of no class in the catalogue is unpriced");

        shard.report(report(b, AttemptState.SUCCEEDED, 0));
        shard.runFor(2);
        NodeClass reported = shard.heartbeats.get(shard.heartbeats.size() - 1).getNodeClasses().get(0);
        assertEquals(List.of("standard-4", 2, 1, 1), List.of(reported.getName(), reported.getNodes(), reported.getSpotNodes(),
                reported.getIdleNodes()), "two nodes of the class, one on spot, which runs nothing");
    }

    @Test
    void preemptionIsRateLimited() {
        start(new ShardSettings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000,
                io.flash.ecs.core.queue.QueueQuotas.none(), 1));
        shard.heartbeat(node("n1", 2, 4096 * MIB, shard.now));
        dispatch("batch", "a", 0, 1);
        dispatch("batch", "b", 0, 1);
        shard.assignments();
        dispatch("urgent", "u", 5, 2);
        var kills = shard.assignments();
        assertEquals(0, kills.size(), "two victims exceed a budget of one per minute");
        var held = shard.events();
        assertTrue(held.get(held.size() - 1).getReason().endsWith("would exceed 1 per minute, waiting"),
                held.get(held.size() - 1).getReason());
    }

    @Test
    void aQueueAtItsQuotaWaitsWhileOthersRun() {
        start(new ShardSettings("ecs", Duration.ofSeconds(15), Duration.ofSeconds(1), 1000,
                io.flash.ecs.core.queue.QueueQuotas.parse("batch=0.5"), 10));
        shard.heartbeat(node("n1", 4, 4096 * MIB, shard.now));
        for (String name : List.of("a", "b", "c")) {
            TaskDefinition def = task(name);
            def.setResources(new Capacity(1.0, 64 * MIB, 0L, 0));
            TaskReady r = ready("batch-job", def, 1);
            r.setQueue("batch");
            shard.dispatch(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(r)
                    .setDispatchedAt(shard.now).build());
        }
        assertEquals(List.of("batch-job.a.1", "batch-job.b.1"),
                shard.assignments().stream().map(Assignment::getAttemptId).toList(), "half of 4 cpu");
        TaskEvent held = shard.events().stream().filter(e -> e.getType() == TaskEventType.HELD).findFirst().orElseThrow();
        assertEquals("ecs shard 0: queue batch is at its quota (50% of the shard; it holds 50% of cpu and 3% of memory)", held.getReason());
        TaskReady other = dispatch("other-job", "d", 0, 1);
        assertEquals(other.getAttemptId(), shard.assignment().getAttemptId(), "another queue still gets the free room");
    }
}
