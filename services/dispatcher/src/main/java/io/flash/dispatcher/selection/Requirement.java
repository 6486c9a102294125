package io.flash.dispatcher.selection;

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

    /**
     * Whether two hold reasons say the same thing in words: the figures in them (free cpu, queue
     * lengths, seconds) move with every heartbeat and are no news to the user.
     */
    public static boolean sameInWords(String a, String b) {
        return a != null && b != null && figureless(a).equals(figureless(b));
    }

    private static String figureless(String reason) {
        return reason.replaceAll("[0-9]+(\\.[0-9]+)?", "#");
    }
}
