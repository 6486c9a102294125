package io.flash.ingest.history;

import io.flash.common.ids.JobIds;
import io.flash.schema.JobAccepted;
import io.flash.schema.TaskDefinition;
import io.flash.schema.TaskState;
import io.flash.schema.TaskSummary;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job's DAG as the console draws it: each logical task with its dependencies (from the accepted
 * job), its units (itself, or its shards) counted by state, and one state for the whole task. No
 * Kafka here.
 */
public final class JobGraph {

    /** A logical task. {@code shards}: 1 for a task that is not scattered, 0 for a scatter not yet expanded. */
    public record Task(String name, String state, List<String> dependsOn, int shards, Map<String, Integer> units, String image,
                       double cpu, long memoryBytes) {
    }

    /** {@code dependenciesKnown} is false when the accepted job is no longer on its topic (older than its retention). */
    public record Graph(String jobId, List<Task> tasks, boolean dependenciesKnown) {
    }

    private JobGraph() {
    }

    public static Graph of(String jobId, JobAccepted spec, List<TaskSummary> units) {
        Map<String, List<TaskSummary>> byTask = new LinkedHashMap<>();
        if (spec != null) spec.getTasks().forEach(t -> byTask.put(t.getName(), new ArrayList<>()));
        for (TaskSummary u : units) byTask.computeIfAbsent(JobIds.taskName(jobId, u.getTaskId()), k -> new ArrayList<>()).add(u);
        Map<String, TaskDefinition> definitions = new LinkedHashMap<>();
        if (spec != null) spec.getTasks().forEach(t -> definitions.put(t.getName(), t));
        List<Task> tasks = new ArrayList<>();
        byTask.forEach((name, its) -> {
            Map<TaskState, Integer> counts = new EnumMap<>(TaskState.class);
            its.forEach(u -> counts.merge(u.getState(), 1, Integer::sum));
            Map<String, Integer> named = new LinkedHashMap<>();
            counts.forEach((state, n) -> named.put(state.name(), n));
            TaskDefinition d = definitions.get(name);
            int shards = d == null ? its.size() : d.getScatter() == null ? 1 : d.getScatter().getShards() > 0 ? d.getScatter().getShards() : its.size();
            tasks.add(new Task(name, rollUp(counts, shards).name(), d == null ? List.of() : List.copyOf(d.getDependsOn()), shards, named,
                    d == null ? null : d.getImage(), d == null ? 0 : d.getResources().getCpu(),
                    d == null ? 0 : d.getResources().getMemoryBytes()));
        });
        return new Graph(jobId, tasks, spec != null);
    }

    /** One state for a task of many units: what a person most needs to see first. */
    static TaskState rollUp(Map<TaskState, Integer> counts, int units) {
        int succeeded = counts.getOrDefault(TaskState.SUCCEEDED, 0);
        if (succeeded > 0 && succeeded >= Math.max(1, units)) return TaskState.SUCCEEDED;
        for (TaskState s : List.of(TaskState.RUNNING, TaskState.PLACED, TaskState.FAILED, TaskState.LOST, TaskState.CANCELLED, TaskState.SKIPPED,
                TaskState.DISPATCHED, TaskState.READY)) {
            if (counts.getOrDefault(s, 0) > 0) return s == TaskState.PLACED ? TaskState.RUNNING : s;
        }
        return succeeded > 0 ? TaskState.RUNNING : TaskState.PENDING;
    }
}
