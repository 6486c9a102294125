package io.flash.ecs.shard;

import io.flash.common.resources.Resources;
import io.flash.schema.*;

import java.util.*;

/** What a shard tells the dispatcher about itself: its live nodes' capacity and its queue. */
final class ShardHeartbeat {

    private ShardHeartbeat() {
    }

    static FrameworkHeartbeat of(String frameworkId, int shard, int acceptLimit, Collection<NodeRecord> nodes,
                                 Collection<TaskDispatch> queue, long now) {
        int count = 0;
        Capacity total = Resources.zero(), free = Resources.zero(), largestFree = Resources.zero(), largestTotal = Resources.zero();
        Set<DiskType> diskTypes = EnumSet.noneOf(DiskType.class);
        boolean network = false;
        Set<String> labels = new TreeSet<>();
        for (NodeRecord node : nodes) {
            if (node.getLost()) continue;
            count++;
            Capacity nodeTotal = node.getHeartbeat().getTotal();
            Capacity nodeFree = node.getHeartbeat().getUnhealthy() != null ? Resources.zero()
                    : Resources.minus(nodeTotal, node.getAllocated());
            total = Resources.plus(total, nodeTotal);
            free = Resources.plus(free, nodeFree);
            largestFree = Resources.max(largestFree, nodeFree);
            largestTotal = Resources.max(largestTotal, nodeTotal);
            diskTypes.add(node.getHeartbeat().getDiskType());
            network |= node.getHeartbeat().getNetwork();
            node.getHeartbeat().getLabels().forEach((k, v) -> labels.add(k + "=" + v));
        }
        Capacity queuedDemand = Resources.zero();
        for (TaskDispatch d : queue) {
            queuedDemand = Resources.plus(queuedDemand, d.getReady().getTask().getResources());
        }
        return FrameworkHeartbeat.newBuilder()
                .setFrameworkId(frameworkId).setShard(shard).setNodes(count)
                .setTotal(total).setFree(free).setLargestNodeFree(largestFree).setLargestNodeTotal(largestTotal)
                .setDiskTypes(new ArrayList<>(diskTypes)).setNetwork(network)
                .setQueued(queue.size()).setQueuedDemand(queuedDemand).setAcceptLimit(acceptLimit).setSentAt(now)
                .setNodeLabels(new ArrayList<>(labels)).build();
    }
}
