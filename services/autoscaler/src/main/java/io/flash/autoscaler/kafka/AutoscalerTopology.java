package io.flash.autoscaler.kafka;

import io.flash.autoscaler.core.ScalerSettings;
import io.flash.common.streams.Wiring;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.KeyPartitions;
import io.flash.schema.CapacityState;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.NodeHeartbeat;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.streams.Topology;

/**
 * The autoscaler (docs/autoscaling.md): the frameworks' heartbeats in (one partition, so one task
 * decides for every framework), each framework's nodes through a global store, its decisions out to
 * {@code flash.capacity.decisions}; what it remembers in {@link #STATE_STORE}, changelogged with
 * the decisions in one transaction.
 */
public final class AutoscalerTopology {

    static final String SHARDS_STORE = "autoscaler-shards";
    static final String STATE_STORE = "autoscaler-state";
    private static final String HEARTBEATS = "framework-heartbeats";
    private static final String CAPACITY = "capacity";
    private static final String DECISIONS = "capacity-decisions";

    /**
     * @param shards      each framework it decides for, with its number of shards (partitions of its nodes topic)
     * @param planner     the decisions' knobs
     * @param tick        how often it decides
     * @param nodeTimeout a node (or shard) whose newest heartbeat is older is not counted
     */
    public record Settings(Map<String, Integer> shards, ScalerSettings planner, Duration tick, Duration nodeTimeout) {
    }

    private AutoscalerTopology() {
    }

    /** Without metrics (tests). */
    public static Topology build(FlashTopics topics, Settings settings, Clock clock) {
        return build(topics, settings, clock, new SimpleMeterRegistry());
    }

    public static Topology build(FlashTopics topics, Settings settings, Clock clock, MeterRegistry meters) {
        Topology topology = new Topology();
        CapacityMetrics metrics = new CapacityMetrics(meters);
        Wiring.source(topology, HEARTBEATS, topics.frameworkHeartbeats);
        topology.addProcessor(CAPACITY, () -> new CapacityProcessor(settings, clock, metrics), HEARTBEATS);
        Wiring.store(topology, SHARDS_STORE, topics.storeSerde(FrameworkHeartbeat.class), CAPACITY);
        Wiring.store(topology, STATE_STORE, topics.storeSerde(CapacityState.class), CAPACITY);
        for (String framework : settings.shards().keySet()) {
            Wiring.globalTable(topology, nodesStore(framework), topics.frameworkNodes(framework), topics.storeSerde(NodeHeartbeat.class),
                    "nodes-" + framework, "nodes-updater-" + framework);
        }
        Wiring.sink(topology, DECISIONS, topics.capacityDecisions, CAPACITY);
        return topology;
    }

    static String nodesStore(String framework) {
        return "autoscaler-nodes-" + framework;
    }

    /** The shard a node id lands in: the partition Kafka's default partitioner gives its heartbeats' key. */
    public static int shardOf(String nodeId, int shards) {
        return KeyPartitions.of(nodeId, shards);
    }
}
