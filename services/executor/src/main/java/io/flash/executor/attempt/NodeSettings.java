package io.flash.executor.attempt;

import io.flash.executor.store.ObjectStore;
import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Who this node is and what it offers. Defaults in application.properties. */
public record NodeSettings(String nodeId, String frameworkId, Capacity capacity, DiskType diskType, boolean network,
                           Map<String, String> labels, Duration heartbeatInterval, Duration pullTimeout, int logTailLines,
                           Path cgroupRoot, Duration usageInterval, Path workRoot,
                           int logChunkBytes, long logBytesPerSecond, ObjectStore.Settings objectStore,
                           long cacheMaxBytes, Sandbox sandbox, Path sharedRoot, String fetchAllow, Pricing pricing) {

    /** A node no catalogue prices (tests, simulations that do not say). */
    public NodeSettings(String nodeId, String frameworkId, Capacity capacity, DiskType diskType, boolean network,
                        Map<String, String> labels, Duration heartbeatInterval, Duration pullTimeout, int logTailLines,
                        Path cgroupRoot, Duration usageInterval, Path workRoot,
                        int logChunkBytes, long logBytesPerSecond, ObjectStore.Settings objectStore,
                        long cacheMaxBytes, Sandbox sandbox, Path sharedRoot, String fetchAllow) {
        this(nodeId, frameworkId, capacity, diskType, network, labels, heartbeatInterval, pullTimeout, logTailLines, cgroupRoot,
                usageInterval, workRoot, logChunkBytes, logBytesPerSecond, objectStore, cacheMaxBytes, sandbox, sharedRoot,
                fetchAllow, Pricing.UNPRICED);
    }

    /**
     * What the node is sold as (docs/cost.md): the class of its framework's catalogue it was started
     * as (null: unpriced), whether it runs on spot capacity, and — for a provider that reclaims spot
     * nodes at a rate — how often per hour and with how much notice.
     */
    public record Pricing(String nodeClass, boolean spot, double reclaimsPerHour, Duration notice) {
        public static final Pricing UNPRICED = new Pricing(null, false, 0, Duration.ofSeconds(120));
    }

    /**
     * Limits that protect the node from its tasks: processes and threads per requested core (a fork
     * bomb stops there), and how long the engine gets to stop a killed container before the attempt
     * is ended anyway and the node withholds its capacity until the container is gone.
     */
    public record Sandbox(int pidsPerCpu, Duration killGrace) {
    }

    /** Another node of this kind: its own id, capacity, labels and pricing (a simulated node an autoscaler launched). */
    public NodeSettings withNode(String id, Capacity size, Map<String, String> nodeLabels, Pricing sold) {
        return new NodeSettings(id, frameworkId, size, diskType, network, nodeLabels, heartbeatInterval, pullTimeout, logTailLines,
                cgroupRoot, usageInterval, workRoot, logChunkBytes, logBytesPerSecond, objectStore, cacheMaxBytes, sandbox,
                sharedRoot, fetchAllow, sold);
    }

    /** The same node under another id (simulated fleets). */
    public NodeSettings withNodeId(String id) {
        return new NodeSettings(id, frameworkId, capacity, diskType, network, labels, heartbeatInterval, pullTimeout, logTailLines,
                cgroupRoot, usageInterval, workRoot, logChunkBytes, logBytesPerSecond, objectStore, cacheMaxBytes, sandbox,
                sharedRoot, fetchAllow, pricing);
    }
}
