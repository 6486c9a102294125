package io.flash.ecs.kafka;

import io.flash.common.streams.QuietInput;
import io.flash.common.framework.CatchUp;
import io.flash.common.framework.Departure;
import io.flash.common.streams.Wiring;
import io.flash.common.topics.FlashTopics;
import io.flash.ecs.core.ShardMetrics;
import io.flash.ecs.core.ShardSettings;
import io.flash.ecs.core.placement.BinPacker;
import io.flash.schema.*;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;

/**
 * framework-ecs (level 2). The framework's tasks, node heartbeats and node events topics are
 * co-partitioned: partition i of all three is scheduling shard i, which owns the nodes whose id
 * hashes to i and the tasks the dispatcher routed to i. State per shard: {@link #NODES_STORE}
 * (node id → NodeRecord), {@link #QUEUE_STORE} (attempt id → TaskDispatch waiting for a node),
 * {@link #PLACEMENTS_STORE} (attempt id → Placement), {@link #SHARD_STORE} (the shard's own clock).
 */
public final class EcsTopology {

    public static final String NODES_STORE = "ecs-nodes";
    public static final String QUEUE_STORE = "ecs-queue";
    public static final String PLACEMENTS_STORE = "ecs-placements";
    /** The shard's own clock: when it last ticked, and before when its dispatches are fenced ({@link CatchUp}). */
    public static final String SHARD_STORE = "ecs-shard";

    static final String TASKS = "framework-tasks";
    static final String NODES = "node-heartbeats";
    static final String NODE_EVENTS = "node-events";
    static final String SCHEDULER = "scheduler";
    static final String ASSIGNMENTS_SINK = "assignments";
    static final String EVENTS_SINK = "task-events";
    static final String HEARTBEAT_SINK = "framework-heartbeats";
    /** The shard's own tasks partition: the marker of {@link CatchUp}. */
    static final String OWN_TASKS_SINK = "own-tasks";

    private EcsTopology() {
    }

    /** Without metrics (tests, benchmarks). */
    public static Topology build(FlashTopics topics, ShardSettings settings, Clock clock) {
        return build(topics, settings, clock, new SimpleMeterRegistry());
    }

    /** For an instance that never says it is leaving. */
    public static Topology build(FlashTopics topics, ShardSettings settings, Clock clock, MeterRegistry meters) {
        return build(topics, settings, clock, meters, new Departure());
    }

    public static Topology build(FlashTopics topics, ShardSettings settings, Clock clock, MeterRegistry meters, Departure departure) {
        String fw = settings.frameworkId();
        ShardMetrics metrics = new MeteredShard(meters, fw);
        Topology topology = new Topology();
        Wiring.source(topology, TASKS, topics.frameworkTasks(fw));
        Wiring.source(topology, NODES, topics.frameworkNodes(fw));
        Wiring.source(topology, NODE_EVENTS, topics.frameworkNodeEvents(fw));
        QuietInput quietInput = QuietInput.defaults(); // one for all of the instance's tasks: a commit is the thread's
        topology.addProcessor(SCHEDULER, () -> new SchedulerProcessor(settings, new BinPacker(), clock, metrics, departure, quietInput),
                TASKS, NODES, NODE_EVENTS);
        Wiring.store(topology, NODES_STORE, topics.storeSerde(NodeRecord.class), SCHEDULER);
        Wiring.store(topology, QUEUE_STORE, topics.storeSerde(TaskDispatch.class), SCHEDULER);
        Wiring.store(topology, PLACEMENTS_STORE, topics.storeSerde(Placement.class), SCHEDULER);
        Wiring.store(topology, SHARD_STORE, Serdes.Long(), SCHEDULER);
        Wiring.sink(topology, ASSIGNMENTS_SINK, topics.frameworkAssignments(fw), SCHEDULER);
        Wiring.sink(topology, EVENTS_SINK, topics.tasksEvents, SCHEDULER);
        Wiring.markerSink(topology, OWN_TASKS_SINK, topics.frameworkTasks(fw), SCHEDULER);
        Wiring.sink(topology, HEARTBEAT_SINK, topics.frameworkHeartbeats, SCHEDULER);
        return topology;
    }

}
