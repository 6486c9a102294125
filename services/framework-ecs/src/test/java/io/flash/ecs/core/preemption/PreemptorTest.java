package io.flash.ecs.core.preemption;

import io.flash.common.resources.Resources;
import io.flash.ecs.core.queue.Holdings;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static io.flash.common.testing.Samples.*;
import static org.junit.jupiter.api.Assertions.*;

class PreemptorTest {

    private final Preemptor preemptor = new Preemptor();
    private final Holdings holdings = new Holdings();

    private NodeRecord node(String id, double cpu, Holdings.Held... running) {
        Capacity allocated = Resources.zero();
        for (Holdings.Held h : running) {
            holdings.add(h);
            allocated = Resources.plus(allocated, h.resources());
        }
        return NodeRecord.newBuilder().setHeartbeat(io.flash.common.testing.Samples.node(id, cpu, 8192 * MIB, 0L))
                .setAllocated(allocated).setPlacedAttempts(new ArrayList<>()).setLastSeenAt(0L).setLost(false).build();
    }

    private static Holdings.Held running(String id, String node, double cpu, int priority, long placedAt) {
        return new Holdings.Held(id, "bob", "default", priority, node, new Capacity(cpu, 64 * MIB, 0L, 0), placedAt, false);
    }

    private static TaskDefinition needs(double cpu) {
        TaskDefinition t = task("urgent");
        t.setResources(new Capacity(cpu, 64 * MIB, 0L, 0));
        return t;
    }

    @Test
    void stopsTheLowestPriorityAndNewestAttemptsFirstOnTheNodeNeedingFewest() {
        NodeRecord a = node("a", 4, running("a1", "a", 2, 0, 1), running("a2", "a", 2, 0, 2));
        NodeRecord b = node("b", 4, running("b1", "b", 1, 0, 1), running("b2", "b", 1, -5, 2), running("b3", "b", 1, 0, 3),
                running("b4", "b", 1, 0, 4));
        Preemptor.Plan plan = preemptor.plan(needs(2), 10, List.of(a, b), holdings).orElseThrow();
        // a needs one victim (2 cpu); b needs two — a wins, and on a the newer attempt goes.
        assertEquals("a", plan.nodeId());
        assertEquals(List.of("a2"), plan.victims().stream().map(Holdings.Held::attemptId).toList());

        Preemptor.Plan onB = preemptor.plan(needs(2), 10, List.of(b), holdings).orElseThrow();
        assertEquals(List.of("b2", "b4"), onB.victims().stream().map(Holdings.Held::attemptId).toList(),
                "lowest priority first, then the most recently placed");
    }

    @Test
    void neverStopsEqualOrHigherPriorityWork() {
        NodeRecord a = node("a", 4, running("a1", "a", 4, 10, 1));
        assertTrue(preemptor.plan(needs(2), 10, List.of(a), holdings).isEmpty());
        assertTrue(preemptor.plan(needs(2), 5, List.of(a), holdings).isEmpty());
    }

    @Test
    void roomAlreadyBeingFreedIsNotPreemptedTwice() {
        NodeRecord a = node("a", 4, running("a1", "a", 2, 0, 1), running("a2", "a", 2, 0, 2));
        holdings.markPreempting("a2");
        Preemptor.Plan plan = preemptor.plan(needs(2), 10, List.of(a), holdings).orElseThrow();
        assertEquals("a", plan.nodeId());
        assertTrue(plan.victims().isEmpty(), "a2 is already stopping and frees enough");
    }

    @Test
    void withNothingBelowAndNothingStoppingNoNodeIsLookedAtButRoomBeingFreedStillCounts() {
        NodeRecord a = node("a", 4, running("a1", "a", 2, 10, 1), running("a2", "a", 2, 10, 2));
        List<NodeRecord> untouchable = new AbstractList<>() {
            @Override
            public NodeRecord get(int index) {
                throw new AssertionError("a node was looked at");
            }

            @Override
            public int size() {
                throw new AssertionError("a node was looked at");
            }

            @Override
            public Iterator<NodeRecord> iterator() {
                throw new AssertionError("a node was looked at");
            }
        };
        assertTrue(preemptor.plan(needs(2), 10, untouchable, holdings).isEmpty(), "a queue of equal priorities");

        holdings.markPreempting("a2"); // stopped for someone else: its room frees up for this one too
        assertEquals("a", preemptor.plan(needs(2), 10, List.of(a), holdings).orElseThrow().nodeId());
    }

    @Test
    void aNodeThatCouldNeverTakeTheTaskIsNotEmptied() {
        NodeRecord small = node("small", 1, running("s1", "small", 1, 0, 1));
        assertTrue(preemptor.plan(needs(2), 10, List.of(small), holdings).isEmpty());
    }

    @Test
    void budgetRefillsOverTheMinute() {
        PreemptionBudget budget = new PreemptionBudget(6, 0);
        assertTrue(budget.tryTake(6, 0));
        assertFalse(budget.tryTake(1, 1_000), "0.1 tokens after one second");
        assertTrue(budget.tryTake(1, 10_000), "one token every 10 s");
        assertFalse(new PreemptionBudget(0, 0).enabled());
    }
}
