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
                           long cacheMaxBytes) {
}
