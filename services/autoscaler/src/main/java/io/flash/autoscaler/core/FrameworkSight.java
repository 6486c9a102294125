package io.flash.autoscaler.core;

import io.flash.schema.Capacity;
import io.flash.schema.NodeClass;
import io.flash.schema.QueuedShape;
import java.util.List;

/**
 * What the autoscaler sees of one framework at a moment, from its heartbeats: its catalogue of node
 * classes, and per shard what waits there and the nodes it has.
 */
public record FrameworkSight(String frameworkId, List<NodeClass> catalogue, List<Shard> shards) {

    /** One shard: the attempts waiting in it, by shape, and its live nodes. */
    public record Shard(int shard, List<QueuedShape> waiting, List<Node> nodes) {
    }

    /**
     * A live node. {@code managed}: one the autoscaler launched (only those are drained);
     * {@code available}: it takes work now (not draining, reclaimed or unhealthy).
     */
    public record Node(String nodeId, String nodeClass, boolean spot, Capacity free, int running, boolean available,
                       boolean managed, int assignmentPartition) {
    }
}
