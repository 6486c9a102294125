package io.flash.ecs.core.placement;

import io.flash.common.resources.Resources;
import io.flash.schema.NodeRecord;

import java.util.*;

/**
 * A shard's live nodes ordered by free cpu, so placement looks only at nodes that could take a
 * task instead of scanning all of them. Kept in step by {@link #put} after every change to a node
 * (allocation, heartbeat, loss).
 */
public final class NodeIndex {

    private record Key(double freeCpu, String nodeId) {
    }

    private static final Comparator<Key> ORDER = Comparator.comparingDouble(Key::freeCpu).thenComparing(Key::nodeId);
    private final TreeMap<Key, NodeRecord> byFreeCpu = new TreeMap<>(ORDER);
    private final Map<String, Key> keys = new HashMap<>();

    /** Adds, moves or (when lost, or unhealthy by its own word) removes the node. */
    public void put(NodeRecord node) {
        String id = node.getHeartbeat().getNodeId();
        Key old = keys.remove(id);
        if (old != null) byFreeCpu.remove(old);
        if (node.getLost() || node.getHeartbeat().getUnhealthy() != null) return;
        Key key = new Key(Resources.minus(node.getHeartbeat().getTotal(), node.getAllocated()).getCpu(), id);
        keys.put(id, key);
        byFreeCpu.put(key, node);
    }

    /** Live nodes with at least {@code cpu} free, the tightest first. */
    public Collection<NodeRecord> withFreeCpu(double cpu) {
        return byFreeCpu.tailMap(new Key(cpu - 1e-9, ""), true).values();
    }

    public int size() {
        return byFreeCpu.size();
    }
}
