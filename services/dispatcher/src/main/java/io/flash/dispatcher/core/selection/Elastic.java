package io.flash.dispatcher.core.selection;

import io.flash.common.resources.Resources;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.flash.schema.FrameworkHeartbeat;
import io.flash.schema.NodeClass;

/**
 * A shard as level 1 may use it: one with live nodes, or one of an elastic framework (an autoscaler
 * adds its nodes as work waits, docs/autoscaling.md), which can take what one of its node classes
 * could run even while it has no node — waiting there is what makes the autoscaler add one.
 */
final class Elastic {

    private Elastic() {
    }

    /** Whether the shard may be sent work: not one whose instance is shutting down, and one with nodes or the means to get them. */
    static boolean usable(FrameworkHeartbeat shard) {
        return !shard.getLeaving() && (shard.getNodes() > 0 || shard.getElastic());
    }

    /** The most one node could ever offer: its largest node's, or for an elastic shard its largest class's too. */
    static Capacity largestNode(FrameworkHeartbeat shard) {
        Capacity largest = shard.getLargestNodeTotal();
        if (!shard.getElastic()) return largest;
        for (NodeClass c : shard.getNodeClasses()) largest = Resources.max(largest, c.getCapacity());
        return largest;
    }

    /** Whether a node of the shard has, or for an elastic shard a node of one of its classes would have, this label. */
    static boolean offersLabel(FrameworkHeartbeat shard, String key, String value) {
        if (shard.getNodeLabels().contains(key + "=" + value)) return true;
        return shard.getElastic() && shard.getNodeClasses().stream().anyMatch(c -> value.equals(c.getLabels().get(key)));
    }

    /** Whether a node of the shard has, or one of an elastic shard's classes would have, this disk type (a class of ANY: any). */
    static boolean offersDiskType(FrameworkHeartbeat shard, DiskType type) {
        if (shard.getDiskTypes().contains(type)) return true;
        return shard.getElastic() && shard.getNodeClasses().stream().anyMatch(c -> c.getDiskType() == type || c.getDiskType() == DiskType.ANY);
    }

    /** Whether a node of the shard offers a network; an elastic shard's nodes are executors, which do unless told not to. */
    static boolean offersNetwork(FrameworkHeartbeat shard) {
        return shard.getNetwork() || shard.getElastic() && shard.getNodes() == 0;
    }
}
