package io.flash.common.cost;

import io.flash.schema.NodeClass;
import io.flash.schema.NodeHeartbeat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A framework's catalogue of node classes and their prices (docs/cost.md). A node says which class
 * it was started as and whether it is on spot; its price per hour comes from here, so a price is
 * set in one place.
 */
public final class NodeClasses {

    private final Map<String, NodeClass> byName = new TreeMap<>();
    private final boolean elastic;

    public NodeClasses(Collection<NodeClass> classes) {
        this(classes, false);
    }

    /** @param elastic an autoscaler adds nodes of these classes as work waits (docs/autoscaling.md) */
    public NodeClasses(Collection<NodeClass> classes, boolean elastic) {
        classes.forEach(c -> byName.put(c.getName(), NodeClass.newBuilder(c).setNodes(0).setSpotNodes(0).setIdleNodes(0).build()));
        this.elastic = elastic;
    }

    public static NodeClasses none() {
        return new NodeClasses(List.of());
    }

    public boolean elastic() {
        return elastic;
    }

    public Optional<NodeClass> get(String name) {
        return Optional.ofNullable(name == null ? null : byName.get(name));
    }

    /** What the node costs per hour, or empty for a node of no class this catalogue prices. */
    public Optional<Double> pricePerHour(NodeHeartbeat node) {
        return get(node.getNodeClass()).map(c -> node.getSpot() ? c.getSpotPerHour() : c.getOnDemandPerHour());
    }

    /** The catalogue with how many of the given live nodes are of each class, on spot and idle. */
    public List<NodeClass> report(Collection<LiveNode> nodes) {
        Map<String, NodeClass> counted = new TreeMap<>();
        byName.forEach((name, c) -> counted.put(name, NodeClass.newBuilder(c).build()));
        for (LiveNode node : nodes) {
            String name = node.heartbeat().getNodeClass();
            NodeClass c = name == null ? null : counted.get(name);
            if (c == null) continue;
            c.setNodes(c.getNodes() + 1);
            if (node.heartbeat().getSpot()) c.setSpotNodes(c.getSpotNodes() + 1);
            if (node.idle()) c.setIdleNodes(c.getIdleNodes() + 1);
        }
        return new ArrayList<>(counted.values());
    }

    /** A node as a framework sees it: what it says of itself, and whether it runs nothing now. */
    public record LiveNode(NodeHeartbeat heartbeat, boolean idle) {
    }
}
