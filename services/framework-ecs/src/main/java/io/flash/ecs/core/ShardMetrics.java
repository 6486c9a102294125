package io.flash.ecs.core;

/** What a shard counts as it decides (the port; framework-ecs publishes it on /q/metrics). */
public interface ShardMetrics {

    /** Does not count: tests and benchmarks. */
    ShardMetrics NONE = new ShardMetrics() {
    };

    /** An attempt placed on a node, {@code now - dispatchedAt} after the dispatcher sent it (queueing included). */
    default void placed(long dispatchedAt, long now) {
    }

    /** A waiting attempt tried for placement (what a scheduling pass costs). */
    default void tried() {
    }

    /** An attempt stopped for higher-priority work. */
    default void preempted() {
    }

    /** A node declared lost after its heartbeats stopped. */
    default void nodeLost() {
    }
}
