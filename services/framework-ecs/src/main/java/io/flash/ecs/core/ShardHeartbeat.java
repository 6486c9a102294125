package io.flash.ecs.core;

import io.flash.common.cost.NodeClasses;
import io.flash.common.framework.FrameworkHeartbeats;
import io.flash.common.resources.Resources;
import io.flash.schema.*;

import java.util.*;

/** What a shard tells the dispatcher about itself: its live nodes as the kit's offers, and its queue (its head in placement order, for "why pending"). */
final class ShardHeartbeat {

    private ShardHeartbeat() {
    }

    static FrameworkHeartbeat of(ShardSettings settings, int shard, Collection<NodeRecord> nodes,
                                 Collection<TaskDispatch> queue, List<String> queueHead, long now) {
        List<FrameworkHeartbeats.Offer> offers = new ArrayList<>();
        List<NodeClasses.LiveNode> live = new ArrayList<>();
        for (NodeRecord node : nodes) {
            if (node.getLost()) continue;
            NodeHeartbeat hb = node.getHeartbeat();
            Capacity free = hb.getUnhealthy() != null ? Resources.zero() : Resources.minus(hb.getTotal(), node.getAllocated());
            offers.add(new FrameworkHeartbeats.Offer(hb.getTotal(), free, hb.getDiskType(), hb.getNetwork(), hb.getLabels()));
            live.add(new NodeClasses.LiveNode(hb, node.getPlacedAttempts().isEmpty()));
        }
        FrameworkHeartbeat heartbeat = FrameworkHeartbeats.of(settings.frameworkId(), shard, settings.acceptLimit(), offers, queue, now);
        heartbeat.setQueueHead(queueHead);
        heartbeat.setNodeClasses(settings.nodeClasses().report(live));
        heartbeat.setElastic(settings.nodeClasses().elastic());
        return heartbeat;
    }
}
