package io.flash.autoscaler.kafka;

import io.flash.autoscaler.core.ScalerSettings;
import io.flash.common.testing.ListedTopics;
import io.flash.common.testing.MutableClock;
import io.flash.common.testing.TopologyHarness;
import io.flash.schema.Capacity;
import io.flash.schema.CapacityAction;
import io.flash.schema.CapacityDecision;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.NodeClass;
import io.flash.schema.NodeHeartbeat;
import io.flash.schema.QueuedShape;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The autoscaler's topology on TopologyTestDriver: heartbeats in, decisions out, its state kept in its store. */
class AutoscalerTopologyTest {

    private static final long GI = 1L << 30;
    private static final int SHARDS = 2;
    private final MutableClock clock = new MutableClock(100_000);
    private TopologyHarness harness;
    private TestInputTopic<String, FrameworkHeartbeat> heartbeats;
    private TestInputTopic<String, NodeHeartbeat> nodes;
    private TestOutputTopic<String, CapacityDecision> decisions;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @BeforeEach
    void setUp() {
        ScalerSettings planner = new ScalerSettings(Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofMinutes(3),
                Duration.ofSeconds(30), 10, 5.0);
        harness = new TopologyHarness("autoscaler-test", clock.instant(), topics -> AutoscalerTopology.build(topics,
                new AutoscalerTopology.Settings(Map.of("ecs", SHARDS), planner, Duration.ofSeconds(1), Duration.ofSeconds(15)), clock,
                meters));
        heartbeats = harness.input(harness.topics.frameworkHeartbeats);
        nodes = harness.input(harness.topics.frameworkNodes("ecs"));
        decisions = harness.output(harness.topics.capacityDecisions);
    }

    @AfterEach
    void tearDown() {
        harness.close();
    }

    private void beat(int waiting) {
        for (int shard = 0; shard < SHARDS; shard++) {
            FrameworkHeartbeat hb = FrameworkHeartbeat.newBuilder().setFrameworkId("ecs").setShard(shard).setNodes(0)
                    .setTotal(new Capacity()).setFree(new Capacity()).setLargestNodeFree(new Capacity()).setLargestNodeTotal(new Capacity())
                    .setQueued(shard == 0 ? waiting : 0).setQueuedDemand(new Capacity()).setAcceptLimit(1000).setSentAt(clock.millis())
                    .setNodeClasses(List.of(NodeClass.newBuilder().setName("standard-2").setCapacity(new Capacity(2.0, 4 * GI, 0L, 0))
                            .setOnDemandPerHour(0.085).setSpotPerHour(0.035).build()))
                    .setQueuedShapes(shard == 0 && waiting > 0 ? List.of(new QueuedShape(new Capacity(1.0, GI, 0L, 0), waiting, true))
                            : List.of())
                    .build();
            heartbeats.pipeInput("ecs/" + shard, hb);
        }
    }

    private void tick(int seconds) {
        for (int i = 0; i < seconds; i++) {
            clock.advance(1_000);
            harness.driver.advanceWallClockTime(Duration.ofSeconds(1));
        }
    }

    @Test
    void waitingWorkLaunchesNodesInItsShardOnceAndAnIdleOneIsDrainedWhenItHasReported() {
        beat(4);
        tick(3);
        beat(4);
        assertTrue(decisions.isEmpty(), "not before scale-up-after");
        tick(3);
        List<CapacityDecision> launches = decisions.readValuesToList();
        assertEquals(2, launches.size(), "four attempts of 1 cpu: two standard-2 nodes");
        for (CapacityDecision d : launches) {
            assertEquals(CapacityAction.LAUNCH, d.getAction());
            assertEquals(0, AutoscalerTopology.shardOf(d.getNodeId(), SHARDS), d.getNodeId() + " lands in shard 0");
            assertTrue(d.getSpot());
        }
        beat(4);
        tick(5);
        assertTrue(decisions.isEmpty(), "launched nodes count as room until they report");
        assertEquals(2.0, meters.get("flash_autoscaler_nodes").tag("class", "standard-2").tag("state", "launching").gauge().value());
        assertEquals(2.0, meters.get("flash_autoscaler_decisions").tag("action", "LAUNCH").counter().count());

        for (CapacityDecision d : launches) {
            nodes.pipeInput(d.getNodeId(), NodeHeartbeat.newBuilder().setNodeId(d.getNodeId()).setFrameworkId("ecs")
                    .setTotal(d.getCapacity()).setFree(d.getCapacity()).setNodeClass("standard-2").setSpot(true)
                    .setLabels(Map.of(Sights.MANAGED_LABEL, Sights.MANAGED_VALUE)).setAssignmentPartition(5).setStartedAt(1L)
                    .setSentAt(clock.millis()).build());
        }
        for (int second = 0; second < 95; second++) { // the work ran and is done; the nodes stay idle
            beat(0);
            for (CapacityDecision d : launches) {
                nodes.pipeInput(d.getNodeId(), NodeHeartbeat.newBuilder().setNodeId(d.getNodeId()).setFrameworkId("ecs")
                        .setTotal(d.getCapacity()).setFree(d.getCapacity()).setNodeClass("standard-2").setSpot(true)
                        .setLabels(Map.of(Sights.MANAGED_LABEL, Sights.MANAGED_VALUE)).setAssignmentPartition(5).setStartedAt(1L)
                        .setSentAt(clock.millis()).build());
            }
            tick(1);
        }
        List<CapacityDecision> drains = decisions.readValuesToList();
        assertEquals(2, drains.size(), drains.toString());
        assertTrue(drains.stream().allMatch(d -> d.getAction() == CapacityAction.DRAIN && d.getAssignmentPartition() == 5));
    }

    @Test
    void nothingIsDecidedBeforeEveryShardHasReported() {
        FrameworkHeartbeat onlyOne = FrameworkHeartbeat.newBuilder().setFrameworkId("ecs").setShard(0).setNodes(0)
                .setTotal(new Capacity()).setFree(new Capacity()).setLargestNodeFree(new Capacity()).setLargestNodeTotal(new Capacity())
                .setQueued(4).setQueuedDemand(new Capacity()).setAcceptLimit(1000).setSentAt(clock.millis())
                .setQueuedShapes(List.of(new QueuedShape(new Capacity(1.0, GI, 0L, 0), 4, true))).build();
        for (int i = 0; i < 10; i++) {
            onlyOne.setSentAt(clock.millis());
            heartbeats.pipeInput("ecs/0", onlyOne);
            tick(1);
        }
        assertTrue(decisions.isEmpty(), "shard 1 has not been heard: half a picture");
    }

    @Test
    void everyTopicItReadsIsWaitedForAtStart() throws Exception {
        ListedTopics.assertListed(AutoscalerTopology.build(harness.topics, new AutoscalerTopology.Settings(Map.of("ecs", SHARDS),
                ScalerSettings.defaults(), Duration.ofSeconds(1), Duration.ofSeconds(15)), clock), Map.of());
    }
}
