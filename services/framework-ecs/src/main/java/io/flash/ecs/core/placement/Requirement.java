package io.flash.ecs.core.placement;

import io.flash.schema.DiskType;
import io.flash.schema.NetworkMode;
import io.flash.schema.TaskReady;

import java.util.Map;

/**
 * Everything placement looks at besides the nodes: attempts with equal requirements fit the same
 * nodes. Within one scheduling pass, once one of them fits nowhere, the others need not be tried —
 * a 1,000-shard scatter waiting on a full shard costs one failed placement per pass, not 1,000.
 */
public record Requirement(double cpu, long memoryBytes, long diskBytes, int gpus, DiskType diskType, NetworkMode network,
                          Map<String, String> nodeLabels, String queue, int priority, boolean spotAllowed) {

    public static Requirement of(TaskReady ready) {
        var task = ready.getTask();
        var need = task.getResources();
        return new Requirement(need.getCpu(), need.getMemoryBytes(), need.getDiskBytes(), need.getGpus(), task.getDiskType(),
                task.getNetwork(), task.getNodeLabels(), ready.getQueue(), ready.getPriority(), task.getSpotAllowed());
    }
}
