package io.flash.ecs.core;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;

/** What the framework's shards count for /q/metrics; rates come from the counters (e.g. rate() in Prometheus). */
public final class ShardMetrics {

    final Counter placements;
    final Counter preemptions;
    final Counter nodesLost;
    /** From the dispatcher sending an attempt to the shard placing it on a node (queueing included). */
    final Timer placementLatency;

    public ShardMetrics(MeterRegistry meters, String frameworkId) {
        placements = Counter.builder("flash.framework.placements").tag("framework", frameworkId)
                .description("attempts placed on a node").register(meters);
        preemptions = Counter.builder("flash.framework.preemptions").tag("framework", frameworkId)
                .description("attempts stopped for higher-priority work").register(meters);
        nodesLost = Counter.builder("flash.framework.nodes.lost").tag("framework", frameworkId)
                .description("nodes declared lost after their heartbeats stopped").register(meters);
        placementLatency = Timer.builder("flash.framework.placement.latency").tag("framework", frameworkId)
                .description("dispatch to placement, queueing included").publishPercentiles(0.5, 0.95, 0.99)
                .register(meters);
    }

    void placed(long dispatchedAt, long now) {
        placements.increment();
        placementLatency.record(Duration.ofMillis(Math.max(0, now - dispatchedAt)));
    }
}
