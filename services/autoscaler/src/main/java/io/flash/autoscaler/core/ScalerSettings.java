package io.flash.autoscaler.core;

import java.time.Duration;

/**
 * How the autoscaler behaves (docs/autoscaling.md).
 *
 * @param scaleUpAfter     work must wait this long, with no node or launch able to take it, before a node is added
 *                         (a shard places what fits within a tick or two; this is not a queue to chase)
 * @param idleBeforeDrain  a node it launched that runs nothing for this long is drained and leaves (down to zero)
 * @param launchTimeout    a launched node that has not reported by then is given up on, and its demand counts again
 * @param drainCoolDown    no drain this soon after a launch, so a burst's gaps do not make it flap
 * @param maxNodes         never more nodes of a framework than this, launched or fixed
 * @param maxSpendPerHour  never more than this an hour for a framework's nodes, at their classes' prices
 */
public record ScalerSettings(Duration scaleUpAfter, Duration idleBeforeDrain, Duration launchTimeout, Duration drainCoolDown,
                             int maxNodes, double maxSpendPerHour) {

    public static ScalerSettings defaults() {
        return new ScalerSettings(Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofMinutes(3), Duration.ofSeconds(30),
                20, 10.0);
    }
}
