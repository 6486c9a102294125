package io.flash.autoscaler.core;

import io.flash.schema.Capacity;
import io.flash.schema.CapacityAction;
import io.flash.schema.CapacityDecision;
import io.flash.schema.CapacityState;
import io.flash.schema.NodeClass;
import io.flash.schema.QueuedShape;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The autoscaler's decisions, in memory: when to add which nodes where, when to return them, and the limits. */
class CapacityPlannerTest {

    private static final long GI = 1L << 30;
    private static final int SHARDS = 3;
    private static final List<NodeClass> CATALOGUE = List.of(
            nodeClass("small", 2, 4, 0.10, 0.04),
            nodeClass("large", 8, 16, 0.32, 0.13)); // per attempt of 1 cpu: small 0.05 (spot 0.02), large 0.04 (spot 0.016)
    private final ScalerSettings settings = new ScalerSettings(Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofMinutes(3),
            Duration.ofSeconds(30), 10, 5.0);
    private final CapacityPlanner planner = new CapacityPlanner(settings, id -> Math.floorMod(id.hashCode(), SHARDS));
    private final CapacityState state = CapacityState.newBuilder().setFrameworkId("ecs").build();

    private static NodeClass nodeClass(String name, int cpu, int gib, double onDemand, double spot) {
        return NodeClass.newBuilder().setName(name).setCapacity(new Capacity((double) cpu, gib * GI, 0L, 0))
                .setOnDemandPerHour(onDemand).setSpotPerHour(spot).build();
    }

    private static QueuedShape waiting(int count, double cpu, boolean spotAllowed) {
        return new QueuedShape(new Capacity(cpu, GI, 0L, 0), count, spotAllowed);
    }

    private static FrameworkSight sight(List<QueuedShape> shard1Waiting, List<FrameworkSight.Node> nodes) {
        List<FrameworkSight.Shard> shards = new ArrayList<>();
        for (int s = 0; s < SHARDS; s++) {
            int shard = s;
            shards.add(new FrameworkSight.Shard(s, s == 1 ? shard1Waiting : List.of(),
                    nodes.stream().filter(n -> Math.floorMod(n.nodeId().hashCode(), SHARDS) == shard).toList()));
        }
        return new FrameworkSight("ecs", CATALOGUE, shards);
    }

    private static FrameworkSight.Node node(String id, String nodeClass, boolean spot, int running, double freeCpu) {
        return new FrameworkSight.Node(id, nodeClass, spot, new Capacity(freeCpu, 4 * GI, 0L, 0), running, true, true, 2);
    }

    @Test
    void workThatWaitsWithNoRoomGetsTheCheapestNodesInItsShardOnce() {
        FrameworkSight busy = sight(List.of(waiting(5, 1.0, true)), List.of());
        assertTrue(planner.decide(busy, state, 0).decisions().isEmpty(), "a queue is not chased at once");
        assertTrue(planner.decide(busy, state, 4_000).decisions().isEmpty());

        List<CapacityDecision> launches = planner.decide(busy, state, 5_000).decisions();
        assertEquals(3, launches.size(), "five attempts of 1 cpu: three small nodes (two each)");
        for (CapacityDecision d : launches) {
            assertEquals(CapacityAction.LAUNCH, d.getAction());
            assertEquals(List.of("small", true), List.of(d.getNodeClass(), d.getSpot()), "the cheapest in all, on spot");
            assertEquals(1, Math.floorMod(d.getNodeId().hashCode(), SHARDS), d.getNodeId() + " lands in the shard where the work waits");
            assertTrue(d.getReason().startsWith("5 attempts of 1.0 cpu / 1024 Mi have waited in shard 1 since 5 s ago with no room; "
                    + "small on spot holds 2 of them for 0.0400 an hour"), d.getReason());
        }
        assertEquals(3, launches.stream().map(CapacityDecision::getNodeId).distinct().count());
        assertTrue(planner.decide(busy, state, 6_000).decisions().isEmpty(), "launched nodes count as room until they report");
        CapacityState copy = CapacityState.newBuilder(state).build();
        assertEquals(planner.decide(busy, copy, 7_000).decisions(), planner.decide(busy, state, 7_000).decisions(),
                "the same state decides the same");
    }

    @Test
    void workThatMayNotUseSpotGetsOnDemandNodesAndFreeRoomIsUsedFirst() {
        FrameworkSight sight = sight(List.of(waiting(3, 1.0, false)),
                List.of(node("ecs-fixed-shard1-" + shardSuffix(1), "small", false, 1, 1.0)));
        planner.decide(sight, state, 0);
        List<CapacityDecision> launches = planner.decide(sight, state, 5_000).decisions();
        assertEquals(1, launches.size(), "one fits the fixed node's free cpu; two need one small node");
        assertFalse(launches.get(0).getSpot());
        assertTrue(launches.get(0).getReason().contains("small on demand holds 2 of them for 0.1000 an hour"), launches.get(0).getReason());
    }

