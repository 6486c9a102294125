package io.flash.planner.core.cache;

import io.flash.common.cache.CacheKeys;
import io.flash.schema.TaskDefinition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The planner's part of the cache keys (docs/caching.md): a task's key once its units succeeded,
 * and for a task about to run, the key of each upstream task that made one of its inputs — what
 * only the planner knows; the node resolves everything else.
 */
public final class TaskKeys {

    private TaskKeys() {
    }

    /**
     * Whether a task's units may be served from the cache: a hit would leave everything a run would
     * — its declared outputs in the workspace. Never a task that says {@code cache: false}, reads a
     * stream, uploads, has its outputs stored under the job's id in an object store, or writes its
     * streams to files (none of which a hit restores). By default (no {@code cache} said) a task that
     * declares outputs and mounts no host directory (whose content no key covers); with {@code cache:
     * true} any other task too.
     */
    public static boolean servable(TaskDefinition task) {
        if (Boolean.FALSE.equals(task.getCache())) return false;
        if (task.getStream() != null || !task.getUploads().isEmpty() || task.getStore() != null
                || task.getStdoutTo() != null || task.getStderrTo() != null) return false;
        return Boolean.TRUE.equals(task.getCache()) || !task.getOutputs().isEmpty() && task.getMounts().isEmpty();
    }

    /**
     * Whether the task's key covers every task it runs after ({@link #after}): without that, what it
     * read of the shared workspace is not in its key, and it is neither served nor indexed.
     */
    public static boolean chained(TaskDefinition task) {
        return task.getAfterKeys().keySet().containsAll(task.getDependsOn());
    }

    /** Each task it depends on and that task's key, when every one has a key; else none. */
    public static Map<String, String> after(TaskDefinition task, Function<String, String> keys) {
        Map<String, String> after = new HashMap<>();
        for (String dependency : task.getDependsOn()) {
            String key = keys.apply(dependency);
            if (key == null) return Map.of();
            after.put(dependency, key);
        }
        return after;
    }

    /** The key of a task whose units all succeeded, from their keys in shard order; null when one has none (its node keys nothing). */
    public static String ofTask(List<String> unitKeys) {
        if (unitKeys.isEmpty() || unitKeys.contains(null)) return null;
        return CacheKeys.ofUnits(unitKeys);
    }

    /**
     * @param task      the task about to be released (its dependencies are done)
     * @param taskNames every task of its job
     * @param specs     a task's definition by name
     * @param keys      a done task's key by name, or null
     * @return for each input of the task that an upstream task with a key made: that key
     */
    public static Map<String, String> upstream(TaskDefinition task, List<String> taskNames, Function<String, TaskDefinition> specs,
                                               Function<String, String> keys) {
        if (task.getInputs().isEmpty()) return Map.of();
        Map<String, InputOrigins.Step> steps = new HashMap<>();
        for (String name : taskNames) {
            TaskDefinition spec = name.equals(task.getName()) ? task : specs.apply(name);
            steps.put(name, new InputOrigins.Step(new ArrayList<>(spec.getDependsOn()), new ArrayList<>(spec.getOutputs())));
        }
        InputOrigins origins = new InputOrigins(steps);
        Map<String, String> upstream = new HashMap<>();
        for (String input : task.getInputs()) {
            origins.madeBy(task.getName(), input).map(keys).ifPresent(key -> upstream.put(input, key));
        }
        return upstream;
    }
}
