package io.flash.executor.node;

import io.flash.schema.Capacity;
import io.flash.schema.DiskType;

import java.time.Duration;
import java.util.Map;

/** Who this node is and what it offers. Defaults in application.properties. */
public record NodeSettings(String nodeId, String frameworkId, Capacity capacity, DiskType diskType, boolean network,
                           Map<String, String> labels, Duration heartbeatInterval, Duration pullTimeout, int logTailLines,
                           java.nio.file.Path cgroupRoot, Duration usageInterval, java.nio.file.Path workRoot,
                           int logChunkBytes, long logBytesPerSecond, io.flash.executor.store.ObjectStore.Settings objectStore,
                           long cacheMaxBytes, Sandbox sandbox, java.nio.file.Path sharedRoot, String fetchAllow) {

    /**
     * Limits that protect the node from its tasks: processes and threads per requested core (a fork
     * bomb stops there), and how long the engine gets to stop a killed container before the attempt
     * is ended anyway and the node withholds its capacity until the container is gone.
     */
    public record Sandbox(int pidsPerCpu, Duration killGrace) {
    }

    /** The same node under another id (simulated fleets). */
    public NodeSettings withNodeId(String id) {
        return new NodeSettings(id, frameworkId, capacity, diskType, network, labels, heartbeatInterval, pullTimeout, logTailLines,
                cgroupRoot, usageInterval, workRoot, logChunkBytes, logBytesPerSecond, objectStore, cacheMaxBytes, sandbox,
                sharedRoot, fetchAllow);
    }
}
