package io.flash.autoscaler.kafka;

import io.flash.autoscaler.core.FrameworkSight;
import io.flash.autoscaler.core.ShardOfNode;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.NodeHeartbeat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A framework as the autoscaler sees it, from its shards' latest heartbeats and its nodes': only
 * when every shard has reported lately, so that a restart does not decide from half a picture.
 */
final class Sights {

    /** The label a node the autoscaler launched carries (FLASH_NODE_LABELS): only those are drained. */
    static final String MANAGED_LABEL = "launched-by";
    static final String MANAGED_VALUE = "autoscaler";

    private Sights() {
    }

    static Optional<FrameworkSight> of(String frameworkId, int shards, Map<Integer, FrameworkHeartbeat> heartbeats,
                                       List<NodeHeartbeat> nodes, ShardOfNode shardOf, long now, long freshMillis) {
        Map<Integer, List<FrameworkSight.Node>> byShard = new HashMap<>();
        for (NodeHeartbeat n : nodes) {
            if (now - n.getSentAt() <= freshMillis) byShard.computeIfAbsent(shardOf.shardOf(n.getNodeId()), k -> new ArrayList<>()).add(node(n));
        }
        List<FrameworkSight.Shard> seen = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            FrameworkHeartbeat hb = heartbeats.get(shard);
            if (hb == null || now - hb.getSentAt() > freshMillis) return Optional.empty();
            seen.add(new FrameworkSight.Shard(shard, hb.getQueuedShapes(), byShard.getOrDefault(shard, List.of())));
        }
        return Optional.of(new FrameworkSight(frameworkId, heartbeats.get(0).getNodeClasses(), seen));
    }

    private static FrameworkSight.Node node(NodeHeartbeat n) {
        return new FrameworkSight.Node(n.getNodeId(), n.getNodeClass(), n.getSpot(), n.getFree(), n.getRunningAttempts().size(),
                n.getUnhealthy() == null, MANAGED_VALUE.equals(n.getLabels().get(MANAGED_LABEL)), n.getAssignmentPartition());
    }
}
