package io.flash.ecs.core.queue;

import io.flash.schema.Capacity;
import io.flash.schema.TaskDispatch;
import io.flash.schema.TaskReady;
import org.junit.jupiter.api.Test;

import java.util.*;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class FairShareTest {

    private static final Capacity SHARD = new Capacity(10.0, 10_000 * MIB, 0L, 0);

    private static TaskDispatch waiting(String owner, int n, int priority, long at) {
        TaskReady r = ready("j-" + owner, task(owner + n), 1);
        r.setOwner(owner);
        r.setPriority(priority);
        return TaskDispatch.newBuilder().setFrameworkId("ecs").setReady(r).setDispatchedAt(at).build();
    }

    @Test
    void theUserHoldingLessGoesFirstWithinAPriority() {
        FairShare share = new FairShare(SHARD, Map.of("alice", new Capacity(5.0, 0L, 0L, 0)));
        TaskDispatch alice = waiting("alice", 1, 0, 1), bob = waiting("bob", 1, 0, 2);
        assertEquals(bob, share.next(List.of(alice, bob)).orElseThrow(), "bob holds nothing, alice half the cpu");
    }

    @Test
    void dominantShareIsTheLargerOfCpuAndMemory() {
        FairShare share = new FairShare(SHARD, Map.of("alice", new Capacity(1.0, 0L, 0L, 0),
                "bob", new Capacity(0.0, 3_000 * MIB, 0L, 0)));
        assertEquals(0.1, share.dominantShare("alice"), 1e-9);
        assertEquals(0.3, share.dominantShare("bob"), 1e-9);
    }

    @Test
    void priorityComesBeforeFairness() {
        FairShare share = new FairShare(SHARD, Map.of("alice", new Capacity(9.0, 0L, 0L, 0)));
        TaskDispatch urgent = waiting("alice", 1, 10, 5), normal = waiting("bob", 1, 0, 1);
        assertEquals(urgent, share.next(List.of(normal, urgent)).orElseThrow());
    }

    @Test
    void thePlacementOrderPutsPriorityFirstThenAlternatesUsersAsEachPickWouldHoldRoom() {
        TaskDispatch a1 = waiting("alice", 1, 0, 1), a2 = waiting("alice", 2, 0, 2), a3 = waiting("alice", 3, 0, 3);
        TaskDispatch b1 = waiting("bob", 1, 0, 4), b2 = waiting("bob", 2, 0, 5), urgent = waiting("carol", 1, 5, 9);
        List<String> order = new FairShare(SHARD, Map.of()).placementOrder(WaitingLines.of(List.of(a1, a2, a3, b1, b2, urgent)), 10);
        assertEquals(List.of(urgent, a1, b1, a2, b2, a3).stream().map(d -> d.getReady().getAttemptId()).toList(), order);
        assertEquals(2, new FairShare(SHARD, Map.of()).placementOrder(WaitingLines.of(List.of(a1, a2, a3, b1, b2, urgent)), 2).size(), "at most the limit");
    }

    @Test
    void twoUsersAlternateAsPlacementsAccumulate() {
        FairShare share = new FairShare(SHARD, Map.of());
        List<TaskDispatch> queue = new ArrayList<>();
        for (int i = 0; i < 100; i++) queue.add(waiting("alice", i, 0, i));      // alice submitted first
        for (int i = 0; i < 100; i++) queue.add(waiting("bob", i, 0, 100 + i));
        Map<String, Integer> placed = new HashMap<>();
        for (int slot = 0; slot < 20; slot++) {                                  // room for 20 half-core tasks
            TaskDispatch next = share.next(queue).orElseThrow();
            queue.remove(next);
            share.placed(next.getReady().getOwner(), next.getReady().getTask().getResources());
            placed.merge(next.getReady().getOwner(), 1, Integer::sum);
        }
        assertEquals(Map.of("alice", 10, "bob", 10), placed);
    }

    private static TaskDispatch sized(String owner, int n, double cpu, long at) {
        TaskDispatch d = waiting(owner, n, 0, at);
        d.getReady().getTask().setResources(new Capacity(cpu, 64 * MIB, 0L, 0));
        return d;
    }

    @Test
    void aUsersAttemptsOfDifferentSizesStillGoFirstComeFirstServed() {
        TaskDispatch big1 = sized("alice", 1, 2.0, 1), small2 = sized("alice", 2, 0.5, 2), big3 = sized("alice", 3, 2.0, 3);
        assertEquals(List.of(big1, small2, big3).stream().map(d -> d.getReady().getAttemptId()).toList(),
                new FairShare(SHARD, Map.of()).placementOrder(WaitingLines.of(List.of(big3, small2, big1)), 10));
    }

    @Test
    void skippingAGroupPassesOverItsRestButNotTheUsersOtherAttemptsNorOtherUsers() {
        TaskDispatch big1 = sized("alice", 1, 2.0, 1), big2 = sized("alice", 2, 2.0, 2), small3 = sized("alice", 3, 0.5, 3);
        TaskDispatch big4 = sized("alice", 4, 2.0, 4), bob5 = sized("bob", 5, 2.0, 5);
        WaitingLines lines = WaitingLines.of(List.of(big1, big2, small3, big4, bob5));
        FairShare share = new FairShare(SHARD, Map.of());
        FairShare.Pass pass = share.pass(lines);
        List<TaskDispatch> seen = new ArrayList<>();
        while (pass.hasNext()) {
            TaskDispatch next = pass.next();
            seen.add(next);
            if (next == big1) pass.skipGroup();                       // alice's 2-cpu attempts fit nowhere
            else {
                lines.remove(next.getReady().getAttemptId());        // placed: it leaves the queue mid-pass
                share.placed(next.getReady().getOwner(), next.getReady().getTask().getResources());
            }
        }
        assertEquals(List.of(big1, small3, bob5), seen, "alice's small one still backfills, then bob holds less than alice");
        assertEquals(3, lines.size(), "the skipped group still waits whole");
    }
}
