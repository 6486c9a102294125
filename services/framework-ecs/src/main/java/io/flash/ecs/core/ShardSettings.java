package io.flash.ecs.core;

import io.flash.common.cost.NodeClasses;
import io.flash.ecs.core.queue.QueueQuotas;

import java.time.Duration;

/**
 * Knobs of one framework's shards; defaults in application.properties.
 *
 * @param nodeTimeout       a node silent for longer is LOST with its attempts
 * @param tick              how often the shard judges its nodes, schedules and heartbeats
 * @param acceptLimit       queued attempts the dispatcher may send a shard beyond what it places
 * @param fenceAfterAbsence a shard that did not tick for longer (frozen, stopped, cut off) places
 *                          nothing until it has read the fences written meanwhile ({@link io.flash.common.framework.CatchUp}).
 *                          Below the dispatcher's heartbeat timeout + redispatch grace (30 s).
 * @param nodeClasses       the catalogue that prices its nodes (docs/cost.md)
 */
public record ShardSettings(String frameworkId, Duration nodeTimeout, Duration tick, int acceptLimit, QueueQuotas quotas,
                            int preemptionsPerMinute, Duration fenceAfterAbsence, NodeClasses nodeClasses) {
    public ShardSettings(String frameworkId, Duration nodeTimeout, Duration tick, int acceptLimit) {
        this(frameworkId, nodeTimeout, tick, acceptLimit, QueueQuotas.none(), 10);
    }

    public ShardSettings(String frameworkId, Duration nodeTimeout, Duration tick, int acceptLimit, QueueQuotas quotas,
                         int preemptionsPerMinute) {
        this(frameworkId, nodeTimeout, tick, acceptLimit, quotas, preemptionsPerMinute, Duration.ofSeconds(20), NodeClasses.none());
    }
}
