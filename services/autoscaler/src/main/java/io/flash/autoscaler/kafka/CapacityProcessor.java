package io.flash.autoscaler.kafka;

import io.flash.autoscaler.core.CapacityPlanner;
import io.flash.autoscaler.core.FrameworkSight;
import io.flash.autoscaler.core.ShardOfNode;
import io.flash.schema.CapacityDecision;
import io.flash.schema.CapacityState;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.NodeHeartbeat;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.jboss.logging.Logger;

/**
 * Adapts {@link CapacityPlanner} to the stream: keeps each framework shard's latest heartbeat,
 * reads the frameworks' nodes from global stores, and on every tick lets the planner decide,
 * keeping its state and publishing its decisions in the same transaction — so a crash repeats
 * nothing it published.
 */
final class CapacityProcessor implements Processor<String, FrameworkHeartbeat, String, CapacityDecision> {

    private static final Logger LOG = Logger.getLogger(CapacityProcessor.class);

    private final AutoscalerTopology.Settings settings;
    private final Clock clock;
    private final CapacityMetrics metrics;
    private final Map<String, String> lastHeld = new HashMap<>();
    private ProcessorContext<String, CapacityDecision> context;
    private KeyValueStore<String, FrameworkHeartbeat> shards;
    private KeyValueStore<String, CapacityState> states;
    private final Map<String, ReadOnlyKeyValueStore<String, NodeHeartbeat>> nodes = new HashMap<>();

    CapacityProcessor(AutoscalerTopology.Settings settings, Clock clock, CapacityMetrics metrics) {
        this.settings = settings;
        this.clock = clock;
        this.metrics = metrics;
    }

    @Override
    public void init(ProcessorContext<String, CapacityDecision> context) {
        this.context = context;
        shards = context.getStateStore(AutoscalerTopology.SHARDS_STORE);
        states = context.getStateStore(AutoscalerTopology.STATE_STORE);
        for (String framework : settings.shards().keySet()) nodes.put(framework, context.getStateStore(AutoscalerTopology.nodesStore(framework)));
        context.schedule(settings.tick(), PunctuationType.WALL_CLOCK_TIME, ignored -> decide(clock.millis()));
    }

    @Override
    public void process(Record<String, FrameworkHeartbeat> record) {
        FrameworkHeartbeat hb = record.value();
        if (hb != null && settings.shards().containsKey(hb.getFrameworkId())) shards.put(record.key(), hb);
    }

    private void decide(long now) {
        for (Map.Entry<String, Integer> framework : settings.shards().entrySet()) {
            String id = framework.getKey();
            ShardOfNode shardOf = node -> AutoscalerTopology.shardOf(node, framework.getValue());
            Optional<FrameworkSight> sight = Sights.of(id, framework.getValue(), heartbeats(id), nodesOf(id), shardOf, now,
                    settings.nodeTimeout().toMillis());
            if (sight.isEmpty()) continue;
            CapacityState state = Optional.ofNullable(states.get(id)).orElseGet(() -> CapacityState.newBuilder().setFrameworkId(id).build());
            CapacityPlanner.Plan plan = new CapacityPlanner(settings.planner(), shardOf).decide(sight.get(), state, now);
            states.put(id, state);
            metrics.saw(sight.get(), state);
            for (CapacityDecision decision : plan.decisions()) {
                metrics.decided(decision);
                LOG.infof("%s %s %s: %s", id, decision.getAction(), decision.getNodeId(), decision.getReason());
                context.forward(new Record<>(id, decision, now));
            }
            if (!plan.held().isEmpty() && !plan.held().equals(lastHeld.put(id, plan.held()))) LOG.warnf("%s: %s", id, plan.held());
        }
    }

    private Map<Integer, FrameworkHeartbeat> heartbeats(String framework) {
        Map<Integer, FrameworkHeartbeat> byShard = new HashMap<>();
        try (KeyValueIterator<String, FrameworkHeartbeat> all = shards.prefixScan(framework + "/", Serdes.String().serializer())) {
            all.forEachRemaining(kv -> byShard.put(kv.value.getShard(), kv.value));
        }
        return byShard;
    }

    private List<NodeHeartbeat> nodesOf(String framework) {
        List<NodeHeartbeat> all = new ArrayList<>();
        try (KeyValueIterator<String, NodeHeartbeat> it = nodes.get(framework).all()) {
            it.forEachRemaining((KeyValue<String, NodeHeartbeat> kv) -> all.add(kv.value));
        }
        return all;
    }
}
