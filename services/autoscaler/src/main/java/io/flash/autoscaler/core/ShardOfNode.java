package io.flash.autoscaler.core;

/** Which shard of its framework a node with this id lands in (the partition of its heartbeats' key). */
@FunctionalInterface
public interface ShardOfNode {
    int shardOf(String nodeId);
}