    @Test
    void theLimitsHoldAndSaySo() {
        FrameworkSight many = sight(List.of(waiting(100, 1.0, true)), List.of());
        planner.decide(many, state, 0);
        CapacityPlanner.Plan plan = planner.decide(many, state, 5_000);
        assertEquals(10, plan.decisions().size(), "max-nodes");
        assertTrue(plan.held().contains("stopped at the limit of 10 nodes (max-nodes)"), plan.held());

        CapacityPlanner pricey = new CapacityPlanner(new ScalerSettings(Duration.ZERO, Duration.ofSeconds(60), Duration.ofMinutes(3),
                Duration.ofSeconds(30), 100, 0.10), id -> Math.floorMod(id.hashCode(), SHARDS));
        CapacityState fresh = CapacityState.newBuilder().setFrameworkId("ecs").build();
        CapacityPlanner.Plan cheap = pricey.decide(sight(List.of(waiting(6, 1.0, true)), List.of()), fresh, 0);
        assertEquals(2, cheap.decisions().size(), "of three small spot nodes at 0.04 an hour, two fit 0.10");
        assertTrue(cheap.held().contains("the limit of 0.1000 an hour (max-spend-per-hour; 0.0800 spent)"), cheap.held());

        CapacityPlan huge = new CapacityPlan(pricey.decide(sight(List.of(waiting(1, 64.0, true)), List.of()), fresh, 1));
        assertTrue(huge.plan.held().contains("1 attempts of 64.0 cpu / 1024 Mi in shard 1 fit no node class"), huge.plan.held());
    }

    private record CapacityPlan(CapacityPlanner.Plan plan) {
    }

    @Test
    void aLaunchThatNeverReportsIsGivenUpAndTheWorkCountsAgain() {
        FrameworkSight busy = sight(List.of(waiting(1, 1.0, true)), List.of());
        planner.decide(busy, state, 0);
        assertEquals(1, planner.decide(busy, state, 5_000).decisions().size());
        assertTrue(planner.decide(busy, state, 5_000 + Duration.ofMinutes(3).toMillis()).decisions().isEmpty(), "not yet");
        long givenUp = 6_000 + Duration.ofMinutes(3).toMillis();
        assertTrue(planner.decide(busy, state, givenUp).decisions().isEmpty(), "the work waits again, from now");
        assertEquals(1, planner.decide(busy, state, givenUp + 5_000).decisions().size(), "another node");
    }

    @Test
    void aNodeItLaunchedThatStaysIdleIsDrainedDownToZeroAndOnlyOnce() {
        String launched = "ecs-small-" + shardSuffix(1);
        FrameworkSight quiet = sight(List.of(), List.of(node(launched, "small", true, 0, 2.0),
                new FrameworkSight.Node("fixed", "small", false, new Capacity(2.0, 4 * GI, 0L, 0), 0, true, false, 0)));
        assertTrue(planner.decide(quiet, state, 0).decisions().isEmpty());
        assertTrue(planner.decide(quiet, state, 59_000).decisions().isEmpty(), "idle, but not for a minute yet");
        List<CapacityDecision> drains = planner.decide(quiet, state, 60_000).decisions();
        assertEquals(1, drains.size(), "the fixed node is not the autoscaler's to return");
        CapacityDecision drain = drains.get(0);
        assertEquals(List.of(CapacityAction.DRAIN, launched, 2), List.of(drain.getAction(), drain.getNodeId(), drain.getAssignmentPartition()));
        assertTrue(drain.getReason().startsWith("ran nothing for 60 s and nothing waits"), drain.getReason());
        assertTrue(planner.decide(quiet, state, 61_000).decisions().isEmpty(), "drained once");
        long lost = 61_000 + Duration.ofMinutes(3).toMillis();
        planner.decide(quiet, state, lost); // still there and still taking work: the drain never reached it
        assertEquals(CapacityAction.DRAIN, planner.decide(quiet, state, lost + 60_000).decisions().get(0).getAction(),
                "a drain the node never took is decided again after the launch timeout");
    }

    @Test
    void noDrainWhileWorkWaitsOrRightAfterALaunch() {
        String launched = "ecs-small-" + shardSuffix(1);
        FrameworkSight busyElsewhere = sight(List.of(waiting(1, 4.0, true)), List.of(node(launched, "small", true, 0, 2.0)));
        planner.decide(busyElsewhere, state, 0);
        List<CapacityDecision> decisions = planner.decide(busyElsewhere, state, 120_000).decisions();
        assertTrue(decisions.stream().noneMatch(d -> d.getAction() == CapacityAction.DRAIN), "work waits: " + decisions);
        FrameworkSight quiet = sight(List.of(), List.of(node(launched, "small", true, 0, 2.0)));
        assertTrue(planner.decide(quiet, state, 130_000).decisions().isEmpty(), "a launch 10 s ago: cooling down");
        assertEquals(1, planner.decide(quiet, state, 150_000).decisions().size());
    }

    /** A suffix that puts "ecs-small-"/"ecs-fixed-shard1-" ids in the wanted shard of this test's hash. */
    private static String shardSuffix(int shard) {
        for (int i = 0; ; i++) {
            if (Math.floorMod(("ecs-small-x" + i).hashCode(), SHARDS) == shard) return "x" + i;
        }
    }
}
