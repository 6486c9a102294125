package io.flash.ingest.view;

import io.flash.schema.NodeHeartbeat;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Flash's own nodes as their latest heartbeats describe them, from every framework's compacted
 * {@code flash.fw.<id>.nodes} topic (a batch cluster's framework has none: its nodes are the cluster's).
 */
public final class NodeViews {

    private final Map<String, NodeHeartbeat> nodes = new ConcurrentHashMap<>();

    /** @param topic the nodes topic the heartbeat came from; a node id is unique only within its framework */
    public void update(String topic, String nodeId, NodeHeartbeat heartbeat) {
        String key = topic + "/" + nodeId;
        if (heartbeat == null) nodes.remove(key);
        else nodes.put(key, heartbeat);
    }

    /** Every node, by framework then node id. */
    public List<NodeHeartbeat> all() {
        return nodes.values().stream()
                .sorted(Comparator.comparing(NodeHeartbeat::getFrameworkId).thenComparing(NodeHeartbeat::getNodeId)).toList();
    }
}
