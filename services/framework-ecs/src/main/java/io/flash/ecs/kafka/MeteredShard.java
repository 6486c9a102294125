package io.flash.ecs.kafka;

import io.flash.ecs.core.ShardMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;

/** A shard's counts as Micrometer meters for /q/metrics; rates come from the counters (e.g. rate() in Prometheus). */
final class MeteredShard implements ShardMetrics {

    private final Counter placements;
    private final Counter tries;
    private final Counter preemptions;
    private final Counter nodesLost;
    private final Timer placementLatency;

    MeteredShard(MeterRegistry meters, String frameworkId) {
        placements = Counter.builder("flash.framework.placements").tag("framework", frameworkId)
                .description("attempts placed on a node").register(meters);
        tries = Counter.builder("flash.framework.placement.tries").tag("framework", frameworkId)
                .description("waiting attempts tried for placement (placed or not): what scheduling passes cost").register(meters);
        preemptions = Counter.builder("flash.framework.preemptions").tag("framework", frameworkId)
                .description("attempts stopped for higher-priority work").register(meters);
        nodesLost = Counter.builder("flash.framework.nodes.lost").tag("framework", frameworkId)
                .description("nodes declared lost after their heartbeats stopped").register(meters);
        placementLatency = Timer.builder("flash.framework.placement.latency").tag("framework", frameworkId)
                .description("dispatch to placement, queueing included").publishPercentiles(0.5, 0.95, 0.99)
                .register(meters);
    }

    @Override
    public void placed(long dispatchedAt, long now) {
        placements.increment();
        placementLatency.record(Duration.ofMillis(Math.max(0, now - dispatchedAt)));
    }

    @Override
    public void tried() {
        tries.increment();
    }

    @Override
    public void preempted() {
        preemptions.increment();
    }

    @Override
    public void nodeLost() {
        nodesLost.increment();
    }
}
