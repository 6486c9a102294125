package io.flash.ingest.view;

import io.flash.ingest.core.validation.LargestNode;
import io.flash.schema.Capacity;
import io.flash.schema.FrameworkHeartbeat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The frameworks' latest heartbeats (one per framework shard), and from them the largest node any
 * has reported, per dimension: what a single task can ever get.
 */
public final class FrameworkLimits {

    private final Map<String, FrameworkHeartbeat> shards = new ConcurrentHashMap<>();

    public void update(String key, FrameworkHeartbeat heartbeat) {
        if (heartbeat == null) shards.remove(key);
        else shards.put(key, heartbeat);
    }

    /** The latest heartbeat of every framework shard. */
    public List<FrameworkHeartbeat> heartbeats() {
        return List.copyOf(shards.values());
    }

    /** Empty until some framework reports a node: then limits are unknown and not enforced. */
    public Optional<LargestNode> largest() {
        double cpu = 0;
        long memory = 0;
        int gpus = 0;
        long disk = 0;
        String cpuFw = null, memFw = null;
        for (FrameworkHeartbeat hb : shards.values()) {
            Capacity c = hb.getLargestNodeTotal();
            if (hb.getNodes() == 0) continue;
            if (c.getCpu() > cpu) {
                cpu = c.getCpu();
                cpuFw = hb.getFrameworkId();
            }
            gpus = Math.max(gpus, c.getGpus());
            disk = Math.max(disk, c.getDiskBytes());
            if (c.getMemoryBytes() > memory) {
                memory = c.getMemoryBytes();
                memFw = hb.getFrameworkId();
            }
        }
        return cpuFw == null ? Optional.empty() : Optional.of(new LargestNode(new Capacity(cpu, memory, disk, gpus), cpuFw, memFw));
    }
}
