package io.flash.dispatcher.core.selection;

import io.flash.schema.Capacity;
import io.flash.schema.DiskType;
import io.flash.schema.NetworkMode;
import io.flash.schema.TaskReady;

import java.util.List;
import java.util.Map;

/**
 * Everything {@link FrameworkSelector} looks at in an attempt. Within one retry round, dispatching
 * only takes room, so an attempt equal to one just held is held for the same reason: a round over
 * 100,000 held shards of a few scatters costs a few decisions, not 100,000.
 */
public record Requirement(String framework, Capacity resources, DiskType diskType, NetworkMode network,
                          Map<String, String> nodeLabels, boolean requireLocality, List<String> dependencyFrameworks,
                          List<String> excludedFrameworks) {

    public static Requirement of(TaskReady ready) {
        var task = ready.getTask();
        return new Requirement(task.getFramework(), task.getResources(), task.getDiskType(), task.getNetwork(),
                task.getNodeLabels(), task.getRequireLocality(), ready.getDependencyFrameworks(), ready.getExcludedFrameworks());
    }
}
